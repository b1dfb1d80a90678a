import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";

// The transport takes whatever an editor (or a fuzzer) writes, and stays up: each hostile line gets
// the JSON-RPC error it deserves, bounded, and the connection keeps serving.

const suite = useAgentSuite({ name: "robust" });

async function start(args: string[] = []) {
  const agent = await suite.start({ args });
  // Hostile input may make the agent close the connection; a write after that must not fail the run.
  agent.child.stdin.on("error", () => undefined);
  await agent.initialize();
}

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const responseTo = (id: unknown) => suite.agent.messages.find((m) => m.id === id && !m.method);

describe("transport limits", () => {
  it("answers hostile lines with bounded errors and keeps serving", async () => {
    await start();
    suite.agent.writeRaw(`{"jsonrpc":"2.0","id":${deep(5000)},"method":"session/list"}\n`);
    suite.agent.writeRaw(`{"jsonrpc":"2.0","id":"deep-body","method":"session/list","params":{"x":${deep(5000)}}}\n`);
    suite.agent.writeRaw(
      `{"jsonrpc":"2.0","id":"big","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"file:///x","text":"${"a".repeat(33 * 1024 * 1024)}"}}]}}\n`,
    );
    suite.agent.writeRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]) as unknown as string);
    suite.agent.writeRaw("{not json\n");
    suite.agent.writeRaw('[{"jsonrpc":"2.0","id":"b","method":"session/list"}]\n');
    suite.agent.writeRaw("42\n");
    suite.agent.writeRaw('{"jsonrpc":"2.0","id":999,"result":{"spoofed":true}}\n');
    suite.agent.writeRaw(`{"jsonrpc":"2.0","id":${deep(3000)},"result":{}}\n`);
    suite.agent.writeRaw('{"jsonrpc":"2.0","id":"unknown","method":"no/such/method","params":{}}\n');
    // Parsed, this would hold the thread for seconds (no other request answered meanwhile).
    suite.agent.writeRaw(
      `{"jsonrpc":"2.0","id":"wide","method":"session/list","params":{"_meta":[${"{},".repeat(3_000_000)}{}]}}\n`,
    );
    const list = await suite.agent.request("session/list", {}, "after");
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
    expect(responseTo("wide")?.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining("max_json_values"),
    });
    const anonymous = suite.agent.messages.filter((m) => m.id === null).map((m) => m.error?.code);
    // deep id, bad UTF-8, not JSON, batch, not an object (responses are never answered).
    expect(anonymous).toEqual([-32600, -32700, -32700, -32600, -32600]);
    expect(Math.max(...suite.agent.lines.map((l) => l.length))).toBeLessThan(10_000);
    expect(suite.agent.child.exitCode).toBeNull();
  });

  it("refuses a session whose cwd is missing or not a directory with -32602", async () => {
    await start();
    const missing = await suite.agent.request("session/new", { cwd: join(suite.project, "missing"), mcpServers: [] });
    expect(missing.error).toMatchObject({ code: -32602, message: expect.stringContaining("does not exist") });
    await writeFile(join(suite.project, "file.txt"), "x");
    const file = await suite.agent.request("session/new", { cwd: join(suite.project, "file.txt"), mcpServers: [] });
    expect(file.error).toMatchObject({ code: -32602, message: expect.stringContaining("not a directory") });
    const long = await suite.agent.request("session/new", { cwd: `/${"x".repeat(1024 * 1024)}`, mcpServers: [] });
    expect(long.error?.code).toBe(-32602);
    expect(JSON.stringify(long).length).toBeLessThan(2000);
  });

  it("takes its limits from config.toml, and from flags over it", async () => {
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    await writeFile(
      join(suite.home, ".deepagents", "config.toml"),
      "[acp]\nmax_message_bytes = 100000\nmax_json_depth = 20\n",
    );
    await start(["--max-json-depth", "40"]);
    suite.agent.writeRaw(
      `{"jsonrpc":"2.0","id":"size","method":"session/list","params":{"x":"${"a".repeat(200_000)}"}}\n`,
    );
    suite.agent.writeRaw(`{"jsonrpc":"2.0","id":"d30","method":"session/list","params":{"_meta":{"x":${deep(30)}}}}\n`);
    suite.agent.writeRaw(`{"jsonrpc":"2.0","id":"d50","method":"session/list","params":{"_meta":{"x":${deep(50)}}}}\n`);
    await suite.agent.waitFor(() => ["size", "d30", "d50"].every((id) => responseTo(id)));
    expect(responseTo("size")?.error?.message).toContain("over the 0.1 MiB limit");
    expect(responseTo("d30")?.result).toEqual({ sessions: [] });
    expect(responseTo("d50")?.error?.message).toContain("deeper than 40");
  });
});
