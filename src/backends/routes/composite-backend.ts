import { backendForCall } from "../paths/approved-targets.js";
import { DEFAULT_GREP_MAX_COUNT } from "../search/fs-search.js";
import { hasGlobChars, relativeMatcher } from "../search/glob-plan.js";
import {
  isSandboxBackend,
  type BackendProtocol,
  type DeleteResult,
  type FileDownloadResponse,
  type FileInfo,
  type FileUploadResponse,
  type GlobResult,
  type GrepMatch,
  type GrepResult,
  type LsResult,
  type SandboxBackendProtocol,
} from "../protocol.js";

// One namespace over several backends: paths under a route prefix ("/memories/") go to that
// route's backend with the prefix stripped ("/memories/a.md" -> "/a.md") and re-added on results;
// everything else goes to the default backend (the user's files). Longest prefix wins.

export class InvalidRouteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidRouteError";
  }
}

export interface CompositeBackend extends BackendProtocol {
  /** Route prefixes, longest first, each ending with "/". */
  readonly routePrefixes: readonly string[];
  delete(filePath: string): Promise<DeleteResult>;
  uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]>;
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]>;
}

export type CompositeSandboxBackend = CompositeBackend & SandboxBackendProtocol;

/** "/memories" or "/memories/" -> "/memories/"; throws InvalidRouteError for anything else. */
export function normaliseRoutePrefix(prefix: string): string {
  const segments = prefix.split("/").filter((s) => s.length > 0);
  const bad = segments.some((s) => s === "." || s === ".." || s === "~" || hasGlobChars(s) || s.includes("\0"));
  if (!prefix.startsWith("/") || segments.length === 0 || bad) {
    throw new InvalidRouteError(
      `invalid route prefix ${JSON.stringify(prefix)}: use an absolute directory such as "/memories/"`,
    );
  }
  return `/${segments.join("/")}/`;
}

type Route = { prefix: string; backend: BackendProtocol };
type Target = { backend: BackendProtocol; route?: Route; path: string };

