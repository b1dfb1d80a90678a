// Another ACP agent as a subagent: a second deep-acp (the built CLI) on a fake model of its own is
// `[agents.child]`; the parent runs in-process behind the SDK's client. Its edits land through the
// parent's gate (a denied path stays denied), its own permission questions reach the editor titled
// with its name, its work streams as a child session (or nested under the task call), its answer is
// the task's result; a cancel stops it, and a child that crashes, speaks bad JSON or hangs ends only
// its task.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../support/acp-harness.js";
import { BINARY } from "../support/agent-process.js";
import {
  createFakeModelServer,
  textTurn,
  toolTurn,
  type FakeModelServer,
  type RecordedRequest,
} from "../support/fake-model/index.js";

const BROKEN = resolve(import.meta.dirname, "../fixtures/peers/broken-agent.mjs");
const toml = (value: unknown) => JSON.stringify(value);

let childModel: FakeModelServer;
let dir: string;
let project: string;
let childHome: string;
let harness: Harness | undefined;

beforeAll(async () => {
  childModel = await createFakeModelServer();
});
afterAll(() => childModel.close());
beforeEach(async () => {
  childModel.reset();
  childModel.setHandler(undefined);
  dir = await mkdtemp(join(tmpdir(), "deep-acp-peers-"));
  project = join(dir, "project");
  childHome = join(dir, "child-home");
  await mkdir(join(project, ".git"), { recursive: true });
  await mkdir(join(project, "locked"), { recursive: true });
  await mkdir(childHome, { recursive: true });
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The parent's config.toml: the child deep-acp, the broken agents, and a deny rule on locked/. */
function parentConfig(extra = "") {
  const childEnv = { HOME: childHome, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: childModel.anthropicBaseUrl };
  return [
    `[[permissions]]\noperations = ["write"]\npaths = [${toml(`${project}/locked/**`)}]\nmode = "deny"\n`,
    `[agents.child]\ncommand = ${toml(process.execPath)}\nargs = [${toml(BINARY)}]\ndescription = "A second deep-acp"\nmode = "accept-edits"\ntimeout_seconds = 60`,
    `env = { HOME = ${toml(childEnv.HOME)}, ANTHROPIC_API_KEY = "k", ANTHROPIC_BASE_URL = ${toml(childEnv.ANTHROPIC_BASE_URL)} }\n`,
    ...["crash", "bad-json", "hang"].map(
      (how) =>
        `[agents.${how}]\ncommand = ${toml(process.execPath)}\nargs = [${toml(BROKEN)}, ${toml(how)}]\ntimeout_seconds = 2\n`,
    ),
    extra,
  ].join("\n");
}

async function start(
  capabilities: acp.ClientCapabilities,
  onPermission?: Parameters<typeof startHarness>[0] extends infer O
    ? O extends { onPermission?: infer P }
      ? P
      : never
    : never,
) {
  harness = await startHarness({
    clientCapabilities: capabilities,
    ...(onPermission ? { onPermission } : {}),
    setupHome: async (home) => {
      await mkdir(join(home, ".deepagents"), { recursive: true });
      await writeFile(join(home, ".deepagents", "config.toml"), parentConfig());
    },
  });
  const { sessionId } = await harness.newSession(project);
  return { h: harness, sessionId };
}

/** The parent delegates once to `agent`, then ends with the task's result echoed. */
function parentDelegates(h: Harness, agent: string, description = "do the thing") {
  h.model.setHandler((request) =>
    request.messages.at(-1)!.role === "user"
      ? toolTurn("task", { description, subagent_type: agent })
      : textTurn(`parent got: ${request.messages.at(-1)!.text}`),
  );
}

const taskResult = (h: Harness) => h.model.requests.at(-1)!.messages.at(-1)!;
const childToolResults = (request: RecordedRequest) => request.messages.filter((m) => m.role === "tool");

const CLIENTS: Array<[string, acp.ClientCapabilities]> = [
  ["a client with subagents", { subagents: {} } as acp.ClientCapabilities],
  ["a client without subagents", {}],
];

for (const [label, capabilities] of CLIENTS) {
  const childSessions = "subagents" in capabilities;
  describe(`another ACP agent as a subagent, from ${label}`, () => {
    it("lands the child's edit through our gate, keeps a denied path denied, and returns its answer", async () => {
      const { h, sessionId } = await start(capabilities);
      parentDelegates(h, "child", "write the files");
      childModel.setHandler((request) => {
        const results = childToolResults(request);
        if (results.length === 0)
          return toolTurn("write_file", { file_path: join(project, "a.txt"), content: "from the child" });
        if (results.length === 1)
          return toolTurn("write_file", { file_path: join(project, "locked", "x.txt"), content: "nope" });
        return textTurn("child finished the files");
      });
      const { response } = await h.prompt(sessionId, "delegate");
      expect(response.stopReason).toBe("end_turn");
      expect(await readFile(join(project, "a.txt"), "utf8")).toBe("from the child");
      expect(existsSync(join(project, "locked", "x.txt"))).toBe(false);
      // The child's model was told the denied write failed, with our gate's reason.
      const denied = childToolResults(childModel.requests.at(-1)!)[1]!;
      expect(denied.isError).toBe(true);
      expect(denied.text).toMatch(/denied|not allowed|refus/i);
      // The parent's model got the child's final answer as the task's result.
      expect(taskResult(h)).toMatchObject({ role: "tool", text: "child finished the files" });
      const all = h.updates.map((n) => n.update);
      const task = all.find(
        (u) => u.sessionUpdate === "tool_call" && (u as acp.ToolCall).title === "write the files",
      ) as acp.ToolCall;
      expect(task).toBeDefined();
      if (childSessions) {
        const announce = all.find((u) => u.sessionUpdate === "subagent_update" && "title" in u && u.title) as {
          sessionId: string;
          title: string;
        };
        expect(announce.title).toBe("child: write the files");
        const inChild = h.updates.filter((n) => n.sessionId === announce.sessionId).map((n) => n.update);
        expect(inChild.some((u) => u.sessionUpdate === "agent_message_chunk")).toBe(true);
        // Our write_file for the child shows in its session, with the diff.
        expect(inChild.some((u) => u.sessionUpdate === "tool_call" && /a\.txt/.test((u as acp.ToolCall).title))).toBe(
          true,
        );
      } else {
        const nested = all.filter(
          (u) =>
            u.sessionUpdate === "tool_call" &&
            (u as acp.ToolCall)._meta?.["deep-acp"] &&
            ((u as acp.ToolCall)._meta!["deep-acp"] as { parentToolCallId?: string }).parentToolCallId ===
              task.toolCallId,
        );
        expect(nested.length).toBeGreaterThan(0);
        expect(all.some((u) => u.sessionUpdate === "subagent_update")).toBe(false);
      }
    });

    it("relays the child's own permission question to the editor, titled with its name", async () => {
      const { h, sessionId } = await start(capabilities);
      parentDelegates(h, "child", "run the command");
      childModel.setHandler((request) =>
        childToolResults(request).length === 0
          ? toolTurn("execute", { command: "echo ran > ran.txt" })
          : textTurn("command done"),
      );
      const { response } = await h.prompt(sessionId, "delegate a command");
      expect(response.stopReason).toBe("end_turn");
      const relayed = h.permissions.find((p) => p.toolCall.title?.startsWith("child: "));
      expect(relayed?.toolCall.title).toBe("child: echo ran > ran.txt");
      // Our own dialog for running it in the session's workspace came too (the parent asks for commands).
      expect(h.permissions.some((p) => p.toolCall.title === "echo ran > ran.txt")).toBe(true);
      if (childSessions) expect(relayed?.sessionId).not.toBe(sessionId);
      else expect(relayed?.sessionId).toBe(sessionId);
      expect(await readFile(join(project, "ran.txt"), "utf8")).toBe("ran\n");
      expect(taskResult(h).text).toBe("command done");
    });
  });
}

describe("a child that goes wrong ends only its task", () => {
  for (const [agent, why] of [
    ["crash", /exited with code 3.*giving up/s],
    ["bad-json", /not JSON-RPC/],
    ["hang", /did not finish within 2 s/],
  ] as const) {
    it(`${agent}: the task fails with a clear error and the parent's turn goes on`, async () => {
      const { h, sessionId } = await start({ subagents: {} } as acp.ClientCapabilities);
      parentDelegates(h, agent);
      const { response } = await h.prompt(sessionId, "delegate");
      expect(response.stopReason).toBe("end_turn");
      const result = taskResult(h);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(why);
      const ended = h.updates
        .map((n) => n.update)
        .find((u) => u.sessionUpdate === "subagent_update" && "state" in u && u.state?.state === "idle");
      expect(ended).toMatchObject({ state: { stopReason: "error" } });
      // The session still works: the next delegation reaches a healthy child.
      childModel.setHandler(() => textTurn("healthy"));
      parentDelegates(h, "child");
      await h.prompt(sessionId, "again");
      expect(taskResult(h).text).toBe("healthy");
    }, 30_000);
  }

  it("cancelling the parent's turn cancels the child", async () => {
    const { h, sessionId } = await start({});
    parentDelegates(h, "child");
    childModel.setHandler(() => ({ parts: [{ type: "text", text: "thinking..." }], hangAfterParts: true }));
    const prompt = h.prompt(sessionId, "delegate and cancel");
    await childModel.waitForRequests(1);
    await h.cancel(sessionId);
    const { response } = await prompt;
    expect(response.stopReason).toBe("cancelled");
  });

  it("cancelling the child session ends only the task", async () => {
    const { h, sessionId } = await start({ subagents: {} } as acp.ClientCapabilities);
    parentDelegates(h, "child");
    childModel.setHandler(() => ({ parts: [{ type: "text", text: "thinking..." }], hangAfterParts: true }));
    const prompt = h.prompt(sessionId, "delegate, cancel the child");
    await childModel.waitForRequests(1);
    const announced = () =>
      h.updates.find((n) => n.update.sessionUpdate === "subagent_update" && "title" in n.update && n.update.title);
    await h.waitFor(() => announced() !== undefined);
    await h.cancel((announced()!.update as { sessionId: string }).sessionId);
    const { response } = await prompt;
    expect(response.stopReason).toBe("end_turn");
    expect(taskResult(h)).toMatchObject({ isError: true, text: "Cancelled by the user." });
  });
});
