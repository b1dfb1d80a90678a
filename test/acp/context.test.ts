import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentText } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "context" });

const config = (toml: string) => async (home: string) => {
  await mkdir(join(home, ".deepagents"), { recursive: true });
  await writeFile(join(home, ".deepagents", "config.toml"), toml);
};

describe("large tool results", () => {
  it("saves a huge command output to /large_tool_results/ and sends the model a preview it can follow", async () => {
    const h = await suite.start({
      setupHome: config("[shell]\noutput_chars = 400000\n"),
      onPermission: () => "allow_once",
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("execute", { command: "seq 1 40000" }));
    let followed = false;
    h.model.setHandler((request) => {
      const path = /saved in the filesystem at this path: (\/large_tool_results\/[^\s\\"]+)/.exec(
        JSON.stringify(request.body),
      )?.[1];
      if (path && !followed) {
        followed = true;
        return toolTurn("read_file", { file_path: path, offset: 20000, limit: 3 });
      }
      return textTurn("done");
    });
    await h.prompt(sessionId, "count");
    const offloaded = JSON.stringify(h.model.requests[1]!.body);
    expect(offloaded).toContain("Tool result too large");
    expect(offloaded).toContain("... [");
    expect(offloaded.length).toBeLessThan(40_000);
    expect(offloaded).not.toContain("20001");
    const followUp = JSON.stringify(h.model.requests[2]!.body);
    expect(followUp).toContain("20001\\t20001");
    // The user still saw the real output in the editor.
  });
});

describe("compaction", () => {
  it("summarizes older messages when the context fills, keeps recent ones, and the editor sees it", async () => {
    const h = await suite.start({
      setupHome: config("[model]\ncontext_window = 6000\n\n[compaction]\nkeep_messages = 2\n"),
      clientCapabilities: { session: { compaction: {} } },
    });
    const { sessionId } = await h.newSession(suite.project);
    const filler = (n: number) => `${"lorem ipsum dolor sit amet ".repeat(150)} (${n})`;
    h.model.setHandler((request) => {
      if (request.system.includes("summar")) return textTurn("SUMMARY: the user talked about filler text.");
      return textTurn(`reply ${request.lastUserText.slice(-4)}`);
    });
    for (let i = 1; i <= 5; i++) await h.prompt(sessionId, filler(i));
    const summaryRequest = h.model.requests.find((r) => r.system.includes("summar"));
    expect(summaryRequest).toBeDefined();
    expect(JSON.stringify(summaryRequest!.body)).toContain("(1)");
    const last = JSON.stringify(h.model.requests.at(-1)!.body);
    expect(last).toContain("SUMMARY: the user talked about filler text.");
    expect(last).toContain("/conversation_history/");
    expect(last).not.toContain("(1)");
    expect(last).toContain("(5)");
    expect(
      h.updates.some((u) => u.update.sessionUpdate === "compaction_update" && u.update.status === "completed"),
    ).toBe(true);
  });

  it("/compact summarizes on demand and says so", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler((request) =>
      request.system.includes("summar")
        ? textTurn("SUMMARY OF EARLIER WORK")
        : textTurn(`ok ${h.model.requests.length}`),
    );
    for (let i = 0; i < 5; i++) await h.prompt(sessionId, `message number ${i}`);
    const { updates, response } = await h.prompt(sessionId, "/compact keep the numbers");
    expect(response.stopReason).toBe("end_turn");
    expect(agentText(updates)).toMatch(/Compacted \d+ earlier messages/);
    await h.prompt(sessionId, "next");
    const last = JSON.stringify(h.model.requests.at(-1)!.body);
    expect(last).toContain("SUMMARY OF EARLIER WORK");
    expect(last).not.toContain("message number 0");
  });
});
