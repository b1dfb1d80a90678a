import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/config/config-file.js";
import { mcpHookToolName, parseMcpHookToolName, toHookToolResponse } from "../../../src/hooks/tool-names.js";
import { createEvalTool } from "../../../src/interpreter/eval-tool.js";
import { DEFAULT_INTERPRETER_LIMITS } from "../../../src/interpreter/quickjs/limits.js";
import { builtinToolNames, builtinTools, webFetchTool } from "../../../src/tools/registry.js";
import type { AnyTool } from "../../../src/tools/types.js";
import { createTaskTool } from "../../../src/turn/task-tool.js";

/** Every built-in tool a session can offer, built the way a session builds them. */
function everyBuiltinTool(): AnyTool[] {
  const builtin = builtinTools({ supportsImages: true, canExecute: true });
  const task = createTaskTool([
    { name: "general-purpose", description: "anything", systemPrompt: "", source: "builtin" },
  ]);
  const evalTool = createEvalTool({
    limits: DEFAULT_INTERPRETER_LIMITS,
    allowlist: builtin,
    mode: "default",
    hasSubagents: false,
  });
  return [...builtin, webFetchTool(defaultConfig(), {}), task, evalTool];
}

const byName = (name: string) => {
  const tool = everyBuiltinTool().find((t) => t.name === name);
  if (!tool) throw new Error(`no built-in tool ${name}`);
  return tool;
};
/** What a hook sees as tool_input for `input`, after the tool's own validation. */
const hookInput = (name: string, input: Record<string, unknown>) => {
  const tool = byName(name);
  const validated = tool.validate(input);
  if (!validated.success) throw new Error(validated.error);
  return tool.hookInput ? tool.hookInput(validated.data) : validated.data;
};

describe("the tool registry", () => {
  it("reserves the name of every built-in tool, and only those", () => {
    const names = everyBuiltinTool().map((t) => t.name);
    expect(names.filter((n) => !builtinToolNames().includes(n))).toEqual([]);
    expect(builtinToolNames().filter((n) => !names.includes(n))).toEqual([]);
  });

  it("gives every built-in tool its Claude Code wire name", () => {
    expect(Object.fromEntries(everyBuiltinTool().map((t) => [t.name, t.hookName]))).toEqual({
      execute: "Bash",
      process_output: "BashOutput",
      process_stop: "KillShell",
      write_file: "Write",
      edit_file: "Edit",
      read_file: "Read",
      glob: "Glob",
      grep: "Grep",
      ls: "LS",
      delete: "Delete",
      write_todos: "TodoWrite",
      ask_user: "AskUserQuestion",
      web_fetch: "WebFetch",
      task: "Task",
      eval: "Eval",
    });
    expect(mcpHookToolName("gh", "create_issue")).toBe("mcp__gh__create_issue");
    expect(parseMcpHookToolName(mcpHookToolName("gh", "create__issue"))).toEqual({
      server: "gh",
      tool: "create__issue",
    });
    expect(parseMcpHookToolName("Bash")).toBeUndefined();
  });

  it("converts validated inputs to Claude's tool_input shapes", () => {
    expect(hookInput("execute", { command: "npm test", timeout: 30 })).toEqual({
      command: "npm test",
      timeout: 30_000,
    });
    expect(hookInput("execute", { command: "ls" })).toEqual({ command: "ls" });
    expect(hookInput("write_file", { file_path: "/p/a", content: "x" })).toEqual({ file_path: "/p/a", content: "x" });
    // The `path` alias some models send is already `file_path` after validation.
    expect(hookInput("edit_file", { path: "/p/a", old_string: "a", new_string: "b" })).toEqual({
      file_path: "/p/a",
      old_string: "a",
      new_string: "b",
      replace_all: false,
    });
    expect(hookInput("read_file", { file_path: "/p/a", offset: 0, limit: 100 })).toEqual({
      file_path: "/p/a",
      offset: 1,
      limit: 100,
    });
    expect(hookInput("glob", { pattern: "**/*.ts", path: "/p" })).toEqual({ pattern: "**/*.ts", path: "/p" });
    expect(
      hookInput("grep", { pattern: "a.b(c)", path: "/p", glob: "*.ts", output_mode: "content", max_count: 5 }),
    ).toEqual({
      pattern: "a\\.b\\(c\\)",
      path: "/p",
      glob: "*.ts",
      output_mode: "content",
      head_limit: 5,
    });
    expect(hookInput("grep", { pattern: "x" })).toMatchObject({ pattern: "x" });
    expect(hookInput("ls", { path: "/p" })).toEqual({ path: "/p" });
    expect(hookInput("delete", { file_path: "/p/a" })).toEqual({ file_path: "/p/a" });
    const todos = [{ content: "a", status: "pending" }];
    expect(hookInput("write_todos", { todos })).toMatchObject({ todos: [{ content: "a", status: "pending" }] });
    expect(hookInput("task", { description: "find x", subagent_type: "general-purpose" })).toEqual({
      description: "find x",
      subagent_type: "general-purpose",
    });
    expect(hookInput("eval", { code: "1+1" })).toEqual({ code: "1+1" });
  });

  it("offloads large results of every tool but the file tools", () => {
    const kept = everyBuiltinTool().filter((t) => t.offloadLargeResults === false);
    expect(kept.map((t) => t.name).sort()).toEqual([
      "delete",
      "edit_file",
      "glob",
      "grep",
      "ls",
      "read_file",
      "write_file",
    ]);
  });

  it("tool_response is structured output when there is some, else the text", () => {
    expect(
      toHookToolResponse({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\nb");
    expect(toHookToolResponse({ content: [], rawOutput: { exitCode: 0, stdout: "x" } })).toEqual({
      exitCode: 0,
      stdout: "x",
    });
  });

  it("describes the subagents of the list it is given, also after the list changes", () => {
    const agent = (name: string) => ({
      name,
      description: `${name} work`,
      systemPrompt: "",
      source: "builtin" as const,
    });
    const first = [agent("reviewer")];
    const reloaded = [agent("reviewer"), agent("tester")];
    const schemaText = (list: typeof first) => JSON.stringify(createTaskTool(list).jsonSchema);
    expect(schemaText(first)).not.toContain("tester");
    expect(schemaText(reloaded)).toContain("tester");
    expect(schemaText(first)).not.toContain("tester");
    expect(createTaskTool(reloaded).description).toContain("tester");
  });
});
