import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager } from "../../../src/mcp/servers/manager.js";
import { createMcpTrustResolver } from "../../../src/mcp/trust/trust.js";
import { createMcpTrustStore } from "../../../src/mcp/trust/trust-store.js";
import { editorEntry, entry, makeTempDir, run, startEverything, textOf, type RunningServer } from "./helpers.js";

describe("server-everything over Streamable HTTP and SSE on 127.0.0.1", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let http: RunningServer;
  let sse: RunningServer;

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    [http, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")]);
  });
  afterAll(async () => {
    await Promise.all([http?.stop(), sse?.stop()]);
    await cleanup();
  });

  const trust = () =>
    createMcpTrustResolver({ store: createMcpTrustStore({ stateDir: join(dir, "state") }), projectRoot: dir });

  it("connects both, calls tools, and survives one remote going away", async () => {
    const port = new URL(http.url).port;
    const manager = createMcpManager({
      entries: [
        entry("web", {
          type: "http",
          url: "http://127.0.0.1:${EVERYTHING_PORT}/mcp",
          headers: { "X-Test": "${MISSING:-none}" },
        }),
        editorEntry({ name: "stream", type: "sse", url: sse.url, headers: {} }),
      ],
      trust: trust(),
      stateDir: join(dir, "state"),
      env: { EVERYTHING_PORT: port },
    });
    try {
      manager.start();
      await manager.ready();
      expect(manager.describe().map((r) => [r.name, r.transport, r.status])).toEqual([
        ["web", "http", "ok"],
        ["stream", "sse", "ok"],
      ]);
      expect(textOf(await run(manager.tools(), "web_echo", { message: "over http" }))).toBe("Echo: over http");
      expect(textOf(await run(manager.tools(), "stream_echo", { message: "over sse" }))).toBe("Echo: over sse");
      const sum = await run(manager.tools(), "web_get-sum", { a: 2, b: 3 });
      expect(textOf(sum)).toMatch(/5/);

      await http.stop();
      const failed = await run(manager.tools(), "web_echo", { message: "gone" });
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/web: echo failed/);
      expect(manager.describe().find((r) => r.name === "web")!.status).toBe("error");
      expect(manager.tools().some((t) => t.name.startsWith("web_"))).toBe(false);
      expect(textOf(await run(manager.tools(), "stream_echo", { message: "still here" }))).toBe("Echo: still here");
    } finally {
      await manager.close();
    }
  });

  it("reports an unreachable remote as error without blocking others", async () => {
    const manager = createMcpManager({
      entries: [entry("closed", { url: "http://127.0.0.1:1/mcp" }), entry("stream", { type: "sse", url: sse.url })],
      trust: trust(),
      stateDir: join(dir, "state"),
      env: {},
    });
    try {
      manager.start();
      await manager.ready();
      const [closed, stream] = manager.describe();
      expect(closed).toMatchObject({ status: "error", reason: expect.stringMatching(/fetch failed|ECONNREFUSED/i) });
      expect(stream!.status).toBe("ok");
    } finally {
      await manager.close();
    }
  });
});
