import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import type { EvalRun } from "./eval-run.js";
import type { PRELUDE_HELPERS } from "./prelude.js";

export type Helpers = Record<(typeof PRELUDE_HELPERS)[number], QuickJSHandle>;

/**
 * The host side of the functions the prelude gives guest code (console, tools, task, timers). They
 * run while guest code runs; their promises settle from the host's event loop, never inside it.
 */
export abstract class SandboxHostFunctions {
  protected abstract readonly ctx: QuickJSContext;
  protected abstract readonly helpers: Helpers;
  protected abstract readonly callNames: ReadonlySet<string>;
  protected abstract current: EvalRun | null;
  /** Runs a call into the engine; a host exception there makes the sandbox unusable. */
  protected abstract guard<T>(run: EvalRun, body: () => T): T;

  protected requireRun(): EvalRun {
    if (!this.current || this.current.finished) throw new Error("the eval that made this call has already ended");
    return this.current;
  }

  protected hostLog(level: string, text: string): void {
    const prefix = level === "warn" || level === "error" ? `[${level}] ` : "";
    this.current?.console.push(prefix + text);
  }

  protected hostCallTool(callName: string, json: string): QuickJSHandle {
    const run = this.requireRun();
    if (!this.callNames.has(callName)) throw new Error(`tools.${callName} is not available`);
    return this.bridge(run, () => run.host.callTool(callName, json));
  }

  protected hostRunTask(json: string): QuickJSHandle {
    const run = this.requireRun();
    return this.bridge(run, () => run.host.runTask(json));
  }

  /** A guest promise for host work; it settles from the host's event loop, never during guest code. */
  protected bridge(run: EvalRun, job: () => Promise<string>): QuickJSHandle {
    const deferred = this.ctx.newPromise();
    run.pending.add(deferred);
    run.clock.hostCallStarted();
    // Called asynchronously so a host that answers at once still settles outside guest execution.
    Promise.resolve()
      .then(job)
      .then(
        (text) => this.settle(run, deferred, (d) => this.ctx.newString(text).consume((h) => d.resolve(h))),
        (error) => this.settle(run, deferred, (d) => this.ctx.newError(errorFields(error)).consume((h) => d.reject(h))),
      );
    return deferred.handle;
  }

  protected settle(run: EvalRun, deferred: QuickJSDeferredPromise, apply: (d: QuickJSDeferredPromise) => void): void {
    if (run.finished || !run.pending.has(deferred)) return; // the eval ended; its deferreds are gone
    run.pending.delete(deferred);
    run.clock.hostCallEnded();
    try {
      this.guard(run, () => apply(deferred));
    } catch (error) {
      run.crash ??= error;
    }
    run.wake();
  }

  protected hostSetTimer(id: number, ms: number, repeat: boolean): void {
    const run = this.requireRun();
    const delay = Math.min(Math.max(0, ms), 2_147_483_647);
    const fire = () => this.fireTimer(run, id, repeat);
    const timer = repeat ? setInterval(fire, delay) : setTimeout(fire, delay);
    timer.unref();
    run.timers.set(id, timer);
  }

  protected hostClearTimer(id: number): void {
    const timer = this.current?.timers.get(id);
    if (!timer) return;
    clearTimeout(timer);
    this.current?.timers.delete(id);
  }

  protected fireTimer(run: EvalRun, id: number, repeat: boolean): void {
    if (run.finished) return;
    if (!repeat) run.timers.delete(id);
    try {
      this.guard(run, () => {
        const result = this.ctx
          .newNumber(id)
          .consume((h) => this.ctx.callFunction(this.helpers.fireTimer, this.ctx.undefined, h));
        if (result.error) result.error.dispose();
        else result.value.dispose();
      });
    } catch (error) {
      run.crash ??= error;
    }
    run.wake();
  }
}

function errorFields(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "Error", message: String(error) };
}
