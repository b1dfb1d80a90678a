import type { QuickJSDeferredPromise } from "quickjs-emscripten-core";
import { EvalClock } from "./eval-clock.js";
import type { InterpreterLimits } from "./limits.js";
import { ConsoleCollector } from "./output.js";

/**
 * What the engine needs from the host during one eval. The engine knows tools only by name and
 * passes their input as JSON text; validation, budgets and the actual calls happen on the host
 * side (see host-calls.ts), which may be another thread.
 */
export interface EngineHost {
  /** Resolves to the text the guest receives; a rejection's name and message become the guest's error. */
  callTool(callName: string, inputJson: string): Promise<string>;
  /** Runs `task()`; resolves to the subagent's answer text. */
  runTask(requestJson: string): Promise<string>;
  /** Polled by the interrupt handler while guest code runs: must be cheap and synchronous. */
  isCancelled(): boolean;
  /** Calls `listener` when the eval is cancelled, so a waiting eval wakes up; returns an unsubscribe function. */
  onCancel(listener: () => void): () => void;
}

export type InterruptReason = "timeout" | "abort";

/** State of one eval: its output, budget, clock, in-flight host calls and timers. */
export class EvalRun {
  readonly console: ConsoleCollector;
  readonly clock: EvalClock;
  readonly pending = new Set<QuickJSDeferredPromise>();
  readonly timers = new Map<number, NodeJS.Timeout>();
  finished = false;
  interrupt: InterruptReason | null = null;
  /** A host exception from the engine during a callback; the run loop turns it into a crash. */
  crash: unknown = null;
  private waiter: (() => void) | null = null;
  private woken = false;

  constructor(
    readonly host: EngineHost,
    readonly limits: InterpreterLimits,
    now: () => number,
  ) {
    this.console = new ConsoleCollector(limits.maxOutputChars);
    this.clock = new EvalClock(now);
  }

  /** Called by the interrupt handler while guest code runs. */
  shouldInterrupt(): boolean {
    if (this.interrupt) return true;
    if (this.host.isCancelled()) this.interrupt = "abort";
    else if (this.clock.elapsed() > this.limits.timeoutMs) this.interrupt = "timeout";
    return this.interrupt !== null;
  }

  remainingMs(): number {
    return Math.max(0, this.limits.timeoutMs - this.clock.elapsed());
  }

  /** Something happened (a host call settled, a timer fired, the signal aborted): re-check the script. */
  wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter();
    else this.woken = true;
  }

  /** Waits for `wake()`, or `timeoutMs` when given. */
  waitForEvent(timeoutMs: number | null): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = timeoutMs === null ? undefined : setTimeout(() => this.wake(), timeoutMs + 1);
      this.waiter = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Stops everything the eval started on the host; late results are ignored after this. */
  end(): void {
    this.finished = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}
