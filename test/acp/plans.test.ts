// Plan operations (ACP v1, `clientCapabilities.plan`): the todo list as an item plan, cleared with
// plan_removed, and the plan a plan-mode turn ends with as a Markdown plan document saved to a file.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textTurn, toolTurn, type FakeTurn } from "../support/fake-model/index.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";

const suite = useHarnessSuite({ name: "plans", prepare: gitProject });
const PLAN: acp.ClientCapabilities = { plan: {} };

const todos = [
  { content: "read the code", status: "completed" },
  { content: "fix the bug", status: "in_progress" },
];
const PLAN_TEXT = "## Plan\n\n1. Change `parse()` to accept empty input.\n2. Add a test.";

const plans = (updates: acp.SessionUpdate[]) =>
  updates.filter((u) => ["plan", "plan_update", "plan_removed"].includes(u.sessionUpdate));

describe("plan operations", () => {
  it("write_todos is an item plan replaced by id, and plan_removed when the list is cleared", async () => {
    const h = await suite.start({ clientCapabilities: PLAN });
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler((request): FakeTurn => {
      if (request.messages.length === 1) return toolTurn("write_todos", { todos });
      if (request.messages.length === 3) return toolTurn("write_todos", { todos: [] });
      return textTurn("done");
    });
    const { updates } = await h.prompt(sessionId, "work");
    expect(plans(updates)).toEqual([
      {
        sessionUpdate: "plan_update",
        plan: {
          type: "items",
          planId: "todos",
          entries: todos.map((t) => ({ ...t, priority: "medium" })),
        },
      },
      { sessionUpdate: "plan_removed", planId: "todos" },
    ]);
  });

  it("a plan-mode turn ends with a Markdown plan document in a file; it stays when the mode changes and comes back on load", async () => {
    const h = await suite.start({ clientCapabilities: PLAN });
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    h.model.setHandler(() => textTurn(PLAN_TEXT));
    const { updates } = await h.prompt(sessionId, "plan the fix");
    const file = join(suite.home, ".deepagents", "plans", `${sessionId}.md`);
    expect(plans(updates)).toEqual([
      {
        sessionUpdate: "plan_update",
        // The wire also carries the stable spec's `path` (test/unit/acp/translate.test.ts); the SDK
        // 2.4.0 client drops it as a field its schema does not know.
        plan: { type: "markdown", planId: "plan", content: PLAN_TEXT },
        _meta: { "deep-acp": { path: file } },
      },
    ]);
    expect(await readFile(file, "utf8")).toBe(`${PLAN_TEXT}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // Leaving plan mode to carry it out removes nothing; a default-mode answer is no plan document.
    const mark = h.updates.length;
    await h.agent.request("session/set_mode", { sessionId, modeId: "default" });
    h.model.setHandler(() => textTurn("Done: parse() accepts empty input."));
    const { updates: after } = await h.prompt(sessionId, "go ahead");
    expect(plans(after)).toEqual([]);
    expect(h.updates.slice(mark).some((u) => u.update.sessionUpdate === "plan_removed")).toBe(false);
    await h.close();

    const again = await suite.start({ clientCapabilities: PLAN });
    await again.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    expect(plans(again.updates.map((u) => u.update))).toEqual(plans(updates));

    // Deleting the session removes its saved plan.
    await again.agent.request("session/delete", { sessionId });
    await expect(stat(file)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("without the capability: the legacy plan update, and the plan-mode plan is only the agent's message", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler((request) =>
      request.messages.length === 1 ? toolTurn("write_todos", { todos }) : textTurn("ok"),
    );
    const { updates } = await h.prompt(sessionId, "work");
    expect(plans(updates)).toEqual([
      { sessionUpdate: "plan", entries: todos.map((t) => ({ ...t, priority: "medium" })) },
    ]);
    await h.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    h.model.setHandler(() => textTurn(PLAN_TEXT));
    const { updates: planned } = await h.prompt(sessionId, "plan the fix");
    expect(plans(planned)).toEqual([]);
  });
});
