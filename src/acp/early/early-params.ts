// Which session/new requests the early handshake may answer (early-session.ts): only those the SDK's
// schema certainly accepts, every field as it is (no defaults for nulls, no coercion), so the SDK path
// runs the handler on the same request. `_meta` is accepted anywhere, as the schema does (whatever its
// value) and our handler never reads it. Kept apart from early-session.ts, which needs the config and
// the models and is not needed to answer initialize.

export type EarlySessionParams = { cwd: string; additionalDirectories: string[] };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const hasOnly = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.keys(value).every((key) => key === "_meta" || keys.includes(key));
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
  // stdio has no tag in the schema; some clients send "type": "stdio", which it ignores.
  return (
    (!("type" in server) || server.type === "stdio") &&
    hasOnly(server, ["type", "name", "command", "args", "env"]) &&
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
