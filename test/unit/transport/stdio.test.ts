import * as acp from "@agentclientprotocol/sdk/unstable";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createStdioTransport } from "../../../src/acp/wire/stdio.js";
import { createLogger } from "../../../src/util/logger.js";

// The real SDK connection over our transport, with PassThrough pipes for stdin and stdout.
function setup(options: { onInputEnd?: () => void } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: any[] = [];
  const raw: string[] = [];
  let buffer = "";
  const waiters = new Set<() => void>();
  output.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      raw.push(buffer.slice(0, nl));
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
    waiters.forEach((w) => w());
  });
  const transport = createStdioTransport({
    input,
    output,
    logger: createLogger({ level: "silent" }),
    limits: { maxMessageBytes: 1 << 20, maxDepth: 64, maxValues: 10_000 },
    ...options,
  });
  let release: () => void = () => undefined;
  const app = acp
    .agent({ name: "t" })
    .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
    .onRequest(acp.methods.agent.session.list, ({ params, signal }) => {
      if (params.cwd === "/bigint") return { sessions: [], _meta: { n: 1n } } as never;
      if (params.cwd === "/cancellable")
        return new Promise((resolve) => {
          const cancelled = () => resolve({ sessions: [], _meta: { cancelled: true } });
          if (signal.aborted) cancelled();
          else signal.addEventListener("abort", cancelled);
        });
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
  return { input, transport, connection, send, answerTo, lines, raw, release: () => release() };
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

  it("answers each request with its id exactly as written, also two requests that share one", async () => {
    const t = setup();
    t.send(init);
    await t.answerTo(0);
    const ids = ['"a\\u0041"', "123456789012345678901234567890", "1.50", `"${"é".repeat(5000)}"`, '"twice"', '"twice"'];
    for (const id of ids) t.input.write(`{"jsonrpc":"2.0","id":${id},"method":"session/list","params":{}}\n`);
    t.input.write('{"jsonrpc":"2.0","id":"last","method":"session/list","params":{}}\n');
    await t.answerTo("last");
    const answered = t.raw
      .filter((l) => l.includes('"sessions"'))
      .map((l) => l.slice('{"jsonrpc":"2.0","id":'.length, -',"result":{"sessions":[]}}'.length));
    expect(answered).toEqual([...ids, '"last"']);
  });

  it("cancels the request $/cancel_request names by the editor's id", async () => {
    const t = setup();
    t.send(init);
    await t.answerTo(0);
    t.send({ jsonrpc: "2.0", id: "c\u0041", method: "session/list", params: { cwd: "/cancellable" } });
    t.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "c\u0041" } });
    expect((await t.answerTo("c\u0041")).result).toEqual({ sessions: [], _meta: { cancelled: true } });
  });

  it("answers what is open at close with the ids as written", async () => {
    const t = setup({ onInputEnd: () => undefined });
    t.send(init);
    await t.answerTo(0);
    t.input.write('{"jsonrpc":"2.0","id":98765432109876543210,"method":"session/list","params":{"cwd":"/slow"}}\n');
    t.input.write('{"jsonrpc":"2.0","id":null,"method":"session/list","params":{"cwd":"/slow"}}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(t.transport.inflight()).toBe(2);
    t.transport.close("shutting down");
    await t.connection.closed;
    expect(t.raw.slice(-2).map((l) => l.slice(0, l.indexOf(',"error"')))).toEqual([
      '{"jsonrpc":"2.0","id":98765432109876543210',
      '{"jsonrpc":"2.0","id":null',
    ]);
  });
});
