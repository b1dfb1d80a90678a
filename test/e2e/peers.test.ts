// Another ACP agent as a subagent: a second deep-acp (the built CLI) on a fake model of its own is
// `[agents.child]`; the parent runs in-process behind the SDK's client. Its edits land through the
// parent's gate (a denied path stays denied), its own permission questions reach the editor titled
// with its name, its work streams as a child session (or nested under the task call), its answer is
// the task's result; a cancel stops it, and a child that crashes, speaks bad JSON or hangs ends only
// its task.
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { pollUntil } from "../support/poll.js";
import { parentDelegates, taskResult, toolResults, usePeerSuite } from "../support/peer-suite.js";

const suite = usePeerSuite();

const CLIENTS: Array<[string, acp.ClientCapabilities]> = [
  ["a client with subagents", { subagents: {} } as acp.ClientCapabilities],
  ["a client without subagents", {}],
];

for (const [label, capabilities] of CLIENTS) {
  const childSessions = "subagents" in capabilities;
  describe(`another ACP agent as a subagent, from ${label}`, () => {
    it("lands the child's edit through our gate, keeps a denied path denied, and returns its answer", async () => {
      const { h, sessionId } = await suite.start(capabilities);
      parentDelegates(h, "child", "write the files");
      suite.childModel.setHandler((request) => {
        const results = toolResults(request);
        if (results.length === 0)
          return toolTurn("write_file", { file_path: join(suite.project, "a.txt"), content: "from the child" });
        if (results.length === 1)
          return toolTurn("write_file", { file_path: join(suite.project, "locked", "x.txt"), content: "nope" });
        return textTurn("child finished the files");
      });
      const { response } = await h.prompt(sessionId, "delegate");
      expect(response.stopReason).toBe("end_turn");
      expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("from the child");
      expect(existsSync(join(suite.project, "locked", "x.txt"))).toBe(false);
      // The child's model was told the denied write failed, with our gate's reason.
      const denied = toolResults(suite.childModel.requests.at(-1)!)[1]!;
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
      const { h, sessionId } = await suite.start(capabilities);
      parentDelegates(h, "child", "run the command");
      suite.childModel.setHandler((request) =>
        toolResults(request).length === 0
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
      expect(await readFile(join(suite.project, "ran.txt"), "utf8")).toBe("ran\n");
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
      const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities);
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
      suite.childModel.setHandler(() => textTurn("healthy"));
      parentDelegates(h, "child");
      await h.prompt(sessionId, "again");
      expect(taskResult(h).text).toBe("healthy");
    }, 30_000);
  }

  it("cancelling the parent's turn sends session/cancel to the child", async () => {
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities);
    parentDelegates(h, "until-cancel");
    const prompt = h.prompt(sessionId, "delegate and cancel");
    // The child has its prompt once it says "starting" in its own session.
    await h.waitFor(() =>
      h.updates.some((n) => n.sessionId !== sessionId && n.update.sessionUpdate === "agent_message_chunk"),
    );
    await h.cancel(sessionId);
    const { response } = await prompt;
    expect(response.stopReason).toBe("cancelled");
    await pollUntil(() => existsSync(join(suite.dir, "cancelled.mark")), "the child's session/cancel");
  });

  it("cancelling the parent's turn cancels a deep-acp child mid-request", async () => {
    const { h, sessionId } = await suite.start({});
    parentDelegates(h, "child");
    suite.childModel.setHandler(() => ({ parts: [{ type: "text", text: "thinking..." }], hangAfterParts: true }));
    const prompt = h.prompt(sessionId, "delegate and cancel");
    await suite.childModel.waitForRequests(1);
    await h.cancel(sessionId);
    const { response } = await prompt;
    expect(response.stopReason).toBe("cancelled");
  });

  it("cancelling the child session ends only the task", async () => {
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities);
    parentDelegates(h, "child");
    suite.childModel.setHandler(() => ({ parts: [{ type: "text", text: "thinking..." }], hangAfterParts: true }));
    const prompt = h.prompt(sessionId, "delegate, cancel the child");
    await suite.childModel.waitForRequests(1);
    const announced = () =>
      h.updates.find((n) => n.update.sessionUpdate === "subagent_update" && "title" in n.update && n.update.title);
    await h.waitFor(() => announced() !== undefined);
    await h.cancel((announced()!.update as { sessionId: string }).sessionId);
    const { response } = await prompt;
    expect(response.stopReason).toBe("end_turn");
    expect(taskResult(h)).toMatchObject({ isError: true, text: "Cancelled by the user." });
  });
});
