import { describe, expect, it } from "vitest";
import { resolveInterpreterTools } from "../../../src/interpreter/allowlist.js";
import {
  bindTools,
  effectiveAllowlist,
  flattenToolResult,
  stripLineNumbers,
  toCamelCase,
  ToolCallBudget,
} from "../../../src/interpreter/calls/ptc.js";
import { ConcurrencyLimiter, parseTaskRequest } from "../../../src/interpreter/calls/subagents.js";
import { fakeLs, fakeReadFile, fakeWriteFile } from "./helpers.js";

describe("tool names", () => {
  it("camelCases snake, kebab and MCP names", () => {
    expect(toCamelCase("read_file")).toBe("readFile");
    expect(toCamelCase("github_create_issue")).toBe("githubCreateIssue");
    expect(toCamelCase("my-server_list-items")).toBe("myServerListItems");
    expect(toCamelCase("ls")).toBe("ls");
    expect(toCamelCase("3d_render")).toBe("_3dRender");
  });

  it("binds each tool once, first one wins a shared camelCase name", () => {
    const a = { ...fakeLs([]), name: "list_items" };
    const b = { ...fakeLs([]), name: "list-items" };
    expect(bindTools([a, b]).map((binding) => [binding.callName, binding.tool.name])).toEqual([
      ["listItems", "list_items"],
    ]);
  });

  it("never exposes eval or task, and keeps only read-only tools in read-only mode", () => {
    const tools = [
      fakeReadFile({}),
      fakeWriteFile({}),
      { ...fakeLs([]), name: "eval" },
      { ...fakeLs([]), name: "task" },
    ];
    expect(effectiveAllowlist(tools, "default").map((t) => t.name)).toEqual(["read_file", "write_file"]);
    expect(effectiveAllowlist(tools, "plan").map((t) => t.name)).toEqual(["read_file"]);
  });

  it("resolves config names and globs against the session's tools, reporting misses", () => {
    const tools = [
      fakeReadFile({}),
      fakeLs([]),
      { ...fakeLs([]), name: "github_search" },
      { ...fakeLs([]), name: "github_get_issue" },
    ];
    const { items, diagnostics } = resolveInterpreterTools(["read_file", "github_*", "grep", "task"], tools);
    expect(items.map((t) => t.name)).toEqual(["read_file", "github_search", "github_get_issue"]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'no tool matches "grep"',
      '"task" cannot be called from code (subagents use task())',
    ]);
  });
});

describe("tool results", () => {
  it("strips cat -n prefixes only when every non-empty line has one", () => {
    expect(stripLineNumbers("     1\tfirst\n     2\t\n    10\tlast")).toBe("first\n\nlast");
    expect(stripLineNumbers("     1\tfirst\n(file continues; use offset)")).toBe(
      "     1\tfirst\n(file continues; use offset)",
    );
    expect(stripLineNumbers("")).toBe("");
  });

  it("flattens content to text, stripping line numbers for read_file only", () => {
    const result = {
      content: [
        { type: "text" as const, text: "     1\ta" },
        { type: "image" as const, mimeType: "image/png", data: "xx" },
      ],
    };
    expect(flattenToolResult("read_file", { content: [result.content[0]!] })).toBe("a");
    expect(flattenToolResult("grep", result)).toBe("     1\ta\n[image: image/png]");
  });

  it("counts calls against the budget and names the call that went over", () => {
    const budget = new ToolCallBudget(2);
    budget.take("readFile");
    budget.take("readFile");
    expect(() => budget.take("grep")).toThrow("PTC call budget exceeded (limit=2, attempted=3, function=grep)");
    expect(budget.count).toBe(2);
  });
});

describe("task() requests", () => {
  it("accepts camelCase and snake_case keys", () => {
    expect(parseTaskRequest('{"description":"d","subagent_type":"t","response_schema":{"type":"object"}}')).toEqual({
      description: "d",
      subagentType: "t",
      responseSchema: { type: "object" },
    });
  });

  it("rejects unknown keys, both spellings at once and bad values", () => {
    expect(() => parseTaskRequest('{"description":"d","subagentType":"t","extra":1}')).toThrow("unknown key(s) extra");
    expect(() => parseTaskRequest('{"description":"d","subagentType":"t","subagent_type":"u"}')).toThrow(
      "both spellings",
    );
    expect(() => parseTaskRequest('{"description":"","subagentType":"t"}')).toThrow("non-empty description");
    expect(() => parseTaskRequest('{"description":"d","subagentType":"t","responseSchema":[1]}')).toThrow(
      "JSON Schema object",
    );
    expect(() => parseTaskRequest("null")).toThrow("task() expects");
  });

  it("limits concurrency and drops queued jobs on close", async () => {
    const limiter = new ConcurrencyLimiter(2);
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const job = () =>
      new Promise<string>((resolve) => {
        running += 1;
        peak = Math.max(peak, running);
        releases.push(() => {
          running -= 1;
          resolve("ok");
        });
      });
    const results = [limiter.run(job), limiter.run(job), limiter.run(job), limiter.run(job)].map((p) =>
      p.catch((e: Error) => e.message),
    );
    expect(peak).toBe(2);
    releases.shift()!();
    // One macrotask: the finished job's promise callbacks run and the limiter starts the next one.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(releases).toHaveLength(2);
    limiter.close("ended");
    for (const release of releases.splice(0)) release();
    expect(await Promise.all(results)).toEqual(["ok", "ok", "ok", "ended"]);
  });
});
