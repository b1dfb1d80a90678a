import { statSync } from "node:fs";
import { backendForCall } from "../../backends/paths/approved-targets.js";
import type { BackendProtocol } from "../../backends/protocol.js";
import { resolveRealTarget } from "../../backends/paths/real-path.js";
import { checkToolPath, decideDeleteAccess, filterAllowed, type CompiledFileRules } from "./file-rules.js";

/**
 * Enforces the user's file rules on every access, whoever makes it (a tool, code in eval, a
 * subagent, a mentioned file): denied reads and writes fail, and listings and searches leave out
 * what may not be read. A path is checked as given and as its real path, so a link does not get
 * around a deny rule. The "ask" decision is taken earlier, by the gate, so here only `deny` blocks
 * and "ask" entries stay visible in listings.
 */
export function createGuardedBackend(
  inner: BackendProtocol,
  rules: CompiledFileRules,
  options: { localPaths?: boolean } = {},
): BackendProtocol {
  if (rules.rules.length === 0) return inner;
  const deniedAsGiven = (op: "read" | "write", path: string): string | undefined => {
    const check = checkToolPath(rules, op, path);
    return check.ok ? undefined : check.error;
  };
  const denied = async (op: "read" | "write", path: string): Promise<string | undefined> => {
    const given = deniedAsGiven(op, path);
    if (given || options.localPaths === false || !path.startsWith("/")) return given;
    const target = await resolveRealTarget(path);
    return target.real === target.requested ? undefined : deniedAsGiven(op, target.real);
  };
  const visible = <T>(items: readonly T[] | undefined, pathOf: (item: T) => string): T[] | undefined =>
    items && filterAllowed(rules, "read", items, pathOf, { askAllowed: true });
  const guarded: BackendProtocol = {
    async ls(path) {
      const error = await denied("read", path);
      if (error) return { error };
      const result = await inner.ls(path);
      return { ...result, files: visible(result.files, (f) => f.path.replace(/\/$/, "")) };
    },
    async read(path, offset, limit) {
      return denyOr(await denied("read", path), () => inner.read(path, offset, limit));
    },
    async readRaw(path) {
      return denyOr(await denied("read", path), () => inner.readRaw(path));
    },
    async write(path, content) {
      return denyOr(await denied("write", path), () => inner.write(path, content));
    },
    async edit(path, oldString, newString, replaceAll) {
      return denyOr((await denied("read", path)) ?? (await denied("write", path)), () =>
        inner.edit(path, oldString, newString, replaceAll),
      );
    },
    async grep(pattern, path, glob, maxCount) {
      const error = path ? await denied("read", path) : undefined;
      if (error) return { error };
      const result = await inner.grep(pattern, path, glob, maxCount);
      return { ...result, matches: visible(result.matches, (m) => m.path) };
    },
    async glob(pattern, path) {
      const error = path ? await denied("read", path) : undefined;
      if (error) return { error };
      const result = await inner.glob(pattern, path);
      return { ...result, files: visible(result.files, (f) => f.path) };
    },
  };
  if (inner.delete) {
    const remove = inner.delete.bind(inner);
    guarded.delete = async (path) => {
      const real = options.localPaths === false || !path.startsWith("/") ? path : (await resolveRealTarget(path)).real;
      for (const candidate of new Set([path, real])) {
        const decision = decideDeleteAccess(rules, candidate, { isDirectory: isDirectory(candidate) });
        if (decision.decision === "deny")
          return { error: decision.error ?? `permission denied for write on ${candidate}` };
      }
      return remove(path);
    };
  }
  if (inner.uploadFiles) {
    const upload = inner.uploadFiles.bind(inner);
    guarded.uploadFiles = async (files) => {
      const verdicts = await Promise.all(files.map(([path]) => denied("write", path)));
      const allowed = files.filter((_, i) => !verdicts[i]);
      const results = await upload(allowed);
      const denials = files
        .filter((_, i) => verdicts[i])
        .map(([path]) => ({ path, error: "permission_denied" as const }));
      return [...results, ...denials];
    };
  }
  if (inner.downloadFiles) {
    const download = inner.downloadFiles.bind(inner);
    guarded.downloadFiles = async (paths) => {
      const verdicts = await Promise.all(paths.map((p) => denied("read", p)));
      const allowed = paths.filter((_, i) => !verdicts[i]);
      const results = await download(allowed);
      return [
        ...results,
        ...paths
          .filter((_, i) => verdicts[i])
          .map((path) => ({ path, content: null, error: "permission_denied" as const })),
      ];
    };
  }
  // Set on the wrapper itself: inherited from `inner`, it would hand out the inner backend unguarded.
  guarded.forCall = (approved) => createGuardedBackend(backendForCall(inner, approved), rules, options);
  // Keep sandbox identity and execute (commands are not path-checked; see the approval policy).
  return Object.assign(Object.create(inner) as BackendProtocol, guarded);
}

async function denyOr<T extends { error?: string }>(error: string | undefined, run: () => Promise<T>): Promise<T> {
  return error ? ({ error } as T) : run();
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
