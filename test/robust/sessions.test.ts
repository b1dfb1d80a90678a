import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn } from "../support/fake-model/index.js";
import { SOAK } from "./soak.js";

// Many sessions at once, and more sessions than stay loaded: idle ones are unloaded least recently
// used first and come back, history and all, when they are used again.

const suite = useAgentSuite({ name: "many", handler: (request) => textTurn(`echo: ${request.lastUserText}`) });

async function start(config = "", env: Record<string, string> = {}) {
  await mkdir(join(suite.home, ".deepagents"), { recursive: true });
  await writeFile(join(suite.home, ".deepagents", "config.toml"), config);
  const agent = await suite.start({ env });
  await agent.initialize();
}

const text = (sessionId: string) =>
  suite.agent
    .updates(sessionId)
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");

describe("many sessions", () => {
  it("unloads idle sessions over the cap and reopens them with their history on use", async () => {
    await start("[acp]\nmax_loaded_sessions = 2\n", { DEEP_ACP_LOG: "debug" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const sessionId = (await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result
        .sessionId;
      ids.push(sessionId);
      expect(
        (await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `first ${i}` }] }))
          .result?.stopReason,
      ).toBe("end_turn");
    }
    const before = suite.model.requests.length;
    const again = await suite.agent.request("session/prompt", {
      sessionId: ids[0],
      prompt: [{ type: "text", text: "second 0" }],
    });
    expect(again.result?.stopReason).toBe("end_turn");
    const sent = suite.model.requests[before]!;
    expect(sent.messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual(["first 0", "second 0"]);
    expect(suite.agent.stderr).toContain(`unloaded idle session ${ids[0]}`);
    expect(suite.agent.stderr).toContain(`reopened session ${ids[0]}`);
    expect((await suite.agent.request("session/set_mode", { sessionId: ids[1], modeId: "plan" })).result).toEqual({});
    expect((await suite.agent.request("session/close", { sessionId: ids[2] })).result).toEqual({});
    expect(
      (await suite.agent.request("session/prompt", { sessionId: ids[2], prompt: [{ type: "text", text: "x" }] })).error
        ?.code,
    ).toBe(-32002);
  });

  it("runs many sessions at once without cross-talk", async () => {
    await start();
    const count = SOAK ? 40 : 12;
    const ids = await Promise.all(
      Array.from(
        { length: count },
        async () =>
          (await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId as string,
      ),
    );
    const answers = await Promise.all(
      ids.map((sessionId, i) =>
        suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `session ${i}` }] }),
      ),
    );
    expect(answers.every((a) => a.result?.stopReason === "end_turn")).toBe(true);
    ids.forEach((sessionId, i) => expect(text(sessionId)).toBe(`echo: session ${i}`));
    console.log(`many sessions: ${count} concurrent prompts, all answered, no cross-talk`);
  });
});
