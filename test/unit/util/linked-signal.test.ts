import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { linkedSignal } from "../../../src/util/linked-signal.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("linkedSignal", () => {
  it("aborts with the reason of whichever source aborts first, or at once when one has", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal(a.signal, undefined, b.signal);
    b.abort("b went");
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("b went");
    const early = new AbortController();
    early.abort("already");
    expect(linkedSignal(early.signal).signal.reason).toBe("already");
  });

  it("lets go of its listeners once disposed, though its source lives on", async () => {
    const session = new AbortController(); // lives as long as the test
    let held: WeakRef<object> | undefined;
    (() => {
      const linked = linkedSignal(session.signal);
      const client = { big: new Array(1000).fill("x") };
      held = new WeakRef(client);
      // What a library does and never undoes.
      linked.signal.addEventListener("abort", () => client.big.length);
      linked.dispose();
    })();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(held!.deref()).toBeUndefined();
    session.abort();
  });
});
