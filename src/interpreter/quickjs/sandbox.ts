import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import type { Logger } from "../../util/logger.js";
import { silentLogger } from "../../util/logger.js";
import { type EngineHost, EvalRun } from "./eval-run.js";
import type { InterpreterLimits } from "./limits.js";
import { assembleOutput, describeError, type ErrorInfo, PRELUDE_FILE, USER_FILE } from "./output.js";
import type { PreludeConfig } from "./prelude.js";
import { installPrelude } from "./prelude-install.js";
import { cancelledText, promiseTimeoutText, resetNote } from "./outcome-text.js";
import { createEngineInstance, type EngineInstance } from "./quickjs-loader.js";
import { SandboxHostFunctions, type Helpers } from "./sandbox-host.js";
import { type TransformResult, transformForEval } from "./transform.js";

/** bellard QuickJS `JS_EVAL_FLAG_ASYNC`: a global script that may use top-level await and resolves to `{ value }`. */
const JS_EVAL_FLAG_ASYNC = 1 << 7;
/** Free memory below this after an out-of-memory error means the interpreter cannot continue. */
const MEMORY_PROBE_BYTES = 4 * 1024 * 1024;

export type EvalStatus = "ok" | "error" | "timeout" | "cancelled" | "out_of_memory" | "crashed";

export type EngineOutcome = {
  status: EvalStatus;
  /** What the model sees: console lines, then the result or the error; capped, never empty. */
  output: string;
  /** True when the interpreter had to be discarded: globals from earlier evals are gone. */
  lostState: boolean;
};

export type SandboxOptions = {
  limits: InterpreterLimits;
  /** `[callName, toolName]` pairs exposed as `tools.<callName>`. Default none. */
  tools?: ReadonlyArray<readonly [string, string]>;
  /** Install the `task()` global. Default false. */
  subagents?: boolean;
  /** Default: silent. */
  logger?: Logger;
  /** Clock for the time limit. Default `performance.now`. */
  now?: () => number;
};

/** One QuickJS interpreter with its own capped WASM memory; evals run one at a time. */
export interface Sandbox {
  run(code: string, host: EngineHost): Promise<EngineOutcome>;
  /** False after a crash or an out-of-memory error left the engine unusable. */
  readonly usable: boolean;
  dispose(): void;
}

export type SandboxFactory = (options: SandboxOptions) => Promise<Sandbox>;

