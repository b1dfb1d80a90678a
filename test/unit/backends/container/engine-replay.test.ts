import { Agent } from "node:http";
import { describe, expect, it } from "vitest";
import { replayHungUpRequests, type Docker } from "../../../../src/backends/container/engine.js";

// The ssh:// engine's kept-alive channels can be closed under a request ("socket hang up"). What may
// be sent again is what reads (GET, HEAD); anything that does something (a container made, a command
// started) must never be sent twice, so it goes on a fresh channel and its error is the caller's.

type Dialled = { method: string; agent: Agent };

function hangingUpModem(failures: number) {
  const keptAlive = new Agent();
  const dialled: Dialled[] = [];
  const modem = {
    agent: keptAlive,
    dial(options: Record<string, unknown>, callback: (error: unknown, result?: unknown) => void) {
      dialled.push({ method: String(options.method), agent: modem.agent });
      if (dialled.length <= failures) callback(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
      else callback(null, "answered");
    },
  };
  return { docker: { modem } as unknown as Docker, keptAlive, dialled };
}

const dial = (docker: Docker, method: string) =>
  new Promise<unknown>((resolve) =>
    (docker.modem as unknown as { dial: (o: object, cb: (e: unknown, r?: unknown) => void) => void }).dial(
      { method },
      (error, result) => resolve(error ?? result),
    ),
  );

describe("requests over kept-alive engine channels", () => {
  it("a GET that meets a hung-up channel is sent once more, on the kept-alive agent", async () => {
    const { docker, keptAlive, dialled } = hangingUpModem(1);
    const fresh = new Agent();
    replayHungUpRequests(docker, fresh);
    expect(await dial(docker, "GET")).toBe("answered");
    expect(dialled).toEqual([
      { method: "GET", agent: keptAlive },
      { method: "GET", agent: keptAlive },
    ]);
  });

  it("a POST is never sent twice: it goes on a fresh channel and a hang-up is its caller's error", async () => {
    const { docker, keptAlive, dialled } = hangingUpModem(1);
    const fresh = new Agent();
    replayHungUpRequests(docker, fresh);
    expect(await dial(docker, "POST")).toMatchObject({ code: "ECONNRESET" });
    expect(dialled).toEqual([{ method: "POST", agent: fresh }]);
    // The kept-alive agent is back for the next request.
    expect((docker.modem as unknown as { agent: Agent }).agent).toBe(keptAlive);
  });
});
