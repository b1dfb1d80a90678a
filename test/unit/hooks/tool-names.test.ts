import { describe, expect, it } from "vitest";
import {
  HOOK_TOOL_NAMES,
  toHookToolInput,
  toHookToolName,
  toHookToolResponse,
} from "../../../src/hooks/tool-names.js";

describe("native -> Claude wire tools", () => {
  it("maps every built-in tool name", () => {
    expect(HOOK_TOOL_NAMES).toEqual({
      execute: "Bash",
      write_file: "Write",
      edit_file: "Edit",
      read_file: "Read",
      glob: "Glob",
      grep: "Grep",
      ls: "LS",
      delete: "Delete",
      write_todos: "TodoWrite",
      task: "Task",
      eval: "Eval",
    });
  });

  it("splits MCP names on the longest known server and leaves others alone", () => {
    const mcpServers = ["gh", "gh_enterprise"];
    expect(toHookToolName("gh_create_issue", { mcpServers })).toBe("mcp__gh__create_issue");
    expect(toHookToolName("gh_enterprise_list_repos", { mcpServers })).toBe("mcp__gh_enterprise__list_repos");
    expect(toHookToolName("my_custom_tool", { mcpServers })).toBe("my_custom_tool");
    expect(toHookToolName("execute", { mcpServers })).toBe("Bash");
  });

  it("converts inputs to Claude's shapes", () => {
    expect(toHookToolInput("execute", { command: "npm test", timeout: 30 })).toEqual({ command: "npm test", timeout: 30_000 });
    expect(toHookToolInput("execute", { command: "ls" })).toEqual({ command: "ls" });
    expect(toHookToolInput("write_file", { file_path: "/p/a", content: "x" })).toEqual({ file_path: "/p/a", content: "x" });
    expect(toHookToolInput("edit_file", { path: "/p/a", old_string: "a", new_string: "b" })).toEqual({
      file_path: "/p/a",
      old_string: "a",
      new_string: "b",
      replace_all: false,
    });
    expect(toHookToolInput("read_file", { file_path: "/p/a", offset: 0, limit: 100 })).toEqual({ file_path: "/p/a", offset: 1, limit: 100 });
    expect(toHookToolInput("glob", { pattern: "**/*.ts", path: "/p" })).toEqual({ pattern: "**/*.ts", path: "/p" });
    expect(toHookToolInput("grep", { pattern: "a.b(c)", path: "/p", glob: "*.ts", output_mode: "content", max_count: 5 })).toEqual({
      pattern: "a\\.b\\(c\\)",
      path: "/p",
      glob: "*.ts",
      output_mode: "content",
      head_limit: 5,
    });
    expect(toHookToolInput("grep", { pattern: "x", glob: null })).toEqual({ pattern: "x" });
    expect(toHookToolInput("ls", { path: "/p" })).toEqual({ path: "/p" });
    expect(toHookToolInput("delete", { file_path: "/p/a" })).toEqual({ file_path: "/p/a" });
    const todos = [{ content: "a", status: "pending" }];
    expect(toHookToolInput("write_todos", { todos })).toEqual({ todos });
    expect(toHookToolInput("task", { description: "find x", subagent_type: "general-purpose" })).toEqual({
      description: "find x",
      subagent_type: "general-purpose",
    });
    expect(toHookToolInput("eval", { code: "1+1" })).toEqual({ code: "1+1" });
    expect(toHookToolInput("gh_create_issue", { title: "t" })).toEqual({ title: "t" });
  });

  it("tool_response is structured output when there is some, else the text", () => {
    expect(toHookToolResponse({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] })).toBe("a\nb");
    expect(toHookToolResponse({ content: [], rawOutput: { exitCode: 0, stdout: "x" } })).toEqual({ exitCode: 0, stdout: "x" });
  });
});
