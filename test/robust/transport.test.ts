import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../support/agent-process.js";
import { createFakeModelServer, type FakeModelServer } from "../support/fake-model/index.js";

// The transport takes whatever an editor (or a fuzzer) writes, and stays up: each hostile line gets
// the JSON-RPC error it deserves, bounded, and the connection keeps serving.

let model: FakeModelServer;
let home: string;
let project: string;
let agent: AgentProcess;

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-robust-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-robust-project-"));
});
afterEach(async () => {
  await agent?.stop();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function start(args: string[] = []) {
  agent = await startAgentProcess({
    args,
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
  });
  agent.child.stdin.on("error", () => undefined);
  await agent.initialize();
}

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const responseTo = (id: unknown) => agent.messages.find((m) => m.id === id && !m.method);

describe("transport limits", () => {
  it("answers hostile lines with bounded errors and keeps serving", async () => {
    await start();
    agent.writeRaw(`{"jsonrpc":"2.0","id":${deep(5000)},"method":"session/list"}\n`);
    agent.writeRaw(`{"jsonrpc":"2.0","id":"deep-body","method":"session/list","params":{"x":${deep(5000)}}}\n`);
    agent.writeRaw(
      `{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"file:///x","text":"${"a".repeat(33 * 1024 * 1024)}"}}]}}\n`,
    );
    agent.writeRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]) as unknown as string);
    agent.writeRaw("{not json\n");
    agent.writeRaw('[{"jsonrpc":"2.0","id":"b","method":"session/list"}]\n');
    agent.writeRaw("42\n");
    agent.writeRaw('{"jsonrpc":"2.0","id":999,"result":{"spoofed":true}}\n');
    agent.writeRaw(`{"jsonrpc":"2.0","id":${deep(3000)},"result":{}}\n`);
    agent.writeRaw('{"jsonrpc":"2.0","id":"unknown","method":"no/such/method","params":{}}\n');
    const list = await agent.request("session/list", {}, "after");
    expect(list.result).toEqual({ sessions: [] });

    expect(responseTo("deep-body")?.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining("deeper than 256"),
    });
    expect(responseTo("big")?.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining("max_message_bytes"),
    });
    expect(responseTo("unknown")?.error?.code).toBe(-32601);
    const anonymous = agent.messages.filter((m) => m.id === null).map((m) => m.error?.code);
    // deep id, bad UTF-8, not JSON, batch, not an object (responses are never answered).
    expect(anonymous).toEqual([-32600, -32700, -32700, -32600, -32600]);
    expect(Math.max(...agent.lines.map((l) => l.length))).toBeLessThan(10_000);
    expect(agent.child.exitCode).toBeNull();
  });

  it("refuses a session whose cwd is missing or not a directory with -32602", async () => {
    await start();
    const missing = await agent.request("session/new", { cwd: join(project, "missing"), mcpServers: [] });
    expect(missing.error).toMatchObject({ code: -32602, message: expect.stringContaining("does not exist") });
    await writeFile(join(project, "file.txt"), "x");
    const file = await agent.request("session/new", { cwd: join(project, "file.txt"), mcpServers: [] });
    expect(file.error).toMatchObject({ code: -32602, message: expect.stringContaining("not a directory") });
    const long = await agent.request("session/new", { cwd: `/${"x".repeat(1024 * 1024)}`, mcpServers: [] });
    expect(long.error?.code).toBe(-32602);
    expect(JSON.stringify(long).length).toBeLessThan(2000);
  });

  it("takes its limits from config.toml, and from flags over it", async () => {
    await mkdir(join(home, ".deepagents"), { recursive: true });
    await writeFile(
      join(home, ".deepagents", "config.toml"),
      "[acp]\nmax_message_bytes = 100000\nmax_json_depth = 20\n",
    );
    await start(["--max-json-depth", "40"]);
    agent.writeRaw(`{"jsonrpc":"2.0","id":"size","method":"session/list","params":{"x":"${"a".repeat(200_000)}"}}\n`);
    agent.writeRaw(`{"jsonrpc":"2.0","id":"d30","method":"session/list","params":{"_meta":{"x":${deep(30)}}}}\n`);
    agent.writeRaw(`{"jsonrpc":"2.0","id":"d50","method":"session/list","params":{"_meta":{"x":${deep(50)}}}}\n`);
    await agent.waitFor(() => ["size", "d30", "d50"].every((id) => responseTo(id)));
    expect(responseTo("size")?.error?.message).toContain("over the 0.1 MiB limit");
    expect(responseTo("d30")?.result).toEqual({ sessions: [] });
    expect(responseTo("d50")?.error?.message).toContain("deeper than 40");
  });
});
