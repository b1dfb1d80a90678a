import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import {
  acceptEarlyInitialize,
  startEarlyHandshake,
  type EarlyPreface,
} from "../../../src/acp/early/early-handshake.js";
import { plainSessionNewParams } from "../../../src/acp/early/early-params.js";
import { earlySessionNewResult } from "../../../src/acp/early/early-session.js";
import { createAcpServer } from "../../../src/acp/server.js";
import { createStdioTransport } from "../../../src/acp/wire/stdio.js";
import { parseCliArgs } from "../../../src/cli/args/args.js";
import { createCoreServices } from "../../../src/cli/services/core-services.js";
import { createServices } from "../../../src/cli/services/services.js";
import { createLogger } from "../../../src/util/logger.js";
import { pollUntil } from "../../support/poll.js";

// The early handshake answers initialize before the SDK is loaded. Its answer must be byte for byte
// the one the SDK path gives, so each case below runs through both.

const VERSION = "9.9.9-test";
const home = mkdtempSync(join(tmpdir(), "deep-acp-early-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const ENV = { ANTHROPIC_API_KEY: "early-test-key" };

function agent(preface?: EarlyPreface, input = new PassThrough(), env: NodeJS.ProcessEnv = ENV) {
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
  const services = createServices({ cli: parseCliArgs([]), env, logger, home });
  const transport = createStdioTransport({ input, output, logger, preface });
  const earlySessionIds = (preface?.answered ?? []).flatMap((a) => (a.sessionId ? [a.sessionId] : []));
  const server = createAcpServer({ services, version: VERSION, logger, earlySessionIds });
  server.app.connect(transport.stream);
  const answerTo = (id: unknown) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const found = raw.find((l) => JSON.parse(l).id === id);
        if (found) resolve(found);
      };
      waiters.add(check);
      check();
    });
  return { input, output, raw, errors, answerTo, server, close: () => transport.close("test over") };
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
    // The answer must carry the id as written, which JSON.stringify of the parsed id would not.
    ["an id with an escape", '{"jsonrpc":"2.0","id":"\\u0061","method":"initialize","params":{"protocolVersion":1}}\n'],
    ["an id written 7.0", '{"jsonrpc":"2.0","id":7.0,"method":"initialize","params":{"protocolVersion":1}}\n'],
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
    await early.settled; // without a session/new answerer, decided once initialize is answered
    expect(written.join("")).toBe(await sdkAnswer(init, 5));
    // The editor, answered, asks for more before the transport exists.
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 6, method: "session/list", params: {} })}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    const preface = early.handover();
    expect(preface.chunks.map(String).join("")).toContain('"id":6'); // read, kept, not answered
    const a = agent(preface, input);
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
    await early.settled;
    expect(output.read()).toBeNull();
    const preface = early.handover();
    expect(preface.answered).toEqual([]);
    const a = agent(preface, input);
    expect(JSON.parse(await a.answerTo(1)).result.protocolVersion).toBe(1);
    expect(a.raw.filter((l) => JSON.parse(l).id === 1)).toHaveLength(1);
    a.close();
  });
});

