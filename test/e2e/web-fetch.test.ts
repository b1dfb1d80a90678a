// web_fetch through the built binary: a `fetch` tool call that asks per host, HTML as Markdown to the
// model, redirects into private ranges refused, large pages offloaded; with Zed's capabilities and
// with a client that advertises nothing.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { CLIENTS, createFakeEditor } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "web" });
let site: Server;
let siteUrl: string;
// Another host (another port of loopback): what an approved page redirects to must not be fetched.
let elsewhere: Server;
let elsewhereUrl: string;
const elsewhereHits: string[] = [];

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === "/docs") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        "<html><head><title>Docs</title></head><body><h2>Install</h2><p>Run <code>npm i</code>.</p></body></html>",
      );
    } else if (req.url === "/moved") {
      res.writeHead(302, { location: "http://192.168.7.1/router" });
      res.end();
    } else if (req.url === "/away") {
      res.writeHead(302, { location: `${elsewhereUrl}/collect?from=docs` });
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
  elsewhere = createServer((req, res) => {
    elsewhereHits.push(String(req.url));
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("collected");
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
  await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
});

async function start(capabilities: unknown, permission?: (m: JsonRpcMessage) => unknown, allowLoopback = true) {
  await mkdir(join(suite.home, ".deepagents"), { recursive: true });
  if (allowLoopback)
    await writeFile(
      join(suite.home, ".deepagents", "config.toml"),
      '[web_fetch]\nallow_private_networks = ["127.0.0.1/32"]\n',
    );
  const editor = createFakeEditor({ permission });
  return suite.startSession({ capabilities, onRequest: editor.handle });
}

const toolResults = () => suite.model.requests.at(-1)!.messages.filter((m) => m.role === "tool");

for (const [label, capabilities] of CLIENTS) {
  describe(`web_fetch with ${label}`, () => {
    it("asks per host, remembers 'always', and gives the model Markdown", async () => {
      const asked: JsonRpcMessage[] = [];
      const sessionId = await start(capabilities, (m) => {
        asked.push(m);
        return { outcome: { outcome: "selected", optionId: "allow_always" } };
      });
      suite.model.enqueue(
        toolTurn("web_fetch", { url: `${siteUrl}/docs` }),
        toolTurn("web_fetch", { url: `${siteUrl}/docs#again` }),
        textTurn("Read it."),
      );
      const response = await suite.agent.request("session/prompt", {
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
      const updates = suite.agent.updates(sessionId);
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
      suite.model.enqueue(toolTurn("web_fetch", { url: `${siteUrl}/moved` }), textTurn("Blocked."));
      await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      const [refused] = toolResults();
      expect(refused!.isError).toBe(true);
      expect(refused!.text).toContain("Refused to fetch 192.168.7.1: 192.168.7.1 is a private or reserved address");
      const failed = suite.agent
        .updates(sessionId)
        .find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
      expect(JSON.stringify(failed.content)).toContain("Refused to fetch 192.168.7.1");
    });

    it("does not follow a redirect to a host the user did not approve; the model is told, and asking is next", async () => {
      const asked: JsonRpcMessage[] = [];
      const sessionId = await start(capabilities, (m) => {
        asked.push(m);
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      });
      elsewhereHits.length = 0;
      suite.model.enqueue(toolTurn("web_fetch", { url: `${siteUrl}/away` }), textTurn("Not followed."));
      await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      expect(asked).toHaveLength(1); // for the approved host only
      expect(elsewhereHits).toEqual([]);
      const [result] = toolResults();
      expect(result!.isError).toBe(true);
      expect(result!.text).toContain(`Redirected to ${elsewhereUrl}/collect?from=docs, on another host`);
    });

    it("offloads a large page like any large result", async () => {
      const sessionId = await start(capabilities);
      suite.model.enqueue(toolTurn("web_fetch", { url: `${siteUrl}/big` }), textTurn("Big."));
      await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
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
    suite.model.enqueue(toolTurn("web_fetch", { url: `${siteUrl}/docs` }), textTurn("No."));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(toolResults()[0]!.text).toContain("Refused to fetch 127.0.0.1: 127.0.0.1 is a loopback address");
  });
});
