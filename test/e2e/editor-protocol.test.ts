// The session methods and capabilities editors already send (issue 27, items 4-6), through the built
// binary, with Zed's capabilities and with a client that advertises none. Every message the agent
// sends in these tests is checked against the SDK's JSON schema (support/acp-schema.ts).
import { describe, expect, it } from "vitest";
import { acpViolations } from "../support/acp-schema.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { CLIENTS, createFakeEditor } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "editor-protocol" });

const schemaViolations = () => acpViolations(suite.agent.messages, suite.agent.sent as never);

for (const [client, capabilities] of CLIENTS) {
  describe(`with ${client}`, () => {
    async function connect() {
      const editor = createFakeEditor();
      await suite.start({ onRequest: editor.handle });
      const init = await suite.agent.initialize(capabilities);
      return { editor, init: init.result };
    }

    it("a rejected call ends failed even when the editor interrupts the turn right after the rejection", async () => {
      const editor = createFakeEditor({
        permission: (message) => {
          // Reject, then interrupt, in one write: the cancel arrives in the same read as the answer.
          const option = message.params.options.find((o: { kind: string }) => o.kind === "reject_once");
          const answer = {
            jsonrpc: "2.0",
            id: message.id,
            result: { outcome: { outcome: "selected", optionId: option.optionId } },
          };
          const cancel = { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: message.params.sessionId } };
          suite.agent.writeRaw(`${JSON.stringify(answer)}\n${JSON.stringify(cancel)}\n`);
          return new Promise(() => undefined); // answered above
        },
      });
      await suite.start({ onRequest: editor.handle });
      await suite.agent.initialize(capabilities);
      suite.model.enqueue(toolTurn("execute", { command: "echo never" }), textTurn("unreached"));
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const answer = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "run it" }],
      });
      expect(answer.result.stopReason).toBe("cancelled");
      const callId = suite.agent.messages.find((m) => m.method === "session/request_permission")!.params.toolCall
        .toolCallId;
      const finals = suite.agent
        .updates(result.sessionId)
        .filter((u) => u.toolCallId === callId && (u.status === "failed" || u.status === "completed"));
      expect(finals.map((u) => u.status)).toEqual(["failed"]);
      // Nothing of the turn follows the cancelled answer.
      const answered = suite.agent.messages.indexOf(answer);
      expect(suite.agent.messages.slice(answered + 1).filter((m) => m.method === "session/update")).toEqual([]);
      expect(schemaViolations()).toEqual([]);
    });

    it("advertises prompt content without false entries, and every message of a turn is schema-valid", async () => {
      const { init } = await connect();
      expect(init.agentCapabilities.promptCapabilities).toEqual({ image: true, embeddedContext: true });
      suite.model.enqueue(toolTurn("ls", { path: suite.project }), textTurn("Listed."));
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const answer = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "list" }],
      });
      expect(answer.result.stopReason).toBe("end_turn");
      expect(schemaViolations()).toEqual([]);
    });
  });
}
