// Background processes through the built binary: execute {background: true} returns an id at once,
// the tool call stays in progress with live output (Zed's terminal_output, or refreshed text for a
// client without it), process_output / process_stop / /ps work across turns, and no process outlives
// the session, the agent's exit, or a SIGKILLed agent.
import { afterAll, describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { isAlive, waitForExit } from "../support/processes.js";

const suite = useAgentSuite({ name: "bg" });
/** Every background process the tests started: killed after the file, should one have survived a failure. */
const pids: number[] = [];
afterAll(() => {
  for (const pid of pids) if (isAlive(pid)) process.kill(-pid, "SIGKILL");
});

function start(capabilities: unknown) {
  const editor = createFakeEditor();
  return suite.startSession({ capabilities, onRequest: editor.handle });
}

const prompt = (sessionId: string, text: string) =>
  suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
const toolTexts = () =>
  suite.model.requests
    .at(-1)!
    .messages.filter((m) => m.role === "tool")
    .map((m) => m.text);
const SERVER = "echo server ready; sleep 60";

/** Starts a background process in one turn; returns the execute call's id and the process's pid. */
async function startServer(sessionId: string, command = SERVER) {
  suite.model.enqueue(toolTurn("execute", { command, background: true }), textTurn("Started it."));
  const response = await prompt(sessionId, "start the dev server");
  expect(response.result.stopReason).toBe("end_turn");
  const call =
    suite.agent
      .updates(sessionId)
      .find((u) => u.sessionUpdate === "tool_call" && u.rawInput?.background !== undefined) ??
    suite.agent.updates(sessionId).find((u) => u.sessionUpdate === "tool_call");
  const started = toolTexts()[0]!;
  expect(started).toMatch(/^Started background process p1 \(pid \d+\)/);
  const pid = Number(/pid (\d+)/.exec(started)![1]);
  pids.push(pid);
  return { toolCallId: call.toolCallId as string, pid };
}

const updatesFor = (sessionId: string, toolCallId: string) =>
  suite.agent.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === toolCallId);

describe("background processes with Zed", () => {
  it("stays in progress with live terminal output, is read and stopped by id across turns, and listed by /ps", async () => {
    const sessionId = await start(ZED_CAPABILITIES);
    const { toolCallId, pid } = await startServer(sessionId);
    expect(updatesFor(sessionId, toolCallId).some((u) => u.status === "completed" || u.status === "failed")).toBe(
      false,
    );
    const opened = updatesFor(sessionId, toolCallId).find((u) => u._meta?.terminal_info);
    expect(opened._meta.terminal_info).toEqual({ terminal_id: toolCallId, cwd: suite.project });
    await suite.agent.waitFor(() =>
      updatesFor(sessionId, toolCallId).some((u) => u._meta?.terminal_output?.data?.includes("server ready")),
    );

    suite.model.enqueue(toolTurn("process_output", { id: "p1" }), textTurn("It is ready."));
    await prompt(sessionId, "is it up?");
    expect(toolTexts().at(-1)).toBe("server ready\n\n[still running]");

    const ps = await prompt(sessionId, "/ps");
    expect(ps.result.stopReason).toBe("end_turn");
    const listing = suite.agent
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
    expect(listing).toContain(`\`p1\` running for`);
    expect(listing).toContain(`(pid ${pid}): \`${SERVER}\``);

    suite.model.enqueue(toolTurn("process_stop", { id: "p1" }), textTurn("Stopped."));
    await prompt(sessionId, "stop it");
    expect(toolTexts().at(-1)).toBe("p1 [stopped]");
    expect(await waitForExit(pid)).toBe(true);
    const last = updatesFor(sessionId, toolCallId).at(-1);
    expect(last.status).toBe("completed");
    expect(last._meta.terminal_exit).toMatchObject({ terminal_id: toolCallId });
  });

  it("completes the call when the process exits after the turn", async () => {
    const sessionId = await start(ZED_CAPABILITIES);
    const { toolCallId } = await startServer(sessionId, "echo working; sleep 0.5; echo finished; exit 3");
    await suite.agent.waitFor(() => updatesFor(sessionId, toolCallId).some((u) => u.status === "failed"));
    const last = updatesFor(sessionId, toolCallId).at(-1);
    expect(last._meta.terminal_exit).toEqual({ terminal_id: toolCallId, exit_code: 3, signal: null });
  });

  it("kills its processes when the agent exits", async () => {
    const sessionId = await start(ZED_CAPABILITIES);
    const { pid } = await startServer(sessionId);
    expect(isAlive(pid)).toBe(true);
    await suite.agent.stop();
    expect(await waitForExit(pid)).toBe(true);
  });

  it("leaves no process behind when the agent is SIGKILLed", async () => {
    const sessionId = await start(ZED_CAPABILITIES);
    const { pid } = await startServer(sessionId);
    suite.agent.child.kill("SIGKILL");
    await suite.agent.exited;
    expect(await waitForExit(pid)).toBe(true);
  });
});

describe("background processes with a client without terminals", () => {
  it("shows the output as refreshed text and the exit, and names unknown ids", async () => {
    const sessionId = await start({});
    const { toolCallId } = await startServer(sessionId, "echo hello from the background; sleep 0.3; echo bye");
    await suite.agent.waitFor(() => updatesFor(sessionId, toolCallId).some((u) => u.status === "completed"));
    const texts = updatesFor(sessionId, toolCallId).flatMap((u) =>
      (u.content ?? []).map((c: any) => c.content?.text ?? ""),
    );
    expect(texts.at(-1)).toBe("```\nhello from the background\nbye\n\n```\n[exited with code 0]");

    suite.model.enqueue(toolTurn("process_output", { id: "p9" }), textTurn("none"));
    await prompt(sessionId, "read p9");
    expect(toolTexts().at(-1)).toBe('Error: no background process "p9". Known: p1.');
  });
});
