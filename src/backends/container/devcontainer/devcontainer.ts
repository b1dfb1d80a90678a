import { readFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";

// What deep-acp honours of a dev container definition (<root>/.devcontainer/devcontainer.json, else
// <root>/.devcontainer.json): `image`, or `build.dockerfile` (+ `build.context`, `build.args`; the
// older `dockerFile`), `workspaceFolder`, `containerEnv`, `remoteUser` (else `containerUser`) and
// `postCreateCommand` (string, array or named commands), run inside once the container exists.
// `${localWorkspaceFolder}`, `${localWorkspaceFolderBasename}` and `${containerWorkspaceFolder}` are
// substituted; `${localEnv:...}` is not (nothing of the host environment enters the workspace).
// Other fields (features, forwardPorts, mounts, runArgs, customizations, ...) are listed as ignored.

export type DevContainer = {
  file: string;
  /** The definition as read (its hash binds the plan the user approved). */
  text: string;
  image?: string;
  build?: { dockerfile: string; context: string; args: Record<string, string> };
  workspaceFolder?: string;
  containerEnv: Record<string, string>;
  user?: string;
  /** Each entry runs as a shell command line, in order. */
  postCreate: string[];
  ignored: string[];
};

const HONOURED = new Set([
  "name",
  "image",
  "build",
  "dockerFile",
  "context",
  "workspaceFolder",
  "containerEnv",
  "remoteUser",
  "containerUser",
  "postCreateCommand",
  "$schema",
]);

export function devContainerFiles(root: string): string[] {
  return [join(root, ".devcontainer", "devcontainer.json"), join(root, ".devcontainer.json")];
}

const quoteArg = (arg: string) => (/^[A-Za-z0-9_./:=@-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** Reads the project's dev container definition; throws with a readable message. */
export async function readDevContainer(root: string): Promise<DevContainer> {
  let file: string | undefined;
  let text: string | undefined;
  for (const candidate of devContainerFiles(root)) {
    text = await readFile(candidate, "utf8").catch(() => undefined);
    if (text !== undefined) {
      file = candidate;
      break;
    }
  }
  if (!file || text === undefined)
    throw new Error(`no dev container definition: neither ${devContainerFiles(root).join(" nor ")} exists`);
  const errors: ParseError[] = [];
  const json = parse(text, errors, { allowTrailingComma: true }) as Record<string, unknown> | undefined;
  if (errors.length > 0 || !json || typeof json !== "object")
    throw new Error(
      `${file} does not parse: ${errors.map((e) => `${printParseErrorCode(e.error)} at offset ${e.offset}`).join(", ") || "not an object"}`,
    );
  const dir = dirname(file);
  const local = (value: string) =>
    value
      .replaceAll("${localWorkspaceFolder}", root)
      .replaceAll("${localWorkspaceFolderBasename}", basename(root))
      .replace(/\$\{localEnv:[^}]*\}/g, "");
  const workspaceFolder = typeof json.workspaceFolder === "string" ? local(json.workspaceFolder) : undefined;
  const substitute = (value: string) => local(value).replaceAll("${containerWorkspaceFolder}", workspaceFolder ?? root);
  const strings = (value: unknown, what: string): Record<string, string> => {
    if (value === undefined) return {};
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new Error(`${file}: ${what} must be an object`);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(String(v))]));
  };
  const build = (json.build ?? {}) as Record<string, unknown>;
  const dockerfile = typeof build.dockerfile === "string" ? build.dockerfile : json.dockerFile;
  const result: DevContainer = {
    file,
    text,
    containerEnv: strings(json.containerEnv, "containerEnv"),
    postCreate: postCreateLines(json.postCreateCommand, file).map(substitute),
    ignored: Object.keys(json).filter((k) => !HONOURED.has(k)),
  };
  if (typeof json.image === "string") result.image = substitute(json.image);
  if (typeof dockerfile === "string") {
    const context =
      typeof build.context === "string" ? build.context : typeof json.context === "string" ? json.context : ".";
    result.build = {
      dockerfile: resolve(dir, dockerfile),
      context: resolve(dir, context),
      args: strings(build.args, "build.args"),
    };
  }
  if (!result.image && !result.build) throw new Error(`${file} names neither "image" nor "build.dockerfile"`);
  if (workspaceFolder) {
    if (!isAbsolute(workspaceFolder))
      throw new Error(`${file}: workspaceFolder must be an absolute path (got "${workspaceFolder}")`);
    result.workspaceFolder = workspaceFolder;
  }
  const user = json.remoteUser ?? json.containerUser;
  if (typeof user === "string" && user) result.user = user;
  return result;
}

function postCreateLines(value: unknown, file: string): string[] {
  if (value === undefined) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return [value.map((a) => quoteArg(String(a))).join(" ")];
  if (value && typeof value === "object")
    return Object.values(value).flatMap((v) =>
      typeof v === "string" ? [v] : Array.isArray(v) ? [v.map((a) => quoteArg(String(a))).join(" ")] : [],
    );
  throw new Error(`${file}: postCreateCommand must be a string, an array or an object`);
}
