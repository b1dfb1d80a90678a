import { describe, expect, it } from "vitest";
import { ModelApiError } from "../../../src/model/errors.js";
import {
  abortableSleep,
  backoffDelayMs,
  isRetryableStatus,
  parseRetryAfter,
  withRetry,
} from "../../../src/model/wire/retry.js";
import type { ModelEvent } from "../../../src/model/types.js";
import { collect, instantRetry } from "./helpers.js";

const doneEvent: ModelEvent = {
  type: "done",
  stopReason: "end_turn",
  message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
  usage: { inputTokens: 1, outputTokens: 1 },
};

describe("retry policy", () => {
  it("classifies statuses", () => {
    expect([408, 409, 429, 500, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  it("reads retry-after-ms, retry-after seconds and retry-after dates", () => {
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }))).toBe(1500);
    expect(parseRetryAfter(new Headers({ "retry-after": "2" }))).toBe(2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });

  it("doubles the backoff from 500 ms, caps it at 20 s and jitters the upper half", () => {
    const max = { random: () => 1 };
    expect([1, 2, 3, 4, 7, 20].map((n) => backoffDelayMs(n, max))).toEqual([500, 1000, 2000, 4000, 20_000, 20_000]);
    expect(backoffDelayMs(1, { random: () => 0 })).toBe(250);
    expect(backoffDelayMs(2, { baseDelayMs: 10, random: () => 0.5 })).toBe(15);
  });

  it("ends an abortable sleep as soon as the signal fires", async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
  });

  it("retries failures before content and reports each retry", async () => {
    const { delays, options } = instantRetry();
    let calls = 0;
    const events = await collect(
      withRetry(
        async function* () {
          calls++;
          if (calls < 3) throw new ModelApiError("busy", { status: 503, retryable: true });
          yield doneEvent;
        },
        { signal: new AbortController().signal, retry: options },
      ),
    );
    expect(calls).toBe(3);
    expect(events.map((e) => e.type)).toEqual(["retry", "retry", "done"]);
    expect(events[1]).toEqual({ type: "retry", attempt: 2, delayMs: 1000, reason: "busy" });
    expect(delays).toEqual([500, 1000]);
  });

  it("never retries once text was emitted", async () => {
    const { options } = instantRetry();
    let calls = 0;
    const events = await collect(
      withRetry(
        async function* () {
          calls++;
          yield { type: "text_delta", text: "partial" } as ModelEvent;
          throw new ModelApiError("connection reset", { retryable: true });
        },
        { signal: new AbortController().signal, retry: options },
      ),
    );
    expect(calls).toBe(1);
    expect(events).toEqual([
      { type: "text_delta", text: "partial" },
      { type: "error", message: "connection reset (the response was interrupted)", aborted: false },
    ]);
  });

  it("gives up when the server asks to wait longer than allowed", async () => {
    const { options } = instantRetry();
    const events = await collect(
      withRetry(
        async function* () {
          throw new ModelApiError("slow down", { status: 429, retryable: true, retryAfterMs: 3_600_000 });
        },
        { signal: new AbortController().signal, retry: options },
      ),
    );
    expect(events).toEqual([{ type: "error", message: "slow down", aborted: false, status: 429, exhausted: true }]);
  });

  it("reports our own bugs once instead of retrying them", async () => {
    const { options } = instantRetry();
    let calls = 0;
    const events = await collect(
      withRetry(
        async function* () {
          calls++;
          throw new TypeError("x is undefined");
        },
        { signal: new AbortController().signal, retry: options },
      ),
    );
    expect(calls).toBe(1);
    expect(events).toEqual([{ type: "error", message: "Model client failed: x is undefined", aborted: false }]);
  });

  it("stops retrying when aborted during the wait", async () => {
    const controller = new AbortController();
    const events = await collect(
      withRetry(
        async function* () {
          throw new ModelApiError("busy", { status: 500, retryable: true });
        },
        {
          signal: controller.signal,
          retry: {
            sleep: async () => controller.abort(),
          },
        },
      ),
    );
    expect(events.map((e) => e.type)).toEqual(["retry", "error"]);
    expect(events[1]).toMatchObject({ aborted: true });
  });

  it("never starts an attempt when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const events = await collect(
      withRetry(
        async function* () {
          calls++;
          yield doneEvent;
        },
        { signal: controller.signal, retry: instantRetry().options },
      ),
    );
    expect(calls).toBe(0);
    expect(events).toEqual([{ type: "error", message: "Request aborted", aborted: true }]);
  });

  it("ends with one aborted error when the signal fires mid-stream", async () => {
    const controller = new AbortController();
    let calls = 0;
    const events = await collect(
      withRetry(
        async function* () {
          calls++;
          yield { type: "text_delta", text: "par" } satisfies ModelEvent;
          controller.abort();
          throw new DOMException("This operation was aborted", "AbortError");
        },
        { signal: controller.signal, retry: instantRetry().options },
      ),
    );
    expect(calls).toBe(1);
    expect(events).toEqual([
      { type: "text_delta", text: "par" },
      { type: "error", message: "Request aborted", aborted: true },
    ]);
  });
});
