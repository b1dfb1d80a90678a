// The lifecycle every in-process ACP test file shares: a private HOME and a project folder for each
// test, harnesses started on that HOME (a second one is "the next process" of the same user), and all
// of them closed and the folders removed when the test ends. What makes a test special (config in
// HOME, capabilities, permission answers, CLI flags, another HOME) goes through start()'s options.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { startHarness, type Harness, type HarnessOptions } from "./acp-harness.js";
import { createSuiteDirs, type SuiteDirsOptions, type SuiteFolders } from "./suite-dirs.js";

export type HarnessSuiteOptions = SuiteDirsOptions;

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
export const gitProject = async ({ project }: SuiteFolders): Promise<void> => {
  await mkdir(join(project, ".git"));
};

/** Registers the file's hooks and returns the suite; its fields are valid inside tests and hooks. */
export function useHarnessSuite(options: HarnessSuiteOptions): HarnessSuite {
  const dirs = createSuiteDirs(options);
  const harnesses: Harness[] = [];

  beforeEach(() => dirs.create());
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
    await dirs.remove();
  });

  return {
    get home() {
      return dirs.home;
    },
    get project() {
      return dirs.project;
    },
    get harness() {
      const harness = harnesses.at(-1);
      if (!harness) throw new Error(`${options.name} suite: no harness started yet`);
      return harness;
    },
    async start(startOptions = {}) {
      const harness = await startHarness({ home: dirs.home, ...startOptions });
      // A test may close a harness itself (to start "the next process" on the same HOME); the
      // suite's own close after the test then waits for that one instead of closing it again.
      const close = harness.close;
      let closing: Promise<void> | undefined;
      harness.close = () => (closing ??= close());
      harnesses.push(harness);
      return harness;
    },
    tempDir: (label) => dirs.tempDir(label),
  };
}
