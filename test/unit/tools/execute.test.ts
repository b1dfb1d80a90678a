import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createExecuteTool } from "../../../src/tools/shell/execute.js";
import { createWriteTodosTool } from "../../../src/tools/user/write-todos.js";
import { toolContext } from "./tool-context.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "deep-acp-exec-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("execute", () => {
  it("runs in the working directory, streams output and reports the exit code", async () => {
    const ctx = toolContext(root);
    const tool = createExecuteTool();
    const result = await tool.execute({ command: "pwd; echo out; echo err >&2; exit 3" }, ctx);
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(text).toContain(root);
    expect(text).toContain("out");
    expect(text).toContain("err");
    expect(text.endsWith("[Command failed with exit code 3]")).toBe(true);
    expect(result.isError).toBe(true);
    const streamed = ctx.progressEvents
      .filter((e) => e.type === "output")
      .map((e) => (e as { data: string }).data)
      .join("");
    expect(streamed).toContain("out");
  });

  it("times out, kills the command and says so", async () => {
    const result = await createExecuteTool().execute({ command: "sleep 30", timeout: 0.5 }, toolContext(root));
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(text).toContain("timed out after 0.5 seconds");
    expect(result.isError).toBe(true);
  });

  it("reports success", async () => {
    const result = await createExecuteTool().execute({ command: "true" }, toolContext(root));
    expect(result.content).toEqual([{ type: "text", text: "<no output>\n[Command succeeded with exit code 0]" }]);
    expect(result.isError).toBe(false);
  });
});

describe("write_todos", () => {
  it("publishes the plan and confirms to the model", async () => {
    const ctx = toolContext(root);
    const todos = [
      { content: "Read code", status: "completed" as const },
      { content: "Fix bug", status: "in_progress" as const },
    ];
    const result = await createWriteTodosTool().execute({ todos }, ctx);
    expect(ctx.progressEvents).toEqual([
      {
        type: "plan",
        entries: [
          { content: "Read code", status: "completed", priority: "medium" },
          { content: "Fix bug", status: "in_progress", priority: "medium" },
        ],
      },
    ]);
    expect(result.content[0]).toEqual({ type: "text", text: `Updated todo list to ${JSON.stringify(todos)}` });
  });
});