/** An interpreter on the calling thread. `createWorkerSandboxFactory` runs the same engine off the main thread. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const engine = await createEngineInstance({
    memoryLimitBytes: options.limits.memoryLimitBytes,
    logger: options.logger,
  });
  return new QuickJSSandbox(engine, options);
}

class EngineCrash extends Error {
  override name = "EngineCrash";
}

class QuickJSSandbox extends SandboxHostFunctions implements Sandbox {
  usable = true;
  private readonly rt: QuickJSRuntime;
  protected readonly ctx: QuickJSContext;
  protected readonly helpers: Helpers;
  protected readonly callNames: ReadonlySet<string>;
  private readonly limits: InterpreterLimits;
  private readonly logger: Logger;
  private readonly now: () => number;
  protected current: EvalRun | null = null;
  private busy = false;
  private forceInterrupt = false;
  private disposed = false;
  private disposeRequested = false;

  constructor(
    private readonly engine: EngineInstance,
    options: SandboxOptions,
  ) {
    super();
    this.limits = options.limits;
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? (() => performance.now());
    this.callNames = new Set((options.tools ?? []).map(([callName]) => callName));
    this.rt = engine.module.newRuntime();
    this.rt.setMemoryLimit(this.limits.memoryLimitBytes);
    // Without a stack limit deep recursion overflows the host stack instead of throwing in the guest.
    this.rt.setMaxStackSize(this.limits.maxStackBytes);
    this.rt.setInterruptHandler(() => this.shouldInterrupt());
    this.ctx = this.rt.newContext();
    this.helpers = this.installPrelude({
      tools: (options.tools ?? []).map(([callName, toolName]) => [callName, toolName]),
      task: options.subagents ?? false,
      allowClock: this.limits.allowClock,
    });
  }

  async run(code: string, host: EngineHost): Promise<EngineOutcome> {
    if (!this.usable || this.disposed) throw new Error("this interpreter can no longer run code");
    if (this.busy) throw new Error("this interpreter is already running an eval");
    this.busy = true;
    try {
      // Before the clock starts: loading and running the transform is not the script's time.
      const transformed = await transformForEval(code);
      return await this.runTransformed(transformed, host);
    } finally {
      this.busy = false;
      if (this.disposeRequested) this.dispose();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    if (this.busy) {
      // The turn ended while an eval was still running: stop it; the run disposes on its way out.
      this.disposeRequested = true;
      if (this.current) {
        this.current.interrupt ??= "abort";
        this.current.wake();
      }
      return;
    }
    this.disposed = true;
    if (!this.usable) return; // a crashed engine may abort in its destructor; dropping it is enough
    try {
      for (const handle of Object.values(this.helpers)) handle.dispose();
      this.ctx.dispose();
      this.rt.dispose();
    } catch (error) {
      this.logger.debug("interpreter dispose failed", error);
    }
  }

  private async runTransformed(transformed: TransformResult, host: EngineHost): Promise<EngineOutcome> {
    const run = new EvalRun(host, this.limits, this.now);
    this.current = run;
    const unsubscribe = host.onCancel(() => run.wake());
    try {
      if (host.isCancelled() || this.disposeRequested) return this.outcome(run, "cancelled", cancelledText());
      if (!transformed.ok) return this.outcome(run, "error", `${transformed.name}: ${transformed.message}`);
      return await this.execute(run, transformed.code);
    } catch (error) {
      if (!(error instanceof EngineCrash)) throw error;
      return this.crashed(run, error);
    } finally {
      unsubscribe();
      this.finish(run);
    }
  }

  private async execute(run: EvalRun, code: string): Promise<EngineOutcome> {
    const evaluated = this.guard(run, () => this.ctx.evalCode(code, USER_FILE, JS_EVAL_FLAG_ASYNC));
    if (evaluated.error) return this.failed(run, evaluated.error);
    const settled = this.guard(run, () => {
      const result = this.ctx.callFunction(this.helpers.settle, this.ctx.undefined, evaluated.value);
      evaluated.value.dispose();
      return result;
    });
    if (settled.error) return this.failed(run, settled.error);
    const promise = settled.value;
    try {
      for (;;) {
        this.throwIfCrashed(run);
        this.runJobs(run);
        this.throwIfCrashed(run);
        const state = this.guard(run, () => this.ctx.getPromiseState(promise));
        if (state.type === "fulfilled") return this.succeeded(run, state.value);
        if (state.type === "rejected") return this.failed(run, state.error);
        if (run.interrupt || run.host.isCancelled()) return this.interrupted(run, null);
        if (run.remainingMs() <= 0) return this.outcome(run, "timeout", promiseTimeoutText(this.limits.timeoutMs));
        await run.waitForEvent(run.clock.hostCallsInFlight === 0 ? run.remainingMs() : null);
      }
    } finally {
      if (this.usable && promise.alive) promise.dispose();
    }
  }

  private runJobs(run: EvalRun): void {
    // A job that throws (interrupted, out of memory) stops executePendingJobs; keep going until the
    // queue is empty so the other jobs still run or see the interrupt.
    this.guard(run, () => {
      for (let round = 0; round < 1000 && this.rt.hasPendingJob(); round++) {
        const result = this.rt.executePendingJobs();
        if (!result.error) break;
        result.error.dispose();
        if (run.interrupt) break;
      }
    });
  }

  private throwIfCrashed(run: EvalRun): void {
    if (run.crash === null) return;
    throw run.crash instanceof EngineCrash ? run.crash : new EngineCrash(messageOf(run.crash));
  }

  private succeeded(run: EvalRun, value: QuickJSHandle): EngineOutcome {
    const text = this.guard(run, () => {
      try {
        if (this.ctx.typeof(value) === "undefined") return "";
        const budget = this.ctx.newNumber(this.limits.maxOutputChars);
        const formatted = this.ctx.callFunction(this.helpers.format, this.ctx.undefined, value, budget);
        budget.dispose();
        if (formatted.error) {
          formatted.error.dispose();
          return "[the result could not be formatted]";
        }
        return formatted.value.consume((h) => this.ctx.getString(h));
      } finally {
        value.dispose();
      }
    });
    return this.outcome(run, "ok", text);
  }

  private failed(run: EvalRun, error: QuickJSHandle): EngineOutcome {
    const info = this.errorInfo(run, error);
    if (run.interrupt) return this.interrupted(run, info);
    // When the heap is full QuickJS cannot even allocate the error and throws null instead.
    const nullish = info === null || info.nullish === true;
    const outOfMemory = info?.message === "out of memory" || (nullish && this.memoryAtCap());
    if (outOfMemory || nullish) {
      const exhausted = !this.probeMemory(run);
      if (outOfMemory || exhausted) return this.outOfMemory(run, info, exhausted);
    }
    const resolved: ErrorInfo = info ?? { name: "Error", message: "unknown error" };
    const hint = /return not in a function/.test(resolved.message)
      ? " (top-level return is not allowed: the value of the last expression is the result)"
      : "";
    return this.outcome(run, "error", describeError({ ...resolved, message: resolved.message + hint }));
  }

  private interrupted(run: EvalRun, info: ErrorInfo | null): EngineOutcome {
    if (run.interrupt === "abort" || run.host.isCancelled()) return this.outcome(run, "cancelled", cancelledText());
    if (info === null) return this.outcome(run, "timeout", promiseTimeoutText(this.limits.timeoutMs));
    const head = `TimeoutError: execution interrupted after ${this.limits.timeoutMs} ms (limit: interpreter.timeout_ms)`;
    return this.outcome(run, "timeout", describeError({ name: head, message: "", stack: info.stack }));
  }

  private outOfMemory(run: EvalRun, info: ErrorInfo | null, exhausted: boolean): EngineOutcome {
    const mb = Math.round(this.limits.memoryLimitBytes / (1024 * 1024));
    const text = describeError({
      name: "InternalError",
      message: `out of memory (limit: ${mb} MB, interpreter.memory_limit_mb)`,
      stack: info?.stack,
    });
    if (!exhausted) return this.outcome(run, "out_of_memory", text);
    this.usable = false;
    return this.outcome(run, "out_of_memory", `${text}\n${resetNote()}`, true);
  }

  private crashed(run: EvalRun, error: EngineCrash): EngineOutcome {
    this.usable = false;
    this.logger.debug("interpreter engine crashed", error.message);
    const text =
      `InternalError: the interpreter crashed (${error.message}), usually from nesting or recursion too deep ` +
      `for the host stack (limit: interpreter.max_stack_kb)\n${resetNote()}`;
    return this.outcome(run, "crashed", text, true);
  }

  private outcome(run: EvalRun, status: EvalStatus, tail: string, lostState = false): EngineOutcome {
    const output = assembleOutput(
      { console: run.console.text, consoleDropped: run.console.droppedChars, tail },
      this.limits.maxOutputChars,
    );
    return { status, output, lostState };
  }

  private errorInfo(run: EvalRun, error: QuickJSHandle): (ErrorInfo & { nullish?: boolean }) | null {
    return this.guard(run, () => {
      try {
        const described = this.ctx.callFunction(this.helpers.errorInfo, this.ctx.undefined, error);
        if (described.error) {
          described.error.dispose();
          return null;
        }
        return JSON.parse(described.value.consume((h) => this.ctx.getString(h))) as ErrorInfo & { nullish?: boolean };
      } finally {
        error.dispose();
      }
    });
  }

  private memoryAtCap(): boolean {
    return this.engine.memory.buffer.byteLength + MEMORY_PROBE_BYTES >= this.engine.maxBytes;
  }

  /** Whether a few MiB can still be allocated; a heap full of live data cannot run anything more. */
  private probeMemory(run: EvalRun): boolean {
    return this.guard(run, () => {
      const result = this.ctx.evalCode(`new ArrayBuffer(${MEMORY_PROBE_BYTES}).byteLength`, PRELUDE_FILE, 0);
      if (result.error) {
        result.error.dispose();
        return false;
      }
      result.value.dispose();
      return true;
    });
  }

  private finish(run: EvalRun): void {
    run.end();
    this.current = null;
    if (!this.usable) return;
    const exitCode = process.exitCode;
    try {
      for (const deferred of run.pending) deferred.dispose();
      run.pending.clear();
      if (run.interrupt || run.host.isCancelled()) this.drainInterrupted();
      const reset = this.ctx.callFunction(this.helpers.resetTimers, this.ctx.undefined);
      if (reset.error) reset.error.dispose();
      else reset.value.dispose();
    } catch (error) {
      process.exitCode = exitCode;
      this.usable = false;
      this.logger.debug("interpreter cleanup failed", error);
    }
  }

  /** Lets queued jobs of an interrupted script run into the interrupt instead of into the next eval. */
  private drainInterrupted(): void {
    this.forceInterrupt = true;
    try {
      for (let round = 0; round < 1000 && this.rt.hasPendingJob(); round++) {
        const result = this.rt.executePendingJobs();
        if (result.error) result.error.dispose();
      }
    } finally {
      this.forceInterrupt = false;
    }
  }

  private shouldInterrupt(): boolean {
    if (this.forceInterrupt) return true;
    return this.current?.shouldInterrupt() ?? false;
  }

  /**
   * Every call into the engine goes through here. A host exception (the host stack overflowing
   * inside deep recursion, an engine abort) leaves the engine in an unknown state: the sandbox
   * becomes unusable and the eval reports a crash; the host process is unaffected.
   */
  protected guard<T>(run: EvalRun, body: () => T): T {
    const exitCode = process.exitCode;
    run.clock.guestEnter();
    try {
      return body();
    } catch (error) {
      // The emscripten runtime sets process.exitCode when it thinks the program exited.
      process.exitCode = exitCode;
      this.usable = false;
      throw error instanceof EngineCrash
        ? error
        : new EngineCrash(error instanceof Error ? error.message : String(error));
    } finally {
      run.clock.guestExit();
    }
  }

  // ---- host functions called from the prelude (always while guest code is running) ----

  private installPrelude(config: PreludeConfig): Helpers {
    const ctx = this.ctx;
    return installPrelude(
      ctx,
      {
        log: (level, text) => this.hostLog(ctx.getString(level), ctx.getString(text)),
        callTool: (name, json) => this.hostCallTool(ctx.getString(name), ctx.getString(json)),
        runTask: (json) => this.hostRunTask(ctx.getString(json)),
        setTimer: (id, ms, repeat) =>
          this.hostSetTimer(ctx.getNumber(id), ctx.getNumber(ms), ctx.dump(repeat) === true),
        clearTimer: (id) => this.hostClearTimer(ctx.getNumber(id)),
      },
      config,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