export function createCompositeBackend(
  defaultBackend: SandboxBackendProtocol,
  routes: Record<string, BackendProtocol>,
): CompositeSandboxBackend;
export function createCompositeBackend(
  defaultBackend: BackendProtocol,
  routes: Record<string, BackendProtocol>,
): CompositeBackend;
export function createCompositeBackend(
  defaultBackend: BackendProtocol,
  routeMap: Record<string, BackendProtocol>,
): CompositeBackend {
  const routes: Route[] = Object.entries(routeMap)
    .map(([prefix, backend]) => ({ prefix: normaliseRoutePrefix(prefix), backend }))
    .sort((a, b) => b.prefix.length - a.prefix.length || (a.prefix < b.prefix ? -1 : 1));

  const collapse = (path: string) => path.replace(/\/{2,}/g, "/");
  const dirOf = (path: string) => {
    const p = collapse(path);
    return p.length > 1 ? p.replace(/\/+$/, "") : p;
  };

  function target(path: string): Target {
    const p = collapse(path);
    for (const route of routes) {
      if (p === route.prefix.slice(0, -1) || p.startsWith(route.prefix)) {
        return { backend: route.backend, route, path: "/" + p.slice(route.prefix.length) };
      }
    }
    return { backend: defaultBackend, path };
  }

  const outer = (route: Route | undefined, inner: string) =>
    route ? route.prefix.slice(0, -1) + (inner.startsWith("/") ? inner : `/${inner}`) : inner;

  /** Routes mounted strictly below an absolute directory path (deeper than the route owning it). */
  function routesUnder(path: string | null | undefined, owner: Route | undefined): Route[] {
    if (!path || !path.startsWith("/")) return [];
    const dir = dirOf(path);
    const base = dir === "/" ? "/" : `${dir}/`;
    return routes
      .filter(
        (r) =>
          r.prefix.startsWith(base) &&
          r.prefix !== base &&
          r !== owner &&
          (!owner || r.prefix.startsWith(owner.prefix)),
      )
      .sort((a, b) => (a.prefix < b.prefix ? -1 : 1));
  }

  /** The backend owning `path` (the default when no route matches, or when path is omitted). */
  function owner(path: string | null | undefined): Target {
    return path ? target(path) : { backend: defaultBackend, path: "" };
  }
  const innerPath = (t: Target, path: string | null | undefined) => (t.route ? t.path : (path ?? undefined));

  async function ls(path: string): Promise<LsResult> {
    const t = target(path);
    const result = await t.backend.ls(t.path);
    const files = result.files?.map((f) => ({ ...f, path: outer(t.route, f.path) }));
    const mounted = routesUnder(path, t.route);
    if (mounted.length === 0) return files ? { files } : result;
    const dir = dirOf(path);
    const base = dir === "/" ? "/" : `${dir}/`;
    const entries = new Map<string, FileInfo>();
    for (const file of files ?? []) entries.set(file.path, file);
    for (const route of mounted) {
      const child = `${base}${route.prefix.slice(base.length).split("/")[0]}/`;
      entries.set(child, { path: child, isDir: true });
    }
    return { files: [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
  }

  async function grep(
    pattern: string,
    path?: string | null,
    glob?: string | null,
    maxCount?: number | null,
  ): Promise<GrepResult> {
    const t = owner(path);
    const limit = maxCount ?? DEFAULT_GREP_MAX_COUNT;
    const mounted = routesUnder(path, t.route);
    const first = await t.backend.grep(pattern, innerPath(t, path), glob, limit);
    if (first.error && (mounted.length === 0 || !/not found/i.test(first.error))) return first;
    const matches: GrepMatch[] = (first.matches ?? []).map((m) => ({ ...m, path: outer(t.route, m.path) }));
    let truncated = first.truncated === true;
    for (const route of mounted) {
      if (truncated || matches.length >= limit) {
        truncated = true;
        break;
      }
      const result = await route.backend.grep(pattern, "/", glob, limit - matches.length);
      if (result.error) return { error: `${route.prefix}: ${result.error}` };
      for (const m of result.matches ?? []) matches.push({ ...m, path: outer(route, m.path) });
      truncated ||= result.truncated === true;
    }
    return truncated ? { matches, truncated } : { matches };
  }

  async function glob(pattern: string, path?: string): Promise<GlobResult> {
    let searchPath = path;
    let searchPattern = pattern;
    if (pattern.startsWith("/")) {
      // An absolute pattern names its own base: route by its literal leading directories.
      const segments = pattern.split("/").filter((s) => s.length > 0);
      let first = 0;
      while (first < segments.length - 1 && !hasGlobChars(segments[first]!)) first++;
      searchPath = `/${segments.slice(0, first).join("/")}`;
      searchPattern = segments.slice(first).join("/");
    }
    const t = owner(searchPath);
    const mounted = routesUnder(searchPath, t.route);
    const first = await t.backend.glob(searchPattern, innerPath(t, searchPath));
    const files: FileInfo[] = (first.files ?? []).map((f) => ({ ...f, path: outer(t.route, f.path) }));
    if (mounted.length === 0) return first.files ? { ...first, files } : first;
    const base = dirOf(searchPath!);
    const matcher = relativeMatcher(searchPattern);
    for (const route of mounted) {
      // Route trees are small: list them whole and match relative to the search base.
      const result = await route.backend.glob("**/*", "/");
      for (const file of result.files ?? []) {
        const full = outer(route, file.path);
        if (matcher(full.slice(base === "/" ? 1 : base.length + 1))) files.push({ ...file, path: full });
      }
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return first.truncated ? { files, truncated: true } : { files };
  }

  async function remove(filePath: string): Promise<DeleteResult> {
    const t = target(filePath);
    const label = t.route ? t.route.prefix : filePath;
    if (!t.backend.delete) return { error: `delete is not supported under ${label}` };
    const mounted = routesUnder(filePath, t.route);
    const done: string[] = [];
    const first = await t.backend.delete(t.path);
    if (first.error && (mounted.length === 0 || !/not found/i.test(first.error))) return first;
    if (!first.error) done.push(filePath);
    for (const route of mounted) {
      const result = route.backend.delete ? await route.backend.delete("/") : { error: "delete is not supported" };
      if (result.error) {
        if (done.length === 0) return { error: `${route.prefix}: ${result.error}` };
        return {
          error: `Deletion may be partial; ${done.length} earlier backend(s) completed (${done.join(", ")}). Failed on ${route.prefix}: ${result.error}`,
        };
      }
      done.push(route.prefix);
    }
    return { path: filePath };
  }

  async function uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    return Promise.all(
      files.map(async ([path, bytes]) => {
        const t = target(path);
        if (!t.backend.uploadFiles) return { path, error: "permission_denied" as const };
        const [response] = await t.backend.uploadFiles([[t.path, bytes]]);
        return { path, error: response?.error ?? null };
      }),
    );
  }

  async function downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return Promise.all(
      paths.map(async (path) => {
        const t = target(path);
        if (!t.backend.downloadFiles) return { path, content: null, error: "permission_denied" as const };
        const [response] = await t.backend.downloadFiles([t.path]);
        return { path, content: response?.content ?? null, error: response?.error ?? null };
      }),
    );
  }

  const composite: CompositeBackend = {
    routePrefixes: routes.map((r) => r.prefix),
    ls,
    async read(filePath, offset, limit) {
      const t = target(filePath);
      return t.backend.read(t.path, offset, limit);
    },
    async readRaw(filePath) {
      const t = target(filePath);
      return t.backend.readRaw(t.path);
    },
    async write(filePath, content) {
      const t = target(filePath);
      const result = await t.backend.write(t.path, content);
      return result.path !== undefined ? { ...result, path: outer(t.route, result.path) } : result;
    },
    async edit(filePath, oldString, newString, replaceAll) {
      const t = target(filePath);
      const result = await t.backend.edit(t.path, oldString, newString, replaceAll);
      return result.path !== undefined ? { ...result, path: outer(t.route, result.path) } : result;
    },
    grep,
    glob,
    delete: remove,
    uploadFiles,
    downloadFiles,
    forCall: (approved) =>
      createCompositeBackend(
        backendForCall(defaultBackend, approved),
        Object.fromEntries(Object.entries(routeMap).map(([prefix, b]) => [prefix, backendForCall(b, approved)])),
      ),
  };
  if (isSandboxBackend(defaultBackend)) {
    const sandbox = defaultBackend;
    return Object.assign(composite, {
      id: sandbox.id,
      execute: (command: string, options?: Parameters<SandboxBackendProtocol["execute"]>[1]) =>
        sandbox.execute(command, options),
    });
  }
  return composite;
}
