import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadHooksConfig, type LoadedHooks } from "../../../src/hooks/config-loader.js";
import { createHookEngine, type HookEngine, type HookEngineOptions } from "../../../src/hooks/engine.js";
import type { HookScope, HookSource } from "../../../src/hooks/types.js";
import { pollUntil } from "../../support/poll.js";

export const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../../fixtures/hooks");
export const EMIT = join(FIXTURES, "emit.mjs");
export const NODE = process.execPath;

/** argv for the node fixture. */
export function emit(...args: string[]): string[] {
  return [NODE, EMIT, ...args];
}

export async function makeTempDir(prefix = "hooks-test-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

type HandlerSpec = { matcher?: string; argv?: string[]; command?: string; timeout?: number; statusMessage?: string };

/** A hooks.json value from `{Event: [handler, ...]}`, one matcher group per handler. */
export function hooksJson(spec: Record<string, HandlerSpec[]>): unknown {
  return {
    hooks: Object.fromEntries(
      Object.entries(spec).map(([event, handlers]) => [
        event,
        handlers.map(({ matcher, ...handler }) => ({
          ...(matcher !== undefined ? { matcher } : {}),
          hooks: [{ type: "command", ...handler }],
        })),
      ]),
    ),
  };
}

export type Project = {
  root: string;
  home: string;
  write(scope: HookScope, config: unknown): Promise<HookSource>;
  load(): Promise<LoadedHooks>;
  engine(options?: Partial<HookEngineOptions>): Promise<HookEngine>;
  out(name: string): string;
  cleanup(): Promise<void>;
};

/** A temp project with a home dir; `write` puts hooks.json for a scope where the loader finds it. */
export async function makeProject(): Promise<Project> {
  const { dir, cleanup } = await makeTempDir();
  const root = join(dir, "project");
  const home = join(dir, "home");
  await mkdir(join(root, ".deepagents"), { recursive: true });
  await mkdir(join(home, ".deepagents"), { recursive: true });
  const sources: HookSource[] = [];
  const fileFor = (scope: HookScope) =>
    scope === "project"
      ? join(root, ".deepagents", "hooks.json")
      : scope === "user"
        ? join(home, ".deepagents", "hooks.json")
        : join(dir, "plugin", "hooks", "hooks.json");
  const project: Project = {
    root,
    home,
    async write(scope, config) {
      const file = fileFor(scope);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify(config, null, 2));
      const source: HookSource =
        scope === "plugin"
          ? {
              scope,
              file,
              pluginId: "demo@local",
              pluginRoot: join(dir, "plugin"),
              pluginDataDir: join(dir, "plugin-data"),
            }
          : { scope, file };
      if (!sources.some((s) => s.file === file)) sources.push(source);
      return source;
    },
    load: () => loadHooksConfig(sources),
    async engine(options = {}) {
      const loaded = await project.load();
      return createHookEngine({
        config: loaded.items,
        loadDiagnostics: loaded.diagnostics,
        files: loaded.files,
        projectRoot: root,
        sessionId: "sess-1",
        transcriptPath: join(dir, "transcript.jsonl"),
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
        ...options,
      });
    },
    out: (name) => join(dir, name),
    cleanup,
  };
  return project;
}

export async function readJson<T = Record<string, unknown>>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, "utf8")) as T;
}

/** Alive and not a zombie (a killed child may linger unreaped under some init processes). */
export { isAlive } from "../../support/processes.js";

/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. */
export const waitFor = (check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> =>
  pollUntil(check, what, { timeoutMs });
