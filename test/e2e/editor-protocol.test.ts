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
