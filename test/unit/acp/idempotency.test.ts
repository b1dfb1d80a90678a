// The v2 idempotency keys' memory (src/acp/v2/idempotency.ts): what is remembered, for how many keys.
import { describe, expect, it } from "vitest";
import { createIdempotencyKeys, KEYS_PER_SESSION } from "../../../src/acp/v2/idempotency.js";

const answer = (messageId: string) => () => Promise.resolve({ messageId });

describe("v2 idempotency keys", () => {
  it("remembers the last KEYS_PER_SESSION keys of a session: an older one inserts again", async () => {
    const keys = createIdempotencyKeys();
    let inserted = 0;
    const insert = () => Promise.resolve({ messageId: `m${++inserted}` });
    for (let i = 0; i <= KEYS_PER_SESSION; i++) await keys.once("s", `k${i}`, insert);
    expect(inserted).toBe(KEYS_PER_SESSION + 1);
    expect(await keys.once("s", `k${KEYS_PER_SESSION}`, insert)).toEqual({ messageId: `m${KEYS_PER_SESSION + 1}` });
    expect(inserted).toBe(KEYS_PER_SESSION + 1);
    await keys.once("s", "k0", insert); // forgotten: the 257th key pushed it out
    expect(inserted).toBe(KEYS_PER_SESSION + 2);
  });

  it("takes a key off the raw request once, by its id; a rejected insert leaves no key", async () => {
    const keys = createIdempotencyKeys();
    const tapped = keys.tap({
      readable: new ReadableStream({
        start(controller) {
          controller.enqueue({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { idempotencyKey: "a" } });
          controller.enqueue({ jsonrpc: "2.0", id: 8, method: "session/new", params: { idempotencyKey: "b" } });
          controller.close();
        },
      }),
    });
    const reader = tapped.readable.getReader();
    while (!(await reader.read()).done);
    expect(keys.take(8)).toBeUndefined();
    expect(keys.take(7)).toBe("a");
    expect(keys.take(7)).toBeUndefined();
    await expect(keys.once("s", "a", () => Promise.reject(new Error("cancelled")))).rejects.toThrow("cancelled");
    expect(await keys.once("s", "a", answer("again"))).toEqual({ messageId: "again" });
  });
});
