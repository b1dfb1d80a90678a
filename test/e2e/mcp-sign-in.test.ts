// MCP OAuth sign-in through the editor: a client with `elicitation.url` gets the authorization URL
// as a URL elicitation in the next turn (its handler plays the browser), the tokens land where
// `deep-acp mcp login` puts them, and the server's tools work in that same turn. A decline leaves
// the server signed out and is not asked again; a client without `elicitation.url` sees the old
// "run deep-acp mcp login" status.
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startOAuthFixture, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";
import { startAgentProcess, type AgentProcess, type JsonRpcMessage } from "../support/agent-process.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";

let model: FakeModelServer;
let home: string;
let project: string;
let auth: OAuthFixture;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(() => model.close());
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-signin-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-signin-project-"));
  await mkdir(join(project, ".git"));
  model.setHandler(undefined);
  auth = await startOAuthFixture();
  await mkdir(join(home, ".deepagents"), { recursive: true });
  await writeFile(
    join(home, ".deepagents", ".mcp.json"),
    JSON.stringify({ mcpServers: { secure: { type: "http", url: auth.mcpUrl, auth: "oauth" } } }),
  );
});
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await auth.close();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

/** Plays the browser: opens the URL and follows the consent redirect to the agent's loopback listener. */
async function browse(url: string): Promise<void> {
  const consent = await fetch(url, { redirect: "manual" });
  const back = consent.headers.get("location");
  if (!back) throw new Error(`authorize failed: ${consent.status} ${await consent.text()}`);
  await (await fetch(back)).text();
}

async function open(capabilities: unknown, elicitation?: (m: JsonRpcMessage) => unknown): Promise<string> {
  const editor = createFakeEditor(elicitation ? { elicitation } : {});
  agent = await startAgentProcess({
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
    cwd: project,
    onRequest: editor.handle,
  });
  await agent.initialize(capabilities);
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
  return result.sessionId as string;
}

async function prompt(sessionId: string, text: string) {
  const before = agent!.updates(sessionId).length;
  const response = await agent!.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const updates = agent!.updates(sessionId).slice(before);
  return {
    stopReason: response.result?.stopReason,
    updates,
    text: updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join(""),
  };
}

/** Without session notices (Zed here) warnings arrive as messages of their own, info as thoughts. */
const noticeText = (updates: any[]) =>
  updates
    .filter((u) => /^agent_(message|thought)_chunk$/.test(u.sessionUpdate) && String(u.messageId).startsWith("notice-"))
    .map((u) => u.content.text)
    .join("");

describe("MCP OAuth sign-in through a url elicitation", () => {
  it("signs in during the turn, stores the tokens like mcp login, sends elicitation/complete, and the tools work at once", async () => {
    const asked: JsonRpcMessage[] = [];
    const sessionId = await open(ZED_CAPABILITIES, async (m) => {
      asked.push(m);
      await browse(m.params.url);
      return { action: "accept" };
    });
    model.enqueue(toolTurn("secure_whoami", {}), textTurn("it is me"));
    const turn = await prompt(sessionId, "who am I?");
    expect(turn.stopReason).toBe("end_turn");

    expect(asked).toHaveLength(1);
    const params = asked[0]!.params;
    expect(params).toMatchObject({
      sessionId,
      mode: "url",
      elicitationId: expect.any(String),
      message: expect.stringContaining('"secure"'),
    });
    expect(params.url).toMatch(new RegExp(`^${auth.base}/authorize\\?.*code_challenge_method=S256`));
    const complete = agent!.messages.filter((m) => m.method === "elicitation/complete");
    expect(complete.map((m) => m.params)).toEqual([{ elicitationId: params.elicitationId }]);

    expect(auth.stats).toMatchObject({ registrations: 1, codeGrants: 1, pkceFailures: 0 });
    expect(await readdir(join(home, ".deepagents", ".state", "mcp-tokens"))).toEqual([
      expect.stringMatching(/^secure-[0-9a-f]{16}\.json$/),
    ]);
    expect(model.requests[0]!.toolNames).toContain("secure_whoami");
    expect(
      model.requests
        .at(-1)!
        .messages.filter((m) => m.role === "tool")
        .at(-1)!.text,
    ).toBe("access-1");
    expect(noticeText(turn.updates)).toContain('Signed in to MCP server "secure"');
    expect((await prompt(sessionId, "/mcp")).text).toMatch(/secure — ok/);
  });

  it("a declined sign-in leaves the server signed out with a notice, and is not asked again in the session", async () => {
    let asked = 0;
    const sessionId = await open(ZED_CAPABILITIES, () => {
      asked++;
      return { action: "decline" };
    });
    model.enqueue(textTurn("ok"), textTurn("ok again"));
    const first = await prompt(sessionId, "hi");
    expect(first.stopReason).toBe("end_turn");
    expect(noticeText(first.updates)).toMatch(/stays signed out \(sign-in declined\).*deep-acp mcp login secure/);
    expect(model.requests.at(-1)!.toolNames).not.toContain("secure_whoami");
    await prompt(sessionId, "again");
    expect(asked).toBe(1);
    expect(auth.stats.codeGrants).toBe(0);
    expect(agent!.messages.filter((m) => m.method === "elicitation/complete")).toEqual([]);
    expect((await prompt(sessionId, "/mcp")).text).toMatch(/secure — unauthenticated[\s\S]*deep-acp mcp login secure/);
  });

  it("cancelling the turn while the sign-in page is open stops the flow and closes the loopback listener", async () => {
    let opened!: (url: string) => void;
    const shown = new Promise<string>((resolve) => (opened = resolve));
    let asked = 0;
    const sessionId = await open(ZED_CAPABILITIES, (m) => {
      asked++;
      opened(m.params.url);
      return new Promise(() => undefined); // the user never answers
    });
    model.enqueue(textTurn("ok"), textTurn("ok again"));
    const turn = agent!.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    const url = await shown;
    agent!.notify("session/cancel", { sessionId });
    expect((await turn).result.stopReason).toBe("cancelled");
    const redirect = new URL(url).searchParams.get("redirect_uri")!;
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await expect(fetch(`${redirect}?code=late&state=x`)).rejects.toThrow();
    expect((await prompt(sessionId, "again")).stopReason).toBe("end_turn");
    expect(asked).toBe(1);
    expect(auth.stats.codeGrants).toBe(0);
  });

  it("a client without elicitation.url is never sent one and keeps the mcp login hint", async () => {
    let asked = 0;
    const sessionId = await open({ ...ZED_CAPABILITIES, elicitation: { form: {} } }, () => {
      asked++;
      return { action: "accept" };
    });
    model.enqueue(textTurn("ok"));
    await prompt(sessionId, "hi");
    expect(asked).toBe(0);
    expect(auth.stats.registrations).toBe(0);
    expect(model.requests.at(-1)!.toolNames).not.toContain("secure_whoami");
    expect((await prompt(sessionId, "/mcp")).text).toMatch(/secure — unauthenticated[\s\S]*deep-acp mcp login secure/);
  });
});
