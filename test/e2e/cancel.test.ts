import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive, waitForExit } from "../support/processes.js";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "cancel" });

function startWith(onRequest?: (m: JsonRpcMessage) => unknown) {
  return suite.startSession({ onRequest, capabilities: { _meta: { terminal_output: true } } });
}

describe("cancellation", () => {
  it("kills a running command's whole process group and answers `cancelled`", async () => {
    const sessionId = await startWith();
    // The command starts a grandchild that would outlive a plain kill of the shell.
    suite.model.enqueue(
      toolTurn("execute", { command: "sleep 60 & echo $! > child.pid; echo $$ > shell.pid; echo started; wait" }),
    );
    const pending = suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await suite.agent.waitFor(() =>
      suite.agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    const shellPid = Number((await readFile(join(suite.project, "shell.pid"), "utf8")).trim());
    const childPid = Number((await readFile(join(suite.project, "child.pid"), "utf8")).trim());
    expect(isAlive(childPid)).toBe(true);
    suite.agent.notify("session/cancel", { sessionId });
    const response = await pending;
    expect(response.result.stopReason).toBe("cancelled");
    expect(await waitForExit(shellPid, 1000)).toBe(true);
    expect(await waitForExit(childPid, 1000)).toBe(true);
    const after = suite.agent.messages.length;
    // Not a wait for something: a quiet period in which a late update (output of the killed command)
    // would show up if cancelling had left anything running.
    await new Promise((r) => setTimeout(r, 300));
    expect(suite.agent.messages.slice(after).filter((m) => m.method === "session/update")).toEqual([]);
  });

  it("cancels during a permission dialog without running the command; the call ends failed", async () => {
    let release: (value: unknown) => void = () => undefined;
    const sessionId = await startWith(
      (message) =>
        new Promise((resolve) => {
          expect(message.method).toBe("session/request_permission");
          release = resolve;
        }),
    );
    suite.model.enqueue(toolTurn("execute", { command: `touch ${join(suite.project, "ran.txt")}` }));
    const pending = suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
    await suite.agent.waitFor(() => suite.agent.messages.some((m) => m.method === "session/request_permission"));
    const permission = suite.agent.messages.find((m) => m.method === "session/request_permission")!;
    expect(permission.params.toolCall.title).toContain("touch");
    suite.agent.notify("session/cancel", { sessionId });
    release({ outcome: { outcome: "cancelled" } });
    const response = await pending;
    expect(response.result.stopReason).toBe("cancelled");
    await expect(readFile(join(suite.project, "ran.txt"))).rejects.toThrow();
    const toolCallId = permission.params.toolCall.toolCallId;
    const statuses = suite.agent
      .updates(sessionId)
      .filter((u) => u.toolCallId === toolCallId)
      .map((u) => u.status);
    expect(statuses).not.toContain("completed");
    // It ends: left pending, agent-shell showed it waiting forever (issue 38).
    expect(statuses.at(-1)).toBe("failed");
    // Zed's scenario: the next prompt works.
    suite.model.enqueue(textTurn("Goodbye!"));
    const next = await suite.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Stop running and say goodbye to me." }],
    });
    expect(next.result.stopReason).toBe("end_turn");
  });

  it("agent-shell's Reject answers the dialog twice (reject_once, then `cancelled`): nothing reaches stderr, which it shows in the chat", async () => {
    // agent-shell 0.48's Reject button answers reject_once and then interrupts the turn, which
    // answers every dialog it still knows of `cancelled` (the one just rejected included) and sends
    // session/cancel. The SDK printed "Got response to unknown request N" for the second answer, and
    // agent-shell shows every stderr line of the agent in the conversation, as a "Notices" block.
    const sessionId = await startWith((message) => {
      expect(message.method).toBe("session/request_permission");
      // After the first answer is written, as agent-shell sends them.
      setTimeout(() => {
        suite.agent.writeRaw(
          JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { outcome: { outcome: "cancelled" } } }) + "\n",
        );
        suite.agent.notify("session/cancel", { sessionId });
      }, 0);
      return { outcome: { outcome: "selected", optionId: "reject_once" } };
    });
    suite.model.enqueue(toolTurn("execute", { command: `touch ${join(suite.project, "rejected.txt")}` }));
    const response = await suite.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    expect(response.result.stopReason).toBe("cancelled");
    await expect(readFile(join(suite.project, "rejected.txt"))).rejects.toThrow();
    const permission = suite.agent.messages.find((m) => m.method === "session/request_permission")!;
    const statuses = suite.agent
      .updates(sessionId)
      .filter((u) => u.toolCallId === permission.params.toolCall.toolCallId)
      .map((u) => u.status);
    expect(statuses.at(-1)).toBe("failed");
    // The session still answers, and the second answer was not taken for another request's.
    suite.model.enqueue(textTurn("Goodbye!"));
    const next = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "bye" }] });
    expect(next.result.stopReason).toBe("end_turn");
    expect(suite.agent.stderr).not.toContain("unknown request");
    expect(suite.agent.stderr.trim()).toBe("");
  });

  it("closes a session mid-turn: the prompt answers `cancelled` and the command dies", async () => {
    const sessionId = await startWith();
    suite.model.enqueue(toolTurn("execute", { command: "echo $$ > shell.pid; echo started; sleep 60" }));
    const pending = suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await suite.agent.waitFor(() =>
      suite.agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    const shellPid = Number((await readFile(join(suite.project, "shell.pid"), "utf8")).trim());
    const closed = await suite.agent.request("session/close", { sessionId });
    expect(closed.result).toEqual({});
    expect((await pending).result.stopReason).toBe("cancelled");
    expect(await waitForExit(shellPid, 1000)).toBe(true);
    expect(
      (await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] })).error?.code,
    ).toBe(-32002);
  });

  it("kills running commands when the editor goes away (stdin closes)", async () => {
    const sessionId = await startWith();
    suite.model.enqueue(toolTurn("execute", { command: "echo $$ > shell.pid; echo started; sleep 60" }));
    void suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await suite.agent.waitFor(() =>
      suite.agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    const shellPid = Number((await readFile(join(suite.project, "shell.pid"), "utf8")).trim());
    const exit = await suite.agent.stop();
    expect(exit.code).toBe(0);
    expect(await waitForExit(shellPid, 1000)).toBe(true);
  });
});
