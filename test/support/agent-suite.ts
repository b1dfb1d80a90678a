// The lifecycle every end-to-end suite around the built binary shares: one fake model server for the
// file, a private HOME and a project folder, agents (or one-shot CLI runs) pointed at both, and all
// of it stopped and removed afterwards. What makes a test special (signals, raw stdin bytes, its own
// env or arguments) stays in the test: start() hands back the AgentProcess itself.
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { BINARY, startAgentProcess, type AgentProcess, type AgentProcessOptions } from "./agent-process.js";
import { createFakeModelServer, type FakeModelServer, type FakeModelServerOptions } from "./fake-model/index.js";
import { runCommand, type CommandResult, type RunCommandOptions } from "./processes.js";
import { createSuiteDirs, type SuiteDirsOptions } from "./suite-dirs.js";

/** Which wire format the default environment points the agent at; "none": HOME only, no key, no URL. */
export type SuiteApi = "anthropic" | "openai" | "none";

export type AgentSuiteOptions = SuiteDirsOptions & {
  /**
   * "test" (default): a fresh HOME and project, and a fake model with no queued turns, no recorded
   * requests and its default settings, for every test; agents are stopped after each test.
   * "file": one HOME and project for the whole file (single long tests, or tests that build on
   * each other); agents are stopped after the file.
   */
  lifetime?: "test" | "file";
  /** How the fake model answers once its queue is empty (restored after every test). */
  handler?: FakeModelServerOptions["handler"];
};

export type SuiteAgentOptions = Omit<AgentProcessOptions, "env"> & {
  /** Default "anthropic". */
  api?: SuiteApi;
  /** Laid over the default environment; a key set to undefined is left out. */
  env?: Record<string, string | undefined>;
};

export type SuiteSessionOptions = SuiteAgentOptions & {
  /** Sent in initialize. Default {}. */
  capabilities?: unknown;
};

export type SuiteRunOptions = Partial<Omit<RunCommandOptions, "env">> & {
  api?: SuiteApi;
  env?: Record<string, string | undefined>;
};

export type AgentSuite = {
  readonly model: FakeModelServer;
  readonly home: string;
  readonly project: string;
  /** The agent started last in this test (or file); throws before the first start(). */
  readonly agent: AgentProcess;
  /** HOME plus the key and base URL that point the agent at the fake model. */
  env(api?: SuiteApi): Record<string, string>;
  /** Spawns the built binary; it is stopped (stdin closed, SIGKILL after 5 s) when the test ends. */
  start(options?: SuiteAgentOptions): Promise<AgentProcess>;
  /** start(), initialize, then session/new in the project: the new session's id. */
  startSession(options?: SuiteSessionOptions): Promise<string>;
  /** Runs `deep-acp ARGS` to completion (cwd: the project): headless and CLI commands. */
  run(args: readonly string[], options?: SuiteRunOptions): Promise<CommandResult>;
};

/** Registers the file's hooks and returns the suite; its fields are valid inside tests and hooks. */
export function useAgentSuite(options: AgentSuiteOptions): AgentSuite {
  const perTest = (options.lifetime ?? "test") === "test";
  let model: FakeModelServer | undefined;
  const dirs = createSuiteDirs(options);
  const agents: AgentProcess[] = [];

  async function cleanUp() {
    // Stop every agent, even one a test already killed or whose stdin it closed: stop() then only
    // waits for the exit, and a write to its gone stdin must not fail the run.
    await Promise.all(
      agents.splice(0).map((agent) => {
        agent.child.stdin.on("error", () => undefined);
        return agent.stop();
      }),
    );
    await dirs.remove();
  }

  beforeAll(async () => {
    model = await createFakeModelServer({ handler: options.handler });
    if (!perTest) await dirs.create();
  });
  afterAll(async () => {
    if (!perTest) await cleanUp();
    await model?.close();
  });
  if (perTest) {
    beforeEach(async () => {
      model!.reset();
      model!.setHandler(options.handler);
      model!.setChatUsageOnFinish(false);
      await dirs.create();
    });
    afterEach(cleanUp);
  }

  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`agent suite: ${what} is only there inside tests and hooks`);
    return value;
  };

  const suite: AgentSuite = {
    get model() {
      return need(model, "the model");
    },
    get home() {
      return dirs.home;
    },
    get project() {
      return dirs.project;
    },
    get agent() {
      const agent = agents.at(-1);
      if (!agent) throw new Error("agent suite: no agent started yet");
      return agent;
    },
    env(api = "anthropic"): Record<string, string> {
      const model = suite.model;
      if (api === "none") return { HOME: suite.home };
      if (api === "openai") return { HOME: suite.home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: model.openaiBaseUrl };
      return { HOME: suite.home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl };
    },
    async start(startOptions = {}) {
      const { api, env, ...rest } = startOptions;
      const agent = await startAgentProcess({ ...rest, env: { ...suite.env(api), ...env } });
      agents.push(agent);
      return agent;
    },
    async startSession(sessionOptions = {}) {
      const { capabilities = {}, ...startOptions } = sessionOptions;
      const agent = await suite.start(startOptions);
      await agent.initialize(capabilities);
      const { result } = await agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      return result.sessionId as string;
    },
    run(args, runOptions = {}) {
      const { api, env, ...rest } = runOptions;
      return runCommand(process.execPath, [BINARY, ...args], {
        cwd: suite.project,
        ...rest,
        env: { PATH: process.env.PATH, ...suite.env(api), ...env } as NodeJS.ProcessEnv,
      });
    },
  };
  return suite;
}
