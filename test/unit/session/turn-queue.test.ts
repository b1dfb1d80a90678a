import { describe, expect, it } from "vitest";
import { createTurnQueue } from "../../../src/session/turn-queue.js";

/** A turn that runs until released, resolving with the stop reason it is given. */
function gatedTurn() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: (signal: AbortSignal) => void;
  const start = new Promise<AbortSignal>((resolve) => (started = resolve));
  const work = async (signal: AbortSignal) => {
    started(signal);
    await Promise.race([released, new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()))]);
    return { stopReason: signal.aborted ? ("cancelled" as const) : ("end_turn" as const) };
  };
  return { work, release, start };
}

describe("turn queue", () => {
  it("a turn's signal takes the listeners of many parallel calls without a leak warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      await createTurnQueue().run(async (signal) => {
        // Eleven parallel tool calls with a hook each, and the loop's own listener.
        for (let i = 0; i < 24; i++) signal.addEventListener("abort", () => undefined, { once: true });
        return { stopReason: "end_turn" as const };
      });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  it("runs turns one after another, in order", async () => {
    const queue = createTurnQueue();
    const order: string[] = [];
    const first = gatedTurn();
    const a = queue.run(async (signal) => {
      order.push("a:start");
      const result = await first.work(signal);
      order.push("a:end");
      return result;
    });
    const b = queue.run(async () => {
      order.push("b");
      return { stopReason: "end_turn" as const };
    });
    await first.start;
    expect(queue.running).toBe(true);
    first.release();
    expect(await a).toEqual({ stopReason: "end_turn" });
    expect(await b).toEqual({ stopReason: "end_turn" });
    expect(order).toEqual(["a:start", "a:end", "b"]);
    expect(queue.running).toBe(false);
  });

  it("cancel aborts the running turn and drops the ones queued before it, not later ones", async () => {
    const queue = createTurnQueue();
    const running = gatedTurn();
    const a = queue.run(running.work);
    let queuedRan = false;
    const b = queue.run(async () => {
      queuedRan = true;
      return { stopReason: "end_turn" as const };
    });
    const signal = await running.start;
    queue.cancel();
    expect(signal.aborted).toBe(true);
    const c = queue.run(async () => ({ stopReason: "end_turn" as const }));
    expect(await a).toEqual({ stopReason: "cancelled" });
    expect(await b).toEqual({ stopReason: "cancelled" });
    expect(queuedRan).toBe(false);
    expect(await c).toEqual({ stopReason: "end_turn" });
  });

  it("a failing turn rejects its caller and the next turn still runs", async () => {
    const settled: number[] = [];
    const queue = createTurnQueue({ onSettled: () => settled.push(settled.length) });
    const a = queue.run(async () => {
      throw new Error("boom");
    });
    const b = queue.run(async () => ({ stopReason: "end_turn" as const }));
    await expect(a).rejects.toThrow("boom");
    expect(await b).toEqual({ stopReason: "end_turn" });
    expect(settled).toHaveLength(2);
  });

  it("close waits for the running turn, runs nothing after, and reports only the first close", async () => {
    const queue = createTurnQueue();
    const running = gatedTurn();
    const a = queue.run(running.work);
    await running.start;
    expect(await queue.close()).toBe(true);
    expect(await a).toEqual({ stopReason: "cancelled" });
    expect(await queue.run(async () => ({ stopReason: "end_turn" as const }))).toEqual({ stopReason: "cancelled" });
    expect(await queue.close()).toBe(false);
  });
});
