// Zed's six end-to-end scenarios (crates/agent_servers/src/e2e_tests.rs; reference/acp-protocol.md
// §5.2), run against the built binary with Zed's client capabilities, over both model wire formats.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "zed" });

const texts = (updates: any[]) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");

for (const api of ["anthropic", "openai"] as const) {
  describe(`Zed scenarios (${api} wire format)`, () => {
    async function connect(permission?: (m: JsonRpcMessage) => unknown) {
      const client = createFakeEditor({ permission });
      const agent = await suite.start({ api, onRequest: client.handle });
      const init = await agent.initialize(ZED_CAPABILITIES);
      expect(init.result.protocolVersion).toBe(1);
      return client;
    }

    it("1 basic: a greeting is answered with text", async () => {
      await connect();
      suite.model.enqueue({
        parts: [
          { type: "thinking", text: "The user says hello." },
          { type: "text", text: "Hello! How can I help you today?" },
        ],
      });
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const response = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "Hello from Zed!" }],
      });
      expect(response.result.stopReason).toBe("end_turn");
      const updates = suite.agent.updates(result.sessionId);
      expect(texts(updates)).toBe("Hello! How can I help you today?");
      expect(updates.some((u) => u.sessionUpdate === "agent_thought_chunk" && u.content.text.includes("hello"))).toBe(
        true,
      );
      expect(updates.some((u) => u.sessionUpdate === "available_commands_update")).toBe(true);
    });

    it("2 path mentions: a relative resource_link is read and given to the model", async () => {
      const client = await connect();
      await writeFile(join(suite.project, "foo.rs"), 'fn main() {\n    println!("Hello, world!");\n}');
      suite.model.setHandler((request) => {
        const sent = JSON.stringify(request.body);
        return textTurn(
          sent.includes('println!(\\"Hello, world!\\")')
            ? 'The println! prints "Hello, world!".'
            : "I could not see the file.",
        );
      });
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const response = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [
          { type: "text", text: "Read the file " },
          { type: "resource_link", uri: "foo.rs", name: "foo.rs" },
          { type: "text", text: " and tell me what the content of the println! is" },
        ],
      });
      expect(response.result.stopReason).toBe("end_turn");
      expect(texts(suite.agent.updates(result.sessionId))).toContain("Hello, world!");
      expect(client.reads).toContain(join(suite.project, "foo.rs"));
    });

    it("3 tool call: reading a file in an additional project directory needs no dialog", async () => {
      const cwd = await mkdtemp(join(tmpdir(), "deep-acp-zed-cwd-"));
      onTestFinished(() => rm(cwd, { recursive: true, force: true }));
      await writeFile(join(suite.project, "foo"), "Lorem ipsum dolor");
      suite.model.enqueue(
        toolTurn("read_file", { file_path: join(suite.project, "foo") }),
        textTurn("I see Lorem ipsum dolor."),
      );
      await connect();
      const { result } = await suite.agent.request("session/new", {
        cwd,
        mcpServers: [],
        additionalDirectories: [suite.project],
      });
      const response = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: `Read ${join(suite.project, "foo")} and tell me what you see.` }],
      });
      expect(response.result.stopReason).toBe("end_turn");
      const updates = suite.agent.updates(result.sessionId);
      const call = updates.find((u) => u.sessionUpdate === "tool_call");
      expect(call.kind).toBe("read");
      expect(updates.filter((u) => u.toolCallId === call.toolCallId).at(-1).status).toBe("completed");
      expect(suite.agent.messages.some((m) => m.method === "session/request_permission")).toBe(false);
      expect(texts(updates)).toContain("Lorem ipsum");
    });

    it("4 tool call with permission: the dialog shows the command, output reaches the call", async () => {
      const client = await connect();
      suite.model.enqueue(
        toolTurn("execute", { command: 'touch hello.txt && echo "Hello, world!" | tee hello.txt' }),
        textTurn("Done."),
      );
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const response = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [
          {
            type: "text",
            text: 'Run exactly `touch hello.txt && echo "Hello, world!" | tee hello.txt` in the terminal.',
          },
        ],
      });
      expect(response.result.stopReason).toBe("end_turn");
      const permission = suite.agent.messages.find((m) => m.method === "session/request_permission")!;
      expect(permission.params.toolCall.title).toContain("touch");
      const updates = suite.agent
        .updates(result.sessionId)
        .filter((u) => u.toolCallId === permission.params.toolCall.toolCallId);
      expect(updates.at(-1).status).toBe("completed");
      // Zed advertises terminals, so the command ran in an editor terminal the call points to.
      const terminalContent = updates
        .flatMap((u) => u.content ?? [])
        .find((c: { type: string }) => c.type === "terminal");
      expect(terminalContent).toBeDefined();
      expect(client.terminals.get(terminalContent.terminalId)!.output).toContain("Hello, world!");
      expect(client.released.has(terminalContent.terminalId)).toBe(true);
      expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("Hello, world!");
      expect(await readFile(join(suite.project, "hello.txt"), "utf8")).toBe("Hello, world!\n");
    });

    it("5 cancel: the call stays cancelled and the next prompt works", async () => {
      let answer: (value: unknown) => void = () => undefined;
      await connect(() => new Promise((resolve) => (answer = resolve)));
      suite.model.enqueue(toolTurn("execute", { command: 'touch hello.txt && echo "Hello, world!" | tee hello.txt' }));
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const pending = suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "Run it" }],
      });
      await suite.agent.waitFor(() => suite.agent.messages.some((m) => m.method === "session/request_permission"));
      suite.agent.notify("session/cancel", { sessionId: result.sessionId });
      answer({ outcome: { outcome: "cancelled" } });
      expect((await pending).result.stopReason).toBe("cancelled");
      const callId = suite.agent.messages.find((m) => m.method === "session/request_permission")!.params.toolCall
        .toolCallId;
      // Zed marks the call canceled itself; the agent's own final word is `failed`, never `completed`.
      expect(
        suite.agent
          .updates(result.sessionId)
          .filter((u) => u.toolCallId === callId && (u.status === "completed" || u.status === "failed"))
          .map((u) => u.status),
      ).toEqual(["failed"]);
      suite.model.enqueue(textTurn("Goodbye!"));
      const next = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "Stop running and say goodbye to me." }],
      });
      expect(next.result.stopReason).toBe("end_turn");
      expect(texts(suite.agent.updates(result.sessionId))).toContain("Goodbye!");
    });

    it("6 thread drop: session/close frees the session", async () => {
      await connect();
      suite.model.enqueue(textTurn("Hi there."));
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "Hello from test!" }],
      });
      expect((await suite.agent.request("session/close", { sessionId: result.sessionId })).result).toEqual({});
      expect((await suite.agent.request("session/close", { sessionId: result.sessionId })).error?.code).toBe(-32002);
    });
  });
}

