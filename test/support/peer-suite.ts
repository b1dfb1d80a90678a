// What the peers end-to-end files share: a fake model of the child's own, a project with a denied
// folder (locked/), and a parent deep-acp in-process behind the SDK's client whose config.toml names
// the child (a second deep-acp, the built CLI) and agents that break (test/fixtures/peers).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startHarness, type Harness, type HarnessOptions } from "./acp-harness.js";
import { BINARY } from "./agent-process.js";
import {
  createFakeModelServer,
  textTurn,
  toolTurn,
  type FakeModelServer,
  type RecordedRequest,
} from "./fake-model/index.js";

const BROKEN = resolve(import.meta.dirname, "../fixtures/peers/broken-agent.mjs");
const toml = (value: unknown) => JSON.stringify(value);

export type PeerSuite = {
  readonly childModel: FakeModelServer;
  readonly project: string;
  /** A folder of the test's own (removed after it), e.g. a real agent's HOME. */
  readonly dir: string;
  /** A HOME that outlives a harness (for session/load in a second one). */
  readonly home: string;
  /** The parent, initialized with `capabilities`, and a session in the project. */
  start(
    capabilities: acp.ClientCapabilities,
    options?: Pick<HarnessOptions, "onPermission" | "onElicitation" | "fs" | "args" | "env"> & { config?: string },
  ): Promise<{ h: Harness; sessionId: string }>;
};

export function usePeerSuite(): PeerSuite {
  let childModel: FakeModelServer | undefined;
  let dir = "";
  const harnesses: Harness[] = [];
  beforeAll(async () => {
    childModel = await createFakeModelServer();
  });
  afterAll(() => childModel?.close());
  beforeEach(async () => {
    childModel!.reset();
    childModel!.setHandler(undefined);
    dir = await mkdtemp(join(tmpdir(), "deep-acp-peers-"));
    await mkdir(join(dir, "project", ".git"), { recursive: true });
    await mkdir(join(dir, "project", "locked"), { recursive: true });
    await mkdir(join(dir, "child-home"), { recursive: true });
    await mkdir(join(dir, "home", ".deepagents"), { recursive: true });
  });
  afterEach(async () => {
    for (const h of harnesses.splice(0)) await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  const suite: PeerSuite = {
    get childModel() {
      return childModel!;
    },
    get project() {
      return join(dir, "project");
    },
    get dir() {
      return dir;
    },
    get home() {
      return join(dir, "home");
    },
    async start(capabilities, options = {}) {
      await writeFile(join(suite.home, ".deepagents", "config.toml"), parentConfig(suite, dir, options.config ?? ""));
      const h = await startHarness({
        clientCapabilities: capabilities,
        home: suite.home,
        ...(options.onPermission ? { onPermission: options.onPermission } : {}),
        ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
        ...(options.fs ? { fs: options.fs } : {}),
        ...(options.args ? { args: options.args } : {}),
        ...(options.env ? { env: options.env } : {}),
      });
      harnesses.push(h);
      const { sessionId } = await h.newSession(suite.project);
      return { h, sessionId };
    },
  };
  return suite;
}

/** The child deep-acp (accept-edits: its own gate lets edits through, ours decides), broken agents, a deny rule. */
function parentConfig(suite: PeerSuite, dir: string, extra: string): string {
  const childHome = join(dir, "child-home");
  return [
    `[[permissions]]\noperations = ["write"]\npaths = [${toml(`${suite.project}/locked/**`)}]\nmode = "deny"\n`,
    `[agents.child]\ncommand = ${toml(process.execPath)}\nargs = [${toml(BINARY)}]\ndescription = "A second deep-acp"\nmode = "accept-edits"\ntimeout_seconds = 60`,
    `env = { HOME = ${toml(childHome)}, ANTHROPIC_API_KEY = "k", ANTHROPIC_BASE_URL = ${toml(suite.childModel.anthropicBaseUrl)} }\n`,
    ...["crash", "bad-json", "hang", "elicit", "mcp", "grandchild"].map(
      (how) =>
        `[agents.${how}]\ncommand = ${toml(process.execPath)}\nargs = [${toml(BROKEN)}, ${toml(how)}]\ntimeout_seconds = 2\n`,
    ),
    // Answers only a cancel, and leaves cancelled.mark in the test's folder when it gets one.
    `[agents.until-cancel]\ncommand = ${toml(process.execPath)}\nargs = [${toml(BROKEN)}, "until-cancel", ${toml(join(dir, "cancelled.mark"))}]\n`,
    // The same child, allowed the session's MCP servers.
    `[agents.mcp-allowed]\ncommand = ${toml(process.execPath)}\nargs = [${toml(BROKEN)}, "mcp"]\npass_mcp_servers = true\n`,
    extra,
  ].join("\n");
}

/** The parent delegates once to `agent`, then ends with the task's result echoed. */
export function parentDelegates(h: Harness, agent: string, description = "do the thing"): void {
  h.model.setHandler((request) =>
    request.messages.at(-1)!.role === "user"
      ? toolTurn("task", { description, subagent_type: agent })
      : textTurn(`parent got: ${request.messages.at(-1)!.text}`),
  );
}

/** What the parent's model was sent back for its task call (the last message of its last request). */
export const taskResult = (h: Harness) => h.model.requests.at(-1)!.messages.at(-1)!;
export const toolResults = (request: RecordedRequest) => request.messages.filter((m) => m.role === "tool");
