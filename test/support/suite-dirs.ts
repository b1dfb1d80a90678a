// The temporary folders of a test suite (useAgentSuite, useHarnessSuite): a HOME and a project named
// after the suite and laid out by its prepare, more folders on request, and all of them removed
// together, so every suite names and cleans up its folders the same way.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type SuiteFolders = { home: string; project: string };

export type SuiteDirsOptions = {
  /** Names the folders: deep-acp-NAME-home-XXXXXX, deep-acp-NAME-project-XXXXXX, deep-acp-NAME-LABEL-XXXXXX. */
  name: string;
  /** Lays out a fresh HOME and project (config files, a .git folder, ...) before anything starts. */
  prepare?: (dirs: SuiteFolders) => Promise<void>;
};

export type SuiteDirs = {
  /** Throw outside the span between create() and remove(): outside tests and hooks. */
  readonly home: string;
  readonly project: string;
  /** A fresh HOME and project, prepared. */
  create(): Promise<void>;
  /** One more folder, removed with the others. */
  tempDir(label: string): Promise<string>;
  /** Removes every folder made since the last remove(). */
  remove(): Promise<void>;
};

export function createSuiteDirs(options: SuiteDirsOptions): SuiteDirs {
  let current: SuiteFolders | undefined;
  const made: string[] = [];
  const need = (what: string): SuiteFolders => {
    if (!current) throw new Error(`${options.name} suite: ${what} is only there inside tests and hooks`);
    return current;
  };
  const tempDir = async (label: string) => {
    const dir = await mkdtemp(join(tmpdir(), `deep-acp-${options.name}-${label}-`));
    made.push(dir);
    return dir;
  };
  return {
    get home() {
      return need("HOME").home;
    },
    get project() {
      return need("the project").project;
    },
    async create() {
      current = { home: await tempDir("home"), project: await tempDir("project") };
      await options.prepare?.(current);
    },
    tempDir,
    async remove() {
      current = undefined;
      // A session's deferred index save may still be writing after its agent stopped; rm retries
      // until it is done.
      await Promise.all(
        made.splice(0).map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })),
      );
    },
  };
}
