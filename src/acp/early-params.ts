// Which session/new requests the early handshake may answer (early-session.ts): only those whose
// every field the SDK's schema takes as is, without defaults or coercion, so the SDK path sees the
// same request. Kept apart from early-session.ts, which needs the config and the models and loads
// only once initialize is answered.

export type EarlySessionParams = { cwd: string; additionalDirectories: string[] };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const hasOnly = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.keys(value).every((key) => keys.includes(key));
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
const isNameValueList = (value: unknown) =>
  Array.isArray(value) &&
  value.every((e) => isPlainObject(e) && hasOnly(e, ["name", "value"]) && isString(e.name) && isString(e.value));

/** An MCP server entry in the exact form the SDK's schema takes without defaults or coercion. */
function isPlainMcpServer(server: unknown): boolean {
  if (!isPlainObject(server) || !isString(server.name)) return false;
  if (server.type === "http" || server.type === "sse")
    return (
      hasOnly(server, ["type", "name", "url", "headers"]) && isString(server.url) && isNameValueList(server.headers)
    );
  return (
    !("type" in server) &&
    hasOnly(server, ["name", "command", "args", "env"]) &&
    isString(server.command) &&
    isStringArray(server.args) &&
    isNameValueList(server.env)
  );
}

/** The params of a `session/new` the early path may answer, else undefined. */
export function plainSessionNewParams(params: unknown): EarlySessionParams | undefined {
  if (!isPlainObject(params) || !hasOnly(params, ["cwd", "mcpServers", "additionalDirectories"])) return undefined;
  const { cwd, mcpServers, additionalDirectories = [] } = params;
  if (!isString(cwd) || !Array.isArray(mcpServers) || !mcpServers.every(isPlainMcpServer)) return undefined;
  if (!isStringArray(additionalDirectories)) return undefined;
  return { cwd, additionalDirectories };
}
