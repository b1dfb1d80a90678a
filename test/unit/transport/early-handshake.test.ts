import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { acceptEarlyInitialize, startEarlyHandshake, type EarlyPreface } from "../../../src/acp/early-handshake.js";
import { createAcpServer } from "../../../src/acp/server.js";
import { createStdioTransport } from "../../../src/acp/stdio.js";
import { parseCliArgs } from "../../../src/cli/args.js";
import { createServices } from "../../../src/cli/services.js";
import { createLogger } from "../../../src/util/logger.js";

// The early handshake answers initialize before the SDK is loaded. Its answer must be byte for byte
// the one the SDK path gives, so each case below runs through both.

const VERSION = "9.9.9-test";
const home = mkdtempSync(join(tmpdir(), "deep-acp-early-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function agent(preface?: EarlyPreface, input = new PassThrough()) {
  const errors: string[] = [];
  const logger = createLogger({ level: "error", write: (line) => void errors.push(line) });
  const output = new PassThrough();
  const raw: string[] = [];
  let buffer = "";
  const waiters = new Set<() => void>();
  output.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      raw.push(buffer.slice(0, nl + 1));
      buffer = buffer.slice(nl + 1);
    }
    waiters.forEach((w) => w());
  });
  const services = createServices({ cli: parseCliArgs([]), env: {}, logger, home });
  const transport = createStdioTransport({ input, output, logger, preface });
  createAcpServer({ services, version: VERSION, logger }).app.connect(transport.stream);
  const answerTo = (id: unknown) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const found = raw.find((l) => JSON.parse(l).id === id);
        if (found) resolve(found);
      };
      waiters.add(check);
      check();
    });
  return { input, output, raw, errors, answerTo, close: () => transport.close("test over") };
}

async function sdkAnswer(line: string, id: unknown): Promise<string> {
  const a = agent();
  a.input.write(line);
  const answer = await a.answerTo(id);
  a.close();
  return answer;
}

const request = (id: unknown, params: unknown) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params })}\n`;

describe("early initialize", () => {
  const accepted: Array<[string, unknown, unknown]> = [
    ["bare", 0, { protocolVersion: 1 }],
    ["empty capabilities", 1, { protocolVersion: 1, clientCapabilities: {} }],
    [
      "zed-like",
      7,
      {
        protocolVersion: 1,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          _meta: { terminal_output: true, "terminal-auth": true },
        },
        clientInfo: { name: "zed", title: "Zed", version: "0.210.0" },
      },
    ],
    [
      "terminal auth",
      "abc",
      { protocolVersion: 1, clientCapabilities: { auth: { terminal: true }, session: { notices: {} } } },
    ],
    [
      "malformed capabilities fall back",
      3,
      { protocolVersion: 1, clientCapabilities: { fs: "yes", auth: { terminal: "yes" }, _meta: 5 }, clientInfo: 12 },
    ],
    ["capabilities not an object", 4, { protocolVersion: 1, clientCapabilities: 5, _meta: { x: 1 } }],
  ];
  for (const [name, id, params] of accepted) {
    it(`answers ${name} exactly as the SDK path does`, async () => {
      const line = request(id, params);
      const early = acceptEarlyInitialize(Buffer.from(line.trimEnd()), VERSION);
      expect(early?.line).toBeDefined();
      expect(early!.line).toBe(await sdkAnswer(line, id));
    });
  }

  const declined: Array<[string, string]> = [
    ["another protocol version", request(1, { protocolVersion: 2 })],
    ["a string version", request(1, { protocolVersion: "1" })],
    ["no params", `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" })}\n`],
    ["a null id", request(null, { protocolVersion: 1 })],
    ["a fractional id", request(1.5, { protocolVersion: 1 })],
    ["a notification", `${JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: { protocolVersion: 1 } })}\n`],
    ["another method", `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/list", params: {} })}\n`],
    ["a long line", request(1, { protocolVersion: 1, clientInfo: { name: "x".repeat(2000), version: "1" } })],
    ["deep nesting", request(1, { protocolVersion: 1, _meta: { a: { b: { c: { d: { e: { f: {} } } } } } } })],
    ["a batch", `[${request(1, { protocolVersion: 1 }).trimEnd()}]\n`],
    ["bad JSON", '{"jsonrpc":"2.0",\n'],
  ];
  for (const [name, line] of declined) {
    it(`leaves ${name} to the SDK`, () => {
      expect(acceptEarlyInitialize(Buffer.from(line.trimEnd()), VERSION)).toBeUndefined();
    });
  }

  it("answers once, then serves requests sent before the SDK's own initialize ran", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const written: string[] = [];
    output.setEncoding("utf8").on("data", (c: string) => written.push(c));
    const early = startEarlyHandshake({ input, output, version: VERSION });
    const init = request(5, { protocolVersion: 1, clientCapabilities: {} });
    input.write(init);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.join("")).toBe(await sdkAnswer(init, 5));
    // The editor, answered, asks for more before the transport exists.
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 6, method: "session/list", params: {} })}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    const a = agent(early.handover(), input);
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 8, method: "session/list", params: {} })}\n`);
    expect(JSON.parse(await a.answerTo(6))).toEqual({ jsonrpc: "2.0", id: 6, result: { sessions: [] } });
    expect(JSON.parse(await a.answerTo(8))).toEqual({ jsonrpc: "2.0", id: 8, result: { sessions: [] } });
    expect(a.raw.filter((l) => JSON.parse(l).id === 5)).toEqual([]);
    expect(a.errors).toEqual([]);
    a.close();
  });

  it("hands a declined first line and everything after it to the SDK", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const early = startEarlyHandshake({ input, output, version: VERSION });
    input.write(request(1, { protocolVersion: 2 }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(output.read()).toBeNull();
    const a = agent(early.handover(), input);
    expect(JSON.parse(await a.answerTo(1)).result.protocolVersion).toBe(1);
    a.close();
  });
});
