import type { AnyTool, ToolResult } from "../../tools/types.js";
import { callableFromCode } from "../../gate/decide/offer.js";
import type { SessionMode } from "../../gate/decide/modes.js";

// Programmatic tool calling: which tools code may call, under which names, and how their results
// become the strings the guest receives.

export type ToolBinding = {
  /** Name inside the sandbox: `tools.<callName>`. */
  callName: string;
  tool: AnyTool;
};

/** `read_file` -> `readFile`, `my-server_list-items` -> `myServerListItems`. */
export function toCamelCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9$]+/).filter(Boolean);
  const joined = words.map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join("");
  if (joined === "") return "_";
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/**
 * The tools code may call in `mode`: the gate's choice (plan mode drops everything that writes, runs
 * commands or has external effects); `eval` and `task` are never callable from code (subagents go
 * through `task()`).
 */
export function effectiveAllowlist(allowlist: readonly AnyTool[], mode: SessionMode): AnyTool[] {
  const seen = new Set<string>();
  return allowlist.filter((tool) => {
    if (tool.name === "eval" || tool.name === "task" || seen.has(tool.name)) return false;
    if (!callableFromCode(tool, mode)) return false;
    seen.add(tool.name);
    return true;
  });
}

/** One binding per tool; a camelCase name that two tools would share goes to the first of them. */
export function bindTools(allowlist: readonly AnyTool[]): ToolBinding[] {
  const byCallName = new Map<string, ToolBinding>();
  for (const tool of allowlist) {
    const callName = toCamelCase(tool.name);
    if (!byCallName.has(callName)) byCallName.set(callName, { callName, tool });
  }
  return [...byCallName.values()];
}

const LINE_PREFIX = /^\s*\d+(?:\.\d+)?\t/;

/**
 * Removes `cat -n` style prefixes (`String(n).padStart(6) + "\t"`), but only when every non-empty
 * line has one: a file whose own lines start with digits and a tab must come back unchanged.
 */
export function stripLineNumbers(text: string): string {
  const lines = text.split("\n");
  const numbered = lines.filter((line) => line !== "");
  if (numbered.length === 0 || !numbered.every((line) => LINE_PREFIX.test(line))) return text;
  return lines.map((line) => line.replace(LINE_PREFIX, "")).join("\n");
}

/** The text a tool result carries for the model, as one string. */
export function resultText(result: ToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : `[image: ${part.mimeType}]`)).join("\n");
}

export function flattenToolResult(toolName: string, result: ToolResult): string {
  const text = resultText(result);
  return toolName === "read_file" ? stripLineNumbers(text) : text;
}

export class ToolCallBudgetError extends Error {
  override name = "ToolCallBudgetError";
  constructor(limit: number, attempted: number, functionName: string) {
    super(`PTC call budget exceeded (limit=${limit}, attempted=${attempted}, function=${functionName})`);
  }
}

/** Counts tool calls of one eval; `task()` calls count too, since a loop of subagents is the costliest runaway. */
export class ToolCallBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  take(functionName: string): void {
    this.used += 1;
    if (this.used > this.limit) throw new ToolCallBudgetError(this.limit, this.used, functionName);
  }

  get count(): number {
    return Math.min(this.used, this.limit);
  }
}

/** Parses the JSON the guest sent and validates it against the tool's schema; throws a message for the guest. */
export function validateToolInput(binding: ToolBinding, json: string): unknown {
  let input: unknown;
  try {
    input = JSON.parse(json);
  } catch {
    throw new TypeError(`tools.${binding.callName}: input must be JSON-serializable`);
  }
  const checked = binding.tool.validate(input);
  if (!checked.success) {
    throw new TypeError(
      `Tool '${binding.tool.name}' failed: invalid input for tools.${binding.callName}: ${checked.error}`,
    );
  }
  return input;
}