describe("early session/new", () => {
  const project = mkdtempSync(join(tmpdir(), "deep-acp-early-project-"));
  const aFile = join(project, "file.txt");
  writeFileSync(aFile, "x");
  afterAll(() => rmSync(project, { recursive: true, force: true }));
  const silent = createLogger({ level: "error", write: () => undefined });
  const line = (id: unknown, method: string, params: unknown) =>
    `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
  const INIT = line(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });

  function start(env: NodeJS.ProcessEnv = ENV) {
    const input = new PassThrough();
    const output = new PassThrough();
    const written: string[] = [];
    output.setEncoding("utf8").on("data", (chunk: string) => written.push(chunk));
    const core = createCoreServices({ cli: parseCliArgs([]), env, logger: silent, home });
    const early = startEarlyHandshake({
      input,
      output,
      version: VERSION,
      sessionNew: (params, sessionId, bytes) => earlySessionNewResult({ services: core }, params, sessionId, bytes),
    });
    const lines = () => written.join("").split("\n").filter(Boolean);
    return { input, early, lines };
  }

  it("answers a plain session/new as the SDK path does, and the SDK path builds that very session", async () => {
    const s = start();
    s.input.write(INIT);
    s.input.write(line(2, "session/new", { cwd: project, mcpServers: [] }));
    // The editor, answered, changes the mode at once: it must reach the session the SDK path builds.
    s.input.write(line(3, "session/set_mode", { sessionId: "PLACEHOLDER", modeId: "plan" }));
    await s.early.settled;
    const [initAnswer, newAnswer] = s.lines();
    expect(JSON.parse(initAnswer!).id).toBe(1);
    const sessionId = JSON.parse(newAnswer!).result.sessionId as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const preface = s.early.handover();
    expect(preface.answered.map((a) => [a.method, a.id, a.sessionId])).toEqual([
      ["initialize", 1, undefined],
      ["session/new", 2, sessionId],
    ]);
    // The held set_mode named a placeholder; ask again for the real id after the handover.
    const a = agent(preface, s.input);
    a.input.write(line(4, "session/set_mode", { sessionId, modeId: "plan" }));
    expect(JSON.parse(await a.answerTo(4))).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    expect(JSON.parse(await a.answerTo(3)).error.code).toBe(-32002); // unknown session, as always
    expect(a.server.sessions().map((session) => session.id)).toEqual([sessionId]);
    // The SDK's own answers to 1 and 2 were the same bytes (the transport logs any difference).
    expect(a.raw.filter((l) => [1, 2].includes(JSON.parse(l).id))).toEqual([]);
    expect(a.errors).toEqual([]);
    a.close();

    // And a session/new the SDK path answers alone gives the same answer but for the id.
    const b = agent();
    b.input.write(INIT);
    await b.answerTo(1);
    b.input.write(line(2, "session/new", { cwd: project, mcpServers: [] }));
    const sdkAnswer = await b.answerTo(2);
    const sdkId = JSON.parse(sdkAnswer).result.sessionId as string;
    expect(`${newAnswer}\n`).toBe(sdkAnswer.replace(sdkId, sessionId));
    b.close();
  });

  it("leaves a session/new it cannot vouch for to the SDK, which answers it as always", async () => {
    const s = start();
    s.input.write(INIT);
    s.input.write(line(2, "session/new", { cwd: "relative/dir", mcpServers: [] }));
    await s.early.settled;
    expect(s.lines()).toHaveLength(1);
    const a = agent(s.early.handover(), s.input);
    expect(JSON.parse(await a.answerTo(2)).error.code).toBe(-32602);
    expect(a.errors).toEqual([]);
    a.close();
  });

  it("stays light while the editor is quiet after initialize, and still answers a late session/new", async () => {
    const s = start();
    s.input.write(INIT);
    await pollUntil(() => s.lines().length === 1, "the initialize answer");
    let settled = false;
    void s.early.settled.then(() => (settled = true));
    // The quiet is the point: an editor that initializes and waits must not make us load the SDK.
    await sleep(100);
    expect(settled).toBe(false);
    s.input.write(line(2, "session/new", { cwd: project, mcpServers: [] }));
    await s.early.settled;
    const preface = s.early.handover();
    expect(preface.answered.map((a) => a.method)).toEqual(["initialize", "session/new"]);
    const a = agent(preface, s.input);
    a.input.write(line(3, "session/set_mode", { sessionId: preface.answered[1]!.sessionId, modeId: "plan" }));
    expect(JSON.parse(await a.answerTo(3))).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    a.close();
  });

  it("hands a request it does not answer, sent after a quiet while, to the SDK", async () => {
    const s = start();
    s.input.write(INIT);
    await pollUntil(() => s.lines().length === 1, "the initialize answer");
    s.input.write(line(2, "session/list", {}));
    await s.early.settled;
    expect(s.lines()).toHaveLength(1);
    const a = agent(s.early.handover(), s.input);
    expect(JSON.parse(await a.answerTo(2)).result.sessions).toEqual(expect.any(Array));
    expect(a.errors).toEqual([]);
    a.close();
  });

  const stdio = { name: "files", command: "/bin/false", args: ["-y"], env: [{ name: "A", value: "1" }] };
  const http = { type: "http", name: "web", url: "http://127.0.0.1:9/mcp", headers: [{ name: "X", value: "y" }] };
  const acceptedParams: Array<[string, unknown]> = [
    ["no servers", { cwd: "/p", mcpServers: [] }],
    ["stdio and http servers", { cwd: "/p", mcpServers: [stdio, http, { ...http, type: "sse" }] }],
    ["additional directories", { cwd: "/p", mcpServers: [], additionalDirectories: ["/q"] }],
    ["a tagged stdio server", { cwd: "/p", mcpServers: [{ ...stdio, type: "stdio" }] }],
    [
      "_meta anywhere",
      { cwd: "/p", _meta: { a: 1 }, mcpServers: [{ ...stdio, _meta: 5, env: [{ name: "A", value: "1", _meta: {} }] }] },
    ],
  ];
  for (const [name, params] of acceptedParams)
    it(`takes params with ${name}, which the SDK path accepts too`, async () => {
      const taken = { ...(params as Record<string, unknown>), cwd: project };
      expect(plainSessionNewParams(taken)).toBeDefined();
      const b = agent();
      b.input.write(INIT);
      await b.answerTo(1);
      b.input.write(line(2, "session/new", taken));
      expect(JSON.parse(await b.answerTo(2)).result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      b.close();
    });

  const declinedParams: Array<[string, unknown]> = [
    ["no mcpServers", { cwd: "/p" }],
    ["a system prompt", { cwd: "/p", mcpServers: [], systemPrompt: "x" }],
    ["an acp server", { cwd: "/p", mcpServers: [{ type: "acp", name: "a", serverId: "s" }] }],
    ["a server without env", { cwd: "/p", mcpServers: [{ name: "s", command: "c", args: [] }] }],
    ["an unknown key", { cwd: "/p", mcpServers: [], colour: "blue" }],
    ["null args (defaulted by the SDK)", { cwd: "/p", mcpServers: [{ ...stdio, args: null }] }],
    ["an env entry with more keys", { cwd: "/p", mcpServers: [{ ...stdio, env: [{ name: "A", value: "1", x: 1 }] }] }],
    ["a numeric cwd", { cwd: 5, mcpServers: [] }],
  ];
  for (const [name, params] of declinedParams)
    it(`leaves params with ${name} to the SDK`, () => expect(plainSessionNewParams(params)).toBeUndefined());

  it("declines what the SDK path would refuse or answer differently", async () => {
    const core = (env: NodeJS.ProcessEnv) => createCoreServices({ cli: parseCliArgs([]), env, logger: silent, home });
    const params = (cwd: string) => ({ cwd, additionalDirectories: [] });
    const ok = { services: core(ENV) };
    expect(await earlySessionNewResult(ok, params(project), "id", 100)).toBeDefined();
    expect(await earlySessionNewResult(ok, params(join(project, "missing")), "id", 100)).toBeUndefined();
    expect(await earlySessionNewResult(ok, params(aFile), "id", 100)).toBeUndefined();
    expect(
      await earlySessionNewResult(ok, { cwd: project, additionalDirectories: ["rel"] }, "id", 100),
    ).toBeUndefined();
    expect(await earlySessionNewResult({ services: core({}) }, params(project), "id", 100)).toBeUndefined();
    expect(await earlySessionNewResult({ ...ok, maxMessageBytes: 99 }, params(project), "id", 100)).toBeUndefined();
    expect(await earlySessionNewResult({ ...ok, remote: "ssh://h/p" }, params(project), "id", 100)).toBeUndefined();
  });
});