describe("editor file system", () => {
  it("edits go through fs/write_text_file and reads see unsaved buffers", async () => {
    const client = createFakeEditor();
    await suite.start({ onRequest: client.handle });
    await suite.agent.initialize(ZED_CAPABILITIES);
    const file = join(suite.project, "main.ts");
    await writeFile(file, "const a = 1;\n");
    client.buffers.set(file, "const a = 1; // unsaved\n");
    suite.model.enqueue(
      toolTurn("edit_file", { file_path: file, old_string: "// unsaved", new_string: "// saved by agent" }),
      textTurn("Edited."),
    );
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    await suite.agent.request("session/set_mode", { sessionId: result.sessionId, modeId: "accept-edits" });
    const response = await suite.agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "edit" }],
    });
    expect(response.result.stopReason).toBe("end_turn");
    expect(client.writes).toEqual([{ path: file, content: "const a = 1; // saved by agent\n" }]);
    expect(await readFile(file, "utf8")).toBe("const a = 1; // saved by agent\n");
    const diff = suite.agent
      .updates(result.sessionId)
      .flatMap((u) => u.content ?? [])
      .find((c: { type: string }) => c.type === "diff");
    expect(diff).toEqual({
      type: "diff",
      path: file,
      oldText: "const a = 1; // unsaved\n",
      newText: "const a = 1; // saved by agent\n",
    });
  });
});
