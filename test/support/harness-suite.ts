// The lifecycle every in-process ACP test file shares: a private HOME and a project folder for each
// test, harnesses started on that HOME (a second one is "the next process" of the same user), and all
// of them closed and the folders removed when the test ends. What makes a test special (config in
// HOME, capabilities, permission answers, CLI flags, another HOME) goes through start()'s options.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { startHarness, type Harness, type HarnessOptions } from "./acp-harness.js";

export type HarnessSuiteOptions = {
  /** Names the temporary folders: deep-acp-NAME-home-XXXXXX and deep-acp-NAME-project-XXXXXX. */
  name: string;
  /** Lays out the fresh HOME and project (a .git folder, project files, ...) before each test. */
  prepare?: (dirs: { home: string; project: string }) => Promise<void>;
};

export type HarnessSuite = {
  /** This test's HOME: every harness uses it unless start() is given another. */
  readonly home: string;
  readonly project: string;
  /** The harness started last in this test; throws before the first start(). */
  readonly harness: Harness;
  /** startHarness() on this test's HOME; the harness is closed when the test ends. */
  start(options?: HarnessOptions): Promise<Harness>;
  /** One more folder, deep-acp-NAME-LABEL-XXXXXX, removed when the test ends. */
  tempDir(label: string): Promise<string>;
};

/** A prepare for a project that is a git checkout (the agent finds project config by its root). */
export const gitProject = async ({ project }: { project: string }): Promise<void> => {
  await mkdir(join(project, ".git"));
};

/** Registers the file's hooks and returns the suite; its fields are valid inside tests and hooks. */
export function useHarnessSuite(options: HarnessSuiteOptions): HarnessSuite {
  let dirs: { home: string; project: string } | undefined;
  const temps: string[] = [];
  const harnesses: Harness[] = [];

  const tempDir = async (label: string) => {
    const dir = await mkdtemp(join(tmpdir(), `deep-acp-${options.name}-${label}-`));
    temps.push(dir);
    return dir;
  };

  beforeEach(async () => {
    dirs = { home: await tempDir("home"), project: await tempDir("project") };
    await options.prepare?.(dirs);
  });
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
    dirs = undefined;
    // A session's deferred index save may still be writing after close; rm retries until it is done.
    await Promise.all(
      temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })),
    );
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`harness suite: ${what} is only there inside tests and hooks`);
    return value;
  };

  return {
    get home() {
      return need(dirs, "HOME").home;
    },
    get project() {
      return need(dirs, "the project").project;
    },
    get harness() {
      const harness = harnesses.at(-1);
      if (!harness) throw new Error("harness suite: no harness started yet");
      return harness;
    },
    async start(startOptions = {}) {
      const harness = await startHarness({ home: need(dirs, "HOME").home, ...startOptions });
      // A test may close a harness itself (to start "the next process" on the same HOME); the
      // suite's own close after the test then waits for that one instead of closing it again.
      const close = harness.close;
      let closing: Promise<void> | undefined;
      harness.close = () => (closing ??= close());
      harnesses.push(harness);
      return harness;
    },
    tempDir,
  };
}
