// web_fetch through the built binary: a `fetch` tool call that asks per host, HTML as Markdown to the
// model, redirects into private ranges refused, large pages offloaded; with Zed's capabilities and
// with a client that advertises nothing.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess, type JsonRpcMessage } from "../support/agent-process.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";

let model: FakeModelServer;
let site: Server;
let siteUrl: string;
let home: string;
let project: string;
let agent: AgentProcess;

beforeAll(async () => {
  model = await createFakeModelServer();
  site = createServer((req, res) => {
    if (req.url === "/docs") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        "<html><head><title>Docs</title></head><body><h2>Install</h2><p>Run <code>npm i</code>.</p></body></html>",
      );
    } else if (req.url === "/moved") {
      res.writeHead(302, { location: "http://192.168.7.1/router" });
      res.end();
    } else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(Array.from({ length: 5000 }, (_, i) => `line ${i} ${"z".repeat(30)}`).join("\n"));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await model.close();
  await new Promise<void>((resolve) => site.close(() => resolve()));
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-web-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-web-project-"));
  model.setHandler(undefined);
});
afterEach(async () => {
  await agent?.stop();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function start(capabilities: unknown, permission?: (m: JsonRpcMessage) => unknown, allowLoopback = true) {
  await mkdir(join(home, ".deepagents"), { recursive: true });
  if (allowLoopback)
    await writeFile(
      join(home, ".deepagents", "config.toml"),
      '[web_fetch]\nallow_private_networks = ["127.0.0.1/32"]\n',
    );
  const editor = createFakeEditor({ permission });
  agent = await startAgentProcess({
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
    onRequest: editor.handle,
  });
  await agent.initialize(capabilities);
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
  return result.sessionId as string;
}

const toolResults = () => model.requests.at(-1)!.messages.filter((m) => m.role === "tool");

for (const [label, capabilities] of [
  ["Zed", ZED_CAPABILITIES],
  ["a client with no capabilities", {}],
] as const) {
  describe(`web_fetch with ${label}`, () => {
    it("asks per host, remembers 'always', and gives the model Markdown", async () => {
      const asked: JsonRpcMessage[] = [];
      const sessionId = await start(capabilities, (m) => {
        asked.push(m);
        return { outcome: { outcome: "selected", optionId: "allow_always" } };
      });
      model.enqueue(
        toolTurn("web_fetch", { url: `${siteUrl}/docs` }),
        toolTurn("web_fetch", { url: `${siteUrl}/docs#again` }),
        textTurn("Read it."),
      );
      const response = await agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "read the docs" }],
      });
      expect(response.result.stopReason).toBe("end_turn");
      expect(asked).toHaveLength(1);
      const host = new URL(siteUrl).host;
      expect(asked[0]!.params.toolCall.kind).toBe("fetch");
      expect(asked[0]!.params.options.map((o: { name: string }) => o.name)).toContain(
        `Always allow fetching from ${host}`,
      );
      const updates = agent.updates(sessionId);
      expect(updates.filter((u) => u.sessionUpdate === "tool_call").map((c) => c.kind)).toEqual(["fetch", "fetch"]);
      expect(updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.title).map((u) => u.title)).toEqual([
        `Fetch ${siteUrl}/docs`,
        `Fetch ${siteUrl}/docs#again`,
      ]);
      const [first] = toolResults();
      expect(first!.text).toBe(`# Docs\nURL: ${siteUrl}/docs\n\n## Install\n\nRun \`npm i\`.`);
    });

    it("refuses a redirect into a private range and loopback when the config does not allow it", async () => {
      const sessionId = await start(capabilities);
      model.enqueue(toolTurn("web_fetch", { url: `${siteUrl}/moved` }), textTurn("Blocked."));
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      const [refused] = toolResults();
      expect(refused!.isError).toBe(true);
      expect(refused!.text).toContain("Refused to fetch 192.168.7.1: 192.168.7.1 is a private or reserved address");
      const failed = agent
        .updates(sessionId)
        .find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
      expect(JSON.stringify(failed.content)).toContain("Refused to fetch 192.168.7.1");
    });

    it("offloads a large page like any large result", async () => {
      const sessionId = await start(capabilities);
      model.enqueue(toolTurn("web_fetch", { url: `${siteUrl}/big` }), textTurn("Big."));
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      const [offloaded] = toolResults();
      expect(offloaded!.text).toMatch(
        /^Tool result too large, the result of this tool call \S+ was saved in the filesystem at this path: \/large_tool_results\//,
      );
      expect(offloaded!.text).toContain("line 4999");
    });
  });
}

describe("web_fetch without a private-network allowance", () => {
  it("refuses the loopback server", async () => {
    const sessionId = await start({}, undefined, false);
    model.enqueue(toolTurn("web_fetch", { url: `${siteUrl}/docs` }), textTurn("No."));
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(toolResults()[0]!.text).toContain("Refused to fetch 127.0.0.1: 127.0.0.1 is a loopback address");
  });
});
