import type { AnyTool } from "../tools/types.js";
import type { SessionMode } from "../gate/decide/modes.js";
import type { InterpreterLimits } from "./quickjs/limits.js";
import { bindTools, effectiveAllowlist } from "./calls/ptc.js";
import { toolSignature } from "./calls/signatures.js";

export type InterpreterPromptOptions = {
  limits: InterpreterLimits;
  /** Tools callable from code (the same list given to `createEvalTool`). */
  allowlist: readonly AnyTool[];
  /** Whether `task()` is installed. */
  hasSubagents: boolean;
  /** The session's mode: which tools are callable in it is the gate's choice. Default "default". */
  mode?: SessionMode;
  /** Subagent types `task()` accepts, listed for the model. Default: not listed. */
  subagentTypes?: ReadonlyArray<{ name: string; description?: string }>;
};

/** The "### Interpreter" section of the system prompt. */
export function interpreterPromptSection(options: InterpreterPromptOptions): string {
  const { limits, hasSubagents } = options;
  const bindings = bindTools(effectiveAllowlist(options.allowlist, options.mode ?? "default"));
  const mb = Math.round(limits.memoryLimitBytes / (1024 * 1024));
  const waits = hasSubagents ? "tool calls and subagents" : "tool calls";
  const clock = limits.allowClock
    ? "`Date.now()` and `new Date()` read the real clock."
    : "There is no clock: `Date.now()` and `new Date()` without arguments throw (dates from explicit values work).";
  const lines = [
    "### Interpreter",
    "",
    "The `eval` tool runs JavaScript in a sandboxed QuickJS interpreter. Use it for loops, branching, data " +
      "transformation and batches of tool calls, keeping intermediate results in variables instead of the conversation.",
    "",
    "- TypeScript syntax is accepted (types are stripped). Top-level `await` works.",
    "- The value of the last expression is the result (a returned promise is awaited): strings are shown as-is, " +
      "other values as JSON. Console output comes first; `console.warn`/`console.error` lines start with `[warn]`/`[error]`. " +
      "Top-level `return` is not allowed.",
    "- Top-level variables, functions and classes persist across `eval` calls until you finish answering; " +
      "the next user message starts with a fresh interpreter.",
    `- Limits per call: ${limits.timeoutMs} ms of execution (time spent waiting for ${waits} is not counted), ` +
      `${mb} MB of memory, ${limits.maxOutputChars} characters of output (the rest is replaced by \`[truncated N chars]\`), ` +
      `${limits.maxToolCalls} calls to \`tools\`${hasSubagents ? " and `task()`" : ""}. A script that exceeds a limit is stopped with an error.`,
    "- Not available: network (`fetch`), modules (`require`, `import`), `process`, and direct file system access" +
      (bindings.length > 0 ? " (use `tools`)" : "") +
      `. ${clock} \`setTimeout\`/\`setInterval\` fire only while the call is still running; pending timers are dropped when it returns.`,
    "",
    ...toolsSection(bindings),
    ...(hasSubagents ? subagentSection(limits, options.subagentTypes) : []),
  ];
  return lines.join("\n").trimEnd();
}

function toolsSection(bindings: ReturnType<typeof bindTools>): string[] {
  if (bindings.length === 0) return ["No tools are callable from code in this session (`tools` is empty).", ""];
  return [
    "#### API reference — `tools` namespace",
    "",
    "Call tools from code with `await tools.<name>(input)`; the input object uses the tool's own argument names. " +
      "Each call resolves to the tool's text output (`read_file` output comes without line-number prefixes) and " +
      "rejects with `Tool '<name>' failed: <reason>`; catch errors or use `Promise.allSettled`. Independent calls can " +
      "run concurrently with `Promise.all`. Calls from code follow the same permission rules as direct calls.",
    "",
    "```ts",
    ...bindings.map(toolSignature),
    "```",
    "",
  ];
}

function subagentSection(limits: InterpreterLimits, types: InterpreterPromptOptions["subagentTypes"]): string[] {
  const typeLines = (types ?? []).map((t) => `- \`${t.name}\`${t.description ? `: ${t.description}` : ""}`);
  return [
    "#### Subagents — `task()`",
    "",
    "`await task({ description, subagentType, responseSchema? })` runs a subagent with the given task description " +
      "and resolves to its final answer as text. With `responseSchema` (a JSON Schema object) the answer is parsed JSON " +
      `following that schema. Up to ${limits.maxSubagentConcurrency} subagents run at once; further calls wait their turn.`,
    ...(typeLines.length > 0 ? ["", "Subagent types:", ...typeLines] : []),
    "",
    "```ts",
    "const reviews = await Promise.all(files.map((file) =>",
    '  task({ description: `Review ${file} for bugs`, subagentType: "general-purpose",',
    '         responseSchema: { type: "object", properties: { bugs: { type: "array", items: { type: "string" } } }, required: ["bugs"] } })));',
    "```",
    "",
  ];
}
