import { execFileSync } from "node:child_process";
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../support/agent-process.js";
import { createFakeModelServer, type FakeModelServer } from "../support/fake-model/index.js";

// Prompts that mention things no file reader should trust: each turn must end (answered, not hung),
// the agent must stay up, and what the model is sent must stay bounded.

let model: FakeModelServer;
let home: string;
let project: string;
let agent: AgentProcess;
let sessionId: string;

beforeAll(async () => {
  model = await createFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "deep-acp-hostile-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-hostile-project-"));
  execFileSync("mkfifo", [join(project, "fifo")]);
  await writeFile(join(project, "sparse.bin"), "");
  await truncate(join(project, "sparse.bin"), 512 * 1024 * 1024);
  agent = await startAgentProcess({
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
    args: ["--max-message-bytes", String(4 * 1024 * 1024)],
  });
  agent.child.stdin.on("error", () => undefined);
  await agent.initialize();
  sessionId = (await agent.request("session/new", { cwd: project, mcpServers: [] })).result.sessionId;
});
afterAll(async () => {
  await agent?.stop();
  await model.close();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

const link = (uri: string) => [
  { type: "text", text: "look" },
  { type: "resource_link", uri, name: uri.split("/").pop() },
];

const cases: Array<[string, () => unknown[]]> = [
  ["/dev/zero", () => link("file:///dev/zero")],
  ["a FIFO nobody writes to", () => link(`file://${join(project, "fifo")}`)],
  ["a directory", () => link(`file://${project}`)],
  ["/proc/self/status", () => link("file:///proc/self/status")],
  ["/proc/self/mem", () => link("file:///proc/self/mem")],
  ["a 512 MB sparse file", () => link(`file://${join(project, "sparse.bin")}`)],
  ["a missing file", () => link(`file://${join(project, "missing.txt")}`)],
  ["50,000 blocks", () => Array.from({ length: 50_000 }, (_, i) => ({ type: "text", text: `b${i}` }))],
  [
    "an embedded resource over the message limit",
    () => [{ type: "resource", resource: { uri: "file:///big.txt", text: "x".repeat(5 * 1024 * 1024) } }],
  ],
];

describe("hostile prompt content", () => {
  let survived = 0;
  for (const [name, prompt] of cases) {
    it(`survives ${name}`, async () => {
      const before = model.requests.length;
      const response = await agent.request("session/prompt", { sessionId, prompt: prompt() });
      expect(response.result?.stopReason ?? response.error?.code).toBeDefined();
      if (response.error) expect(response.error.message.length).toBeLessThan(2000);
      const sent = model.requests.slice(before).map((r) => JSON.stringify(r.body).length);
      expect(Math.max(0, ...sent)).toBeLessThan(2_000_000);
      expect(agent.child.exitCode).toBeNull();
      survived++;
    });
  }
  it("prints the tally", () => {
    console.log(`hostile inputs survived: ${survived}/${cases.length}`);
    expect(survived).toBe(cases.length);
  });
});
