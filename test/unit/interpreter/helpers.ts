import { z } from "zod";
import { defineTool } from "../../../src/tools/define-tool.js";
import type { EngineHost } from "../../../src/interpreter/quickjs/eval-run.js";
import type { AnyTool, SubagentRequest, ToolContext, ToolResult, TurnScope } from "../../../src/tools/types.js";
import { pollUntil } from "../../support/poll.js";

/** An engine host with no tools, cancelled through `signal`. */
export function bareHost(signal: AbortSignal = new AbortController().signal): EngineHost {
  return {
    callTool: async (name) => {
      throw new Error(`no tool ${name}`);
    },
    runTask: async () => {
      throw new Error("no subagents");
    },
    isCancelled: () => signal.aborted,
    onCancel(listener) {
      signal.addEventListener("abort", listener, { once: true });
      return () => signal.removeEventListener("abort", listener);
    },
  };
}

export type FakeTurn = TurnScope & { end(): void; ended: number };

export function fakeTurn(id = "turn-1"): FakeTurn {
  const callbacks: Array<() => void> = [];
  const turn: FakeTurn = {
    id,
    state: new Map(),
    ended: 0,
    onEnd(dispose) {
      callbacks.push(dispose);
    },
    end() {
      for (const callback of callbacks.splice(0)) callback();
      turn.ended += 1;
    },
  };
  return turn;
}

export type CallRecord = { name: string; input: unknown };

/**
 * A ToolContext whose callTool runs tools from `registry` the way the agent pipeline would
 * (validate, then execute), recording every call, and rejecting names a deny rule blocks.
 */
export function fakeContext(options: {
  turn: FakeTurn;
  registry?: readonly AnyTool[];
  signal?: AbortSignal;
  runSubagent?: (request: SubagentRequest) => Promise<ToolResult>;
  deny?: readonly string[];
}): ToolContext & { calls: CallRecord[] } {
  const calls: CallRecord[] = [];
  const registry = new Map((options.registry ?? []).map((tool) => [tool.name, tool]));
  const ctx: ToolContext & { calls: CallRecord[] } = {
    calls,
    sessionId: "session-1",
    toolCallId: "call-eval-1",
    cwd: "/project",
    roots: ["/project"],
    backend: {} as ToolContext["backend"],
    signal: options.signal ?? new AbortController().signal,
    limits: { shellTimeoutMs: 1000, shellOutputChars: 1000 },
    turn: options.turn,
    progress: () => undefined,
    async callTool(name, input) {
      calls.push({ name, input });
      if (options.deny?.includes(name))
        return {
          content: [{ type: "text", text: `Permission denied: ${name} is blocked by a deny rule` }],
          isError: true,
        };
      const tool = registry.get(name);
      if (!tool) return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
      const checked = tool.validate(input);
      if (!checked.success) return { content: [{ type: "text", text: checked.error }], isError: true };
      return tool.execute(checked.data, ctx);
    },
    runSubagent: options.runSubagent,
  };
  return ctx;
}

/** read_file over an in-memory file map, formatted like the real tool (`cat -n` style). */
export function fakeReadFile(files: Record<string, string>): AnyTool {
  return defineTool({
    name: "read_file",
    hookName: "Read",
    description: "Read a file from the filesystem. Returns numbered lines.",
    schema: z.object({
      file_path: z.string().describe("Absolute path"),
      offset: z.number().int().optional(),
      limit: z.number().int().optional(),
    }),
    kind: "read",
    effect: "read",
    present: (input) => ({ title: `Read ${input.file_path}` }),
    async execute(input) {
      const content = files[input.file_path];
      if (content === undefined)
        return { content: [{ type: "text", text: `Error: file not found: ${input.file_path}` }], isError: true };
      const text = content
        .split("\n")
        .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`)
        .join("\n");
      return { content: [{ type: "text", text }] };
    },
  });
}

/** A plain ToolDefinition (no zod) that lists "files" and counts its calls. */
export function fakeLs(entries: string[]): AnyTool & { count: number } {
  const tool = {
    count: 0,
    name: "ls",
    hookName: "LS",
    description: "List a directory.",
    jsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    kind: "search" as const,
    effect: "read" as const,
    validate(raw: unknown) {
      const path = (raw as { path?: unknown } | null)?.path;
      return typeof path === "string"
        ? { success: true as const, data: { path } }
        : { success: false as const, error: "path: expected string" };
    },
    present: () => ({ title: "ls" }),
    async execute(): Promise<ToolResult> {
      tool.count += 1;
      return { content: [{ type: "text", text: entries.join("\n") }] };
    },
  };
  return tool;
}

/** A write tool (not read-only) that records what it wrote. */
export function fakeWriteFile(written: Record<string, string>): AnyTool {
  return defineTool({
    name: "write_file",
    hookName: "Write",
    description: "Write a file.",
    schema: z.object({ file_path: z.string(), content: z.string() }),
    kind: "edit",
    effect: "edit",
    present: (input) => ({ title: `Write ${input.file_path}` }),
    async execute(input) {
      written[input.file_path] = input.content;
      return { content: [{ type: "text", text: `Wrote ${input.file_path}` }] };
    },
  });
}

export function text(result: ToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/** Polls until `condition` holds (the worker starts asynchronously); fails after 10 s. */
export const waitFor = (condition: () => boolean, what: string): Promise<void> =>
  pollUntil(condition, what, { intervalMs: 5 });
