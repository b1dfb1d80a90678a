import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";
import type { AnyTool, ToolContext, ToolDefinition, ToolDisplay, ToolResult } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/logger.js";
import type { InterpreterLimits } from "./quickjs/limits.js";
import { effectiveAllowlist } from "./calls/ptc.js";
import { readsOnly } from "../gate/decide/offer.js";
import type { SessionMode } from "../gate/decide/modes.js";
import type { SandboxFactory } from "./quickjs/sandbox.js";
import { createInterpreterSession, type EvalOutcome, type InterpreterSession } from "./session.js";
import { createWorkerSandboxFactory, type WorkerSandboxFactory } from "./worker/worker-client.js";
import { pick } from "../tools/hook-input.js";
import { EVAL_TOOL_NAME } from "../tools/registry.js";

export type EvalToolOptions = {
  limits: InterpreterLimits;
  /** Tools code may call as `tools.<camelCaseName>()`; `eval` and `task` are ignored here. */
  allowlist: readonly AnyTool[];
  /** The session's mode: the gate decides which allowlisted tools code may call in it (gate/decide/offer.ts). */
  mode: SessionMode;
  /** Install `task()`; the calling context must provide `runSubagent`. */
  hasSubagents: boolean;
  /** Default: silent. */
  logger?: Logger;
  /**
   * Where interpreters run. Default: a worker thread owned by this tool (started by the first
   * eval, stopped after 30 s without interpreters), each interpreter a capped QuickJS WASM instance.
   */
  createSandbox?: SandboxFactory;
  /** With `createSandbox`: starts its engine early (what `prewarm()` and `warmUp()` call). */
  prewarm?: () => void;
};

export type EvalInput = { code: string };

/** The eval tool, plus a hint to start its engine early. */
export type EvalTool = ToolDefinition<EvalInput> & {
  /**
   * Starts the worker and loads QuickJS in the background (~0.3 s), e.g. right after session/new,
   * so the first eval of the session answers at once. Never throws; does nothing with a custom factory.
   */
  prewarm(): void;
};

const schema = z.object({
  code: z.string().min(1).describe("JavaScript or TypeScript to run; the value of the last expression is returned"),
});

/**
 * The model-facing `eval` tool. Kind `other`: the code is not a shell command, and `execute` would
 * make editors render it as one (terminal styling, "Run command" wording in dialogs).
 *
 * Approval: `eval` itself asks (showing the code from `preview`) when code can call tools with
 * side effects (effect `external`), and runs without asking when every callable tool only reads
 * (effect `none`). Approving it approves running the code, not what the code reaches: each call
 * from code goes through `ctx.callTool`, i.e. the gate with the session's mode (reads outside the
 * project ask, plan mode refuses writes), file rules, hooks and editor events.
 */
export function createEvalTool(options: EvalToolOptions): EvalTool {
  const allowlist = effectiveAllowlist(options.allowlist, options.mode);
  const effect = allowlist.every(readsOnly) ? "none" : "external";
  // Tools created with the same configuration share a turn's interpreter (the agent may rebuild its
  // tool list mid-turn); a different allowlist or limits get their own.
  const stateKey = `interpreter:${JSON.stringify({ tools: allowlist.map((t) => t.name), subagents: options.hasSubagents, limits: options.limits })}`;
  let workers: WorkerSandboxFactory | undefined;
  const ownWorkers = () => (workers ??= createWorkerSandboxFactory({ logger: options.logger }));
  const sandboxFactory: SandboxFactory = (sandboxOptions) =>
    (options.createSandbox ?? ownWorkers().create)(sandboxOptions);

  const sessionFor = (ctx: ToolContext): InterpreterSession => {
    const existing = ctx.turn.state.get(stateKey) as InterpreterSession | undefined;
    if (existing) return existing;
    const session = createInterpreterSession({
      limits: options.limits,
      tools: allowlist,
      subagents: options.hasSubagents,
      logger: options.logger,
      createSandbox: sandboxFactory,
    });
    ctx.turn.state.set(stateKey, session);
    ctx.turn.onEnd(() => {
      session.dispose();
      ctx.turn.state.delete(stateKey);
    });
    return session;
  };

  const tool = defineTool({
    name: EVAL_TOOL_NAME,
    hookName: "Eval",
    hookInput: (i) => pick({ code: i.code }),
    description: describeEval(options),
    schema,
    kind: "other",
    effect,
    present: (input) => ({ title: `eval: ${firstLine(input.code)}` }),
    preview: async (input): Promise<ToolDisplay[]> => [{ type: "text", text: fenced(input.code) }],
    async execute(input, ctx): Promise<ToolResult> {
      let outcome: EvalOutcome;
      try {
        outcome = await sessionFor(ctx).run(input.code, {
          signal: ctx.signal,
          callTool: ctx.callTool ? (name, toolInput) => ctx.callTool!(name, toolInput) : undefined,
          runSubagent: ctx.runSubagent ? (request) => ctx.runSubagent!(request) : undefined,
        });
      } catch (error) {
        // The engine could not start or answer (e.g. the QuickJS package is missing): a tool error, not a crash of the turn.
        options.logger?.warn("eval failed to run", error);
        return {
          content: [{ type: "text", text: `InternalError: the interpreter is unavailable: ${errorMessage(error)}` }],
          isError: true,
        };
      }
      return {
        content: [{ type: "text", text: outcome.output }],
        isError: outcome.status !== "ok",
        rawOutput: { status: outcome.status, toolCalls: outcome.toolCalls, interpreterReset: outcome.lostState },
      };
    },
  });
  const prewarm = () => {
    if (options.createSandbox) return options.prewarm?.();
    ownWorkers()
      .prewarm(options.limits)
      .catch((error: unknown) => options.logger?.debug("interpreter prewarm failed", error));
  };
  // warmUp: the model has started writing an eval, so its engine starts while the code streams in.
  return Object.assign(tool, { prewarm, warmUp: prewarm });
}

function describeEval(options: EvalToolOptions): string {
  const parts = [
    "Run JavaScript (TypeScript syntax allowed) in a sandboxed QuickJS interpreter and return console output plus the value of the last expression.",
    "Top-level await works; top-level variables persist across eval calls within this turn.",
    "No network, modules, process or clock; see the Interpreter section of the system prompt for limits",
  ];
  const tail = options.hasSubagents ? ", the `tools` API and `task()`." : " and the `tools` API.";
  return parts.join(" ") + tail;
}

function firstLine(code: string): string {
  const lines = code
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const first = lines[0] ?? "";
  const clipped = first.length > 60 ? `${first.slice(0, 59)}…` : first;
  return lines.length > 1 && clipped === first ? `${clipped} …` : clipped;
}

function fenced(code: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}js\n${code}\n${fence}`;
}
