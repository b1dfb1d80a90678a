import { execFileSync } from "node:child_process";
import { truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";

// Prompts that mention things no file reader should trust: each turn must end (answered, not hung),
// the agent must stay up, and what the model is sent must stay bounded.

// One agent and session for the whole file: each case must leave it able to take the next.
const suite = useAgentSuite({
  name: "hostile",
  lifetime: "file",
  async prepare({ project }) {
    execFileSync("mkfifo", [join(project, "fifo")]);
    await writeFile(join(project, "sparse.bin"), "");
    await truncate(join(project, "sparse.bin"), 512 * 1024 * 1024);
  },
});
let sessionId: string;

beforeAll(async () => {
  const agent = await suite.start({ args: ["--max-message-bytes", String(4 * 1024 * 1024)] });
  agent.child.stdin.on("error", () => undefined);
  await agent.initialize();
  sessionId = (await agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId;
});

const link = (uri: string) => [
  { type: "text", text: "look" },
  { type: "resource_link", uri, name: uri.split("/").pop() },
];

const cases: Array<[string, () => unknown[]]> = [
  ["/dev/zero", () => link("file:///dev/zero")],
  ["a FIFO nobody writes to", () => link(`file://${join(suite.project, "fifo")}`)],
  ["a directory", () => link(`file://${suite.project}`)],
  ["/proc/self/status", () => link("file:///proc/self/status")],
  ["/proc/self/mem", () => link("file:///proc/self/mem")],
  ["a 512 MB sparse file", () => link(`file://${join(suite.project, "sparse.bin")}`)],
  ["a missing file", () => link(`file://${join(suite.project, "missing.txt")}`)],
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
      const before = suite.model.requests.length;
      const response = await suite.agent.request("session/prompt", { sessionId, prompt: prompt() });
      expect(response.result?.stopReason ?? response.error?.code).toBeDefined();
      if (response.error) expect(response.error.message.length).toBeLessThan(2000);
      const sent = suite.model.requests.slice(before).map((r) => JSON.stringify(r.body).length);
      expect(Math.max(0, ...sent)).toBeLessThan(2_000_000);
      expect(suite.agent.child.exitCode).toBeNull();
      survived++;
    });
  }
  it("prints the tally", () => {
    console.log(`hostile inputs survived: ${survived}/${cases.length}`);
    expect(survived).toBe(cases.length);
  });
});
