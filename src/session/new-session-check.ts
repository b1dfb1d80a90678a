import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import type { SessionServices } from "./services.js";

// The preconditions of a new session, the one check both session/new paths make: the early
// handshake (acp/early/early-session.ts, which answers only when it passes) and the SDK handler
// (acp/handlers/session-lifecycle.ts, which maps a failure to its ACP error). A light entry of the session
// room: types only from it, so the early path can use it before the session layer loads.

export type NewSessionProblem =
  | { kind: "invalid_params"; message: string; data: Record<string, string> }
  | { kind: "auth_required"; message: string };

export type NewSessionCheck = { ok: true; modelSpec: string } | ({ ok: false } & NewSessionProblem);

const shown = (path: string) => (path.length > 200 ? `${path.slice(0, 200)}…` : path);

/** Every directory a session names must be absolute (new, load, resume, fork). */
export function relativePathProblem(cwd: string, extra: readonly string[] = []): NewSessionProblem | undefined {
  const dir = [cwd, ...extra].find((d) => !isAbsolute(d));
  if (dir === undefined) return undefined;
  return { kind: "invalid_params", data: { path: shown(dir) }, message: `paths must be absolute: "${shown(dir)}"` };
}

/** A new session's cwd must be a directory here: watching and tools anchor on it. */
async function workingDirectoryProblem(cwd: string): Promise<NewSessionProblem | undefined> {
  const info = await stat(cwd).catch((error: NodeJS.ErrnoException) => error);
  const data = { cwd: shown(cwd) };
  if (info instanceof Error) {
    const why = info.code === "ENOENT" ? "does not exist" : `cannot be used (${info.code ?? info.message})`;
    return { kind: "invalid_params", data, message: `cwd ${why}: "${shown(cwd)}"` };
  }
  if (!info.isDirectory()) return { kind: "invalid_params", data, message: `cwd is not a directory: "${shown(cwd)}"` };
  return undefined;
}

/** Absolute paths, a working directory that is one, and a usable model (the spec it starts with). */
export async function checkNewSession(
  services: Pick<SessionServices, "models">,
  params: { cwd: string; additionalDirectories?: readonly string[] },
): Promise<NewSessionCheck> {
  const problem =
    relativePathProblem(params.cwd, params.additionalDirectories ?? []) ?? (await workingDirectoryProblem(params.cwd));
  if (problem) return { ok: false, ...problem };
  let resolved = await services.models.resolveDefault();
  if ("error" in resolved) {
    // A key stored by `deep-acp login` in another process since we last looked counts too.
    await services.models.reload();
    resolved = await services.models.resolveDefault();
  }
  if ("error" in resolved) return { ok: false, kind: "auth_required", message: resolved.error };
  return { ok: true, modelSpec: resolved.spec };
}
