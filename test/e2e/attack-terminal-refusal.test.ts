// Attack suite, round 4: a refused terminal is a refused command. An editor that offers terminals
// and then refuses `terminal/create` (acpx asks its own question; the user says no) or fails it
// must end the call as refused or failed: the command never runs in the agent's own shell behind
// the user's back. Only a client that advertised no terminals at all gets the local shell. Built
// binary, fake model, the editor allows the agent's own dialog.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "terminal-refusal", prepare: ({ project }) => mkdir(join(project, ".git")) });

/** One execute call in a session whose editor answers terminal/create with `terminal` (throw = a JSON-RPC error). */
async function runThroughEditor(capabilities: unknown, terminal?: (m: JsonRpcMessage) => unknown) {
  const marker = join(suite.project, "ran-here");
  const editor = createFakeEditor();
  const created: JsonRpcMessage[] = [];
  const sessionId = await suite.startSession({
    capabilities,
    onRequest: (m) => {
      if (m.method === "terminal/create" && terminal) return (created.push(m), terminal(m));
      return editor.handle(m);
    },
  });
  suite.model.enqueue(toolTurn("execute", { command: `touch ${marker}; echo ran` }), textTurn("done"));
  const response = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(response.result.stopReason).toBe("end_turn");
  const result = suite.model.requests
    .at(-1)!
    .messages.filter((m) => m.role === "tool")
    .map((m) => m.text)
    .join("\n");
  const statuses = suite.agent
    .updates(sessionId)
    .filter((u) => u.sessionUpdate === "tool_call_update" && u.status)
    .map((u) => u.status as string);
  return { ran: existsSync(marker), result, finalStatus: statuses.at(-1), created };
}

describe("attack: the editor refuses or fails terminal/create", () => {
  it("a refused terminal ends the call as refused; nothing runs in the agent's shell", async () => {
    const run = await runThroughEditor(ZED_CAPABILITIES, () => {
      throw new Error("Permission denied for terminal/create");
    });
    expect(run.created).toHaveLength(1);
    expect(run.ran).toBe(false);
    expect(run.result).toMatch(/refused to open a terminal/);
    expect(run.result).toMatch(/did not run/);
    expect(run.finalStatus).toBe("failed");
  });

  it("a terminal the editor fails to open ends the call as failed; nothing runs locally", async () => {
    const run = await runThroughEditor(ZED_CAPABILITIES, () => {
      throw new Error("spawn /bin/sh ENOENT");
    });
    expect(run.ran).toBe(false);
    expect(run.result).toMatch(/could not open a terminal: .*ENOENT/);
    expect(run.result).toMatch(/did not run/);
    expect(run.finalStatus).toBe("failed");
  });

  it("a client with no terminal capability still gets the agent's own shell", async () => {
    const run = await runThroughEditor({ fs: { readTextFile: true, writeTextFile: true } });
    expect(run.created).toEqual([]);
    expect(run.ran).toBe(true);
    expect(run.result).toContain("ran");
    expect(run.finalStatus).toBe("completed");
  });
});
