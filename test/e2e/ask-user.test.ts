// ask_user through the built binary: a form where the client advertises elicitation.form (Zed), a
// permission-style Yes/No where it does not, the question as the agent's message when neither fits,
// and headless answers from stdin.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "ask" });

async function start(
  capabilities: unknown,
  handlers: { permission?: (m: JsonRpcMessage) => unknown; elicitation?: (m: JsonRpcMessage) => unknown } = {},
) {
  const editor = createFakeEditor(handlers);
  return suite.startSession({ capabilities, onRequest: editor.handle });
}

const lastToolText = () =>
  suite.model.requests
    .at(-1)!
    .messages.filter((m) => m.role === "tool")
    .at(-1)!.text;
const messageText = (updates: any[]) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");
const DB = { question: "Which database should the app use?", options: ["Postgres", "SQLite"] };

describe("ask_user with Zed (form elicitation)", () => {
  it("shows a form tied to the tool call and returns the choice", async () => {
    const forms: JsonRpcMessage[] = [];
    const sessionId = await start(ZED_CAPABILITIES, {
      elicitation: (m) => {
        forms.push(m);
        return { action: "accept", content: { answer: "SQLite" } };
      },
    });
    suite.model.enqueue(toolTurn("ask_user", DB), textTurn("SQLite it is."));
    const response = await suite.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "set up storage" }],
    });
    expect(response.result.stopReason).toBe("end_turn");
    expect(forms).toHaveLength(1);
    const params = forms[0]!.params;
    const call = suite.agent.updates(sessionId).find((u) => u.sessionUpdate === "tool_call");
    expect(params).toMatchObject({ sessionId, toolCallId: call.toolCallId, mode: "form", message: DB.question });
    expect(params.requestedSchema.properties.answer.oneOf).toEqual([
      { const: "Postgres", title: "Postgres" },
      { const: "SQLite", title: "SQLite" },
    ]);
    expect(lastToolText()).toBe("The user answered: SQLite");
  });

  it("takes several choices and free text, and reports a declined form", async () => {
    const sessionId = await start(ZED_CAPABILITIES, {
      elicitation: (m) =>
        m.params.message.startsWith("Which")
          ? { action: "accept", content: { answer: ["lint", "test"], other: "and docs" } }
          : { action: "decline" },
    });
    suite.model.enqueue(
      toolTurn("ask_user", { question: "Which checks?", options: ["lint", "test", "build"], multi_select: true }),
      toolTurn("ask_user", { question: "Anything else to know?" }),
      textTurn("ok"),
    );
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const tools = suite.model.requests.at(-1)!.messages.filter((m) => m.role === "tool");
    expect(tools[0]!.text).toBe("The user answered: lint; test; and docs");
    expect(tools[1]!.text).toMatch(/^The user declined to answer/);
  });

  it("refuses a question that asks for a secret, without showing it", async () => {
    const forms: JsonRpcMessage[] = [];
    const sessionId = await start(ZED_CAPABILITIES, { elicitation: (m) => (forms.push(m), { action: "cancel" }) });
    suite.model.enqueue(toolTurn("ask_user", { question: "Please enter your GitHub access token" }), textTurn("ok"));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(forms).toHaveLength(0);
    expect(lastToolText()).toContain("never asks for passwords, keys, tokens");
  });
});

