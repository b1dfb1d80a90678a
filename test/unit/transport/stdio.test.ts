import * as acp from "@agentclientprotocol/sdk/unstable";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createStdioTransport } from "../../../src/acp/stdio.js";
import { createLogger } from "../../../src/util/logger.js";

// The real SDK connection over our transport, with PassThrough pipes for stdin and stdout.
function setup(options: { onInputEnd?: () => void } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: any[] = [];
  let buffer = "";
  const waiters = new Set<() => void>();
  output.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
    waiters.forEach((w) => w());
  });
  const transport = createStdioTransport({
    input,
    output,
    logger: createLogger({ level: "silent" }),
    limits: { maxMessageBytes: 1 << 20, maxDepth: 64 },
    ...options,
  });
  let release: () => void = () => undefined;
  const app = acp
    .agent({ name: "t" })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
    .onRequest(acp.methods.agent.session.list, ({ params }) => {
      if (params.cwd === "/bigint") return { sessions: [], _meta: { n: 1n } } as never;
      if (params.cwd === "/slow") return new Promise((resolve) => (release = () => resolve({ sessions: [] })));
      return { sessions: [] };
    });
  const connection = app.connect(transport.stream);
  const send = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
  const answerTo = (id: unknown) =>
    new Promise<any>((resolve) => {
      const check = () => {
        const found = lines.find((l) => l.id === id && !l.method);
        if (found) resolve(found);
      };
      waiters.add(check);
      check();
    });
  return { input, transport, connection, send, answerTo, lines, release: () => release() };
}

const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };

describe("stdio transport", () => {
  it("answers a response it cannot encode with -32603 and keeps the connection open", async () => {
    const t = setup();
    t.send(init);
    await t.answerTo(0);
    t.send({ jsonrpc: "2.0", id: 1, method: "session/list", params: { cwd: "/bigint" } });
    expect((await t.answerTo(1)).error).toMatchObject({
      code: -32603,
      message: expect.stringContaining("could not be encoded"),
    });
    t.send({ jsonrpc: "2.0", id: 2, method: "session/list", params: {} });
    expect((await t.answerTo(2)).result).toEqual({ sessions: [] });
  });

  it("keeps the stream open at EOF until close(), answering what was in flight once", async () => {
    let ended = false;
    const t = setup({ onInputEnd: () => (ended = true) });
    t.send(init);
    await t.answerTo(0);
    t.send({ jsonrpc: "2.0", id: "fast", method: "session/list", params: {} });
    t.send({ jsonrpc: "2.0", id: "slow", method: "session/list", params: { cwd: "/slow" } });
    t.input.end();
    expect((await t.answerTo("fast")).result).toEqual({ sessions: [] });
    expect(ended).toBe(true);
    expect(t.transport.inflight()).toBe(1);
    expect(await t.transport.settled(10)).toBe(false);
    t.transport.close("shutting down");
    expect((await t.answerTo("slow")).error).toMatchObject({
      code: -32603,
      message: expect.stringContaining("shutting down"),
    });
    await t.connection.closed;
    t.release();
    // Not a wait for something: a quiet period in which a second answer to "slow" would show up.
    await new Promise((r) => setTimeout(r, 20));
    expect(t.lines.filter((l) => l.id === "slow")).toHaveLength(1);
  });
});
