import type { AnyTool } from "../tools/types.js";
import type { Logger } from "../util/logger.js";
import { createHostCalls, type EvalIO } from "./calls/host-calls.js";
import type { InterpreterLimits } from "./quickjs/limits.js";
import { cancelledText } from "./quickjs/outcome-text.js";
import { bindTools } from "./calls/ptc.js";
import { createSandbox, type EngineOutcome, type Sandbox, type SandboxFactory } from "./quickjs/sandbox.js";

export type EvalOutcome = EngineOutcome & {
  /** Tool and task() calls the eval made. */
  toolCalls: number;
};

export type InterpreterSessionOptions = {
  limits: InterpreterLimits;
  /** Tools callable from code, already filtered to the allowlist. Default none. */
  tools?: readonly AnyTool[];
  /** Install `task()`. Default false. */
  subagents?: boolean;
  /** Default: silent. */
  logger?: Logger;
  /** Clock for the time limit (in-process engines only). Default `performance.now`. */
  now?: () => number;
  /** Where interpreters run. Default `createSandbox` (the calling thread); `createEvalTool` uses a worker. */
  createSandbox?: SandboxFactory;
};

/**
 * The interpreter of one turn: globals persist from one eval to the next, evals run one at a
 * time, and the engine is created on the first eval (nothing is loaded before code runs). When an
 * eval leaves the engine unusable (out of memory, crash) the next eval gets a fresh one.
 */
export interface InterpreterSession {
  run(code: string, io: EvalIO): Promise<EvalOutcome>;
  /** Frees the engine; an eval still running is interrupted first. */
  dispose(): void;
}

export function createInterpreterSession(options: InterpreterSessionOptions): InterpreterSession {
  const create = options.createSandbox ?? createSandbox;
  const bindings = new Map(bindTools(options.tools ?? []).map((b) => [b.callName, b]));
  const sandboxOptions = {
    limits: options.limits,
    tools: [...bindings.values()].map((b) => [b.callName, b.tool.name] as const),
    subagents: options.subagents ?? false,
    logger: options.logger,
    now: options.now,
  };
  let sandbox: Promise<Sandbox> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let disposed = false;

  const acquire = async (): Promise<Sandbox> => {
    if (sandbox) {
      const existing = await sandbox.catch(() => null);
      if (existing?.usable) return existing;
      existing?.dispose();
    }
    const created = create(sandboxOptions);
    sandbox = created;
    created.catch(() => {
      if (sandbox === created) sandbox = null;
    });
    return created;
  };

  const runOne = async (code: string, io: EvalIO): Promise<EvalOutcome> => {
    if (disposed) throw new Error("the interpreter of this turn has been disposed");
    const engine = await acquire();
    // The turn ended (or was cancelled) while the engine was starting.
    if (disposed || io.signal.aborted)
      return { status: "cancelled", output: cancelledText(), lostState: false, toolCalls: 0 };
    const host = createHostCalls({ bindings, io, limits: options.limits });
    try {
      const outcome = await engine.run(code, host);
      return { ...outcome, toolCalls: host.toolCalls };
    } catch (error) {
      if (disposed)
        return {
          status: "cancelled",
          output: cancelledText(),
          lostState: false,
          toolCalls: host.toolCalls,
        };
      throw error;
    } finally {
      host.close();
    }
  };

  return {
    run(code, io) {
      const result = queue.then(() => runOne(code, io));
      queue = result.catch(() => undefined);
      return result;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      void sandbox?.then((engine) => engine.dispose()).catch(() => undefined);
    },
  };
}