describe("ask_user with a client that has no elicitation", () => {
  it("asks a yes/no question as a permission-style choice", async () => {
    const asked: JsonRpcMessage[] = [];
    const sessionId = await start(
      {},
      {
        permission: (m) => {
          asked.push(m);
          return { outcome: { outcome: "selected", optionId: "no" } };
        },
      },
    );
    suite.model.enqueue(
      toolTurn("ask_user", { question: "Delete the old migrations too?", options: ["Yes", "No"] }),
      textTurn("Keeping them."),
    );
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "clean up" }] });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.toolCall.title).toBe("Delete the old migrations too?");
    expect(asked[0]!.params.options).toEqual([
      { optionId: "yes", name: "Yes", kind: "allow_once" },
      { optionId: "no", name: "No", kind: "reject_once" },
    ]);
    expect(lastToolText()).toBe("The user answered: No");
  });

  it("ends the turn with the question as the agent's message, and the next prompt answers it", async () => {
    const sessionId = await start({});
    suite.model.enqueue(toolTurn("ask_user", DB));
    const before = suite.model.requests.length;
    const response = await suite.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "set up storage" }],
    });
    expect(response.result.stopReason).toBe("end_turn");
    expect(suite.model.requests.length).toBe(before + 1);
    expect(messageText(suite.agent.updates(sessionId))).toBe(
      `${DB.question}\n\n1. Postgres\n2. SQLite\n\n(Reply with one of these, or something else.)`,
    );
    suite.model.enqueue(textTurn("Using SQLite."));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "2" }] });
    const sent = suite.model.requests.at(-1)!.messages;
    expect(sent.at(-2)).toMatchObject({ role: "assistant", text: expect.stringContaining("1. Postgres") });
    expect(sent.at(-1)).toMatchObject({ role: "user", text: "2" });
  });
});

describe("ask_user headless", () => {
  const run = (input?: string) => suite.run(["-n", "set up storage"], input === undefined ? {} : { input });

  it("takes answers from stdin, one line per question", async () => {
    suite.model.enqueue(toolTurn("ask_user", DB), textTurn("done"));
    const result = await run("2\n");
    expect(result.code).toBe(0);
    expect(lastToolText()).toBe("The user answered: SQLite");
    expect(result.stderr).toContain("deep-acp asks: Which database should the app use?");
  });

  it("fails the question with a clear message when stdin has no answer", async () => {
    suite.model.enqueue(toolTurn("ask_user", DB), textTurn("assumed Postgres"));
    const result = await run();
    expect(result.code).toBe(0);
    expect(lastToolText()).toBe(
      "Error: the user cannot be asked in this headless run (no answer on stdin). Decide yourself and state the assumption, or pipe answers to deep-acp -n, one line per question.",
    );
  });
});

describe("MCP servers' elicitations", () => {
  const EVERYTHING = join(__dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  const everything = { name: "ev", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] };

  async function startWithServer(capabilities: unknown, elicitation?: (m: JsonRpcMessage) => unknown) {
    const editor = createFakeEditor({
      elicitation,
      permission: (m) => ({ outcome: { outcome: "selected", optionId: m.params.options[0].optionId } }),
    });
    await suite.start({ onRequest: editor.handle });
    await suite.agent.initialize(capabilities);
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [everything] });
    return result.sessionId as string;
  }

  it("relays a server's form to an editor that shows forms, and its answer back", async () => {
    const forms: JsonRpcMessage[] = [];
    const sessionId = await startWithServer(ZED_CAPABILITIES, (m) => {
      forms.push(m);
      return { action: "accept", content: { name: "Ada Lovelace", check: true, integer: 7 } };
    });
    suite.model.setHandler((request) =>
      request.messages.some((m) => m.role === "tool")
        ? textTurn("done")
        : toolTurn("ev_trigger-elicitation-request", {}),
    );
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "ask me" }] });
    expect(forms).toHaveLength(1);
    expect(forms[0]!.params).toMatchObject({
      sessionId,
      mode: "form",
      message: 'MCP server "ev" asks: Please provide inputs for the following fields:',
    });
    expect(forms[0]!.params.requestedSchema.properties.name.type).toBe("string");
    expect(lastToolText()).toContain("Ada Lovelace");
  });

  it("does not offer elicitation to servers when the editor cannot show forms", async () => {
    const sessionId = await startWithServer({});
    suite.model.enqueue(textTurn("hi"));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    // server-everything registers its elicitation tool only for clients that support elicitation.
    expect(suite.model.requests.at(-1)!.toolNames).not.toContain("ev_trigger-elicitation-request");
    expect(suite.model.requests.at(-1)!.toolNames).toContain("ev_echo");
  });
});
