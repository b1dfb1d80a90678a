// MCP OAuth sign-in through the editor: a client with `elicitation.url` gets the authorization URL
// as a URL elicitation in the next turn (its handler plays the browser), the tokens land where
// `deep-acp mcp login` puts them, and the server's tools work in that same turn. A decline leaves
// the server signed out and is not asked again; a client without `elicitation.url` sees the old
// "run deep-acp mcp login" status.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOAuthFixture, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

// Registered before the suite, so the fixture is up before the suite's HOME is laid out and goes
// down only after the suite has stopped the agent (after-hooks run in reverse).
let auth: OAuthFixture;
beforeEach(async () => {
  auth = await startOAuthFixture();
});
afterEach(() => auth.close());

const suite = useAgentSuite({
  name: "signin",
  async prepare({ home, project }) {
    await mkdir(join(project, ".git"));
    await mkdir(join(home, ".deepagents"), { recursive: true });
    await writeFile(
      join(home, ".deepagents", ".mcp.json"),
      JSON.stringify({ mcpServers: { secure: { type: "http", url: auth.mcpUrl, auth: "oauth" } } }),
    );
  },
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
  return suite.startSession({ capabilities, cwd: suite.project, onRequest: editor.handle });
}

async function prompt(sessionId: string, text: string) {
  const before = suite.agent.updates(sessionId).length;
  const response = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const updates = suite.agent.updates(sessionId).slice(before);
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
    suite.model.enqueue(toolTurn("secure_whoami", {}), textTurn("it is me"));
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
    const complete = suite.agent.messages.filter((m) => m.method === "elicitation/complete");
    expect(complete.map((m) => m.params)).toEqual([{ elicitationId: params.elicitationId }]);

    expect(auth.stats).toMatchObject({ registrations: 1, codeGrants: 1, pkceFailures: 0 });
    expect(await readdir(join(suite.home, ".deepagents", ".state", "mcp-tokens"))).toEqual([
      expect.stringMatching(/^secure-[0-9a-f]{16}\.json$/),
    ]);
    expect(suite.model.requests[0]!.toolNames).toContain("secure_whoami");
    expect(
      suite.model.requests
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
    suite.model.enqueue(textTurn("ok"), textTurn("ok again"));
    const first = await prompt(sessionId, "hi");
    expect(first.stopReason).toBe("end_turn");
    expect(noticeText(first.updates)).toMatch(/stays signed out \(sign-in declined\).*deep-acp mcp login secure/);
    expect(suite.model.requests.at(-1)!.toolNames).not.toContain("secure_whoami");
    await prompt(sessionId, "again");
    expect(asked).toBe(1);
    expect(auth.stats.codeGrants).toBe(0);
    expect(suite.agent.messages.filter((m) => m.method === "elicitation/complete")).toEqual([]);
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
    suite.model.enqueue(textTurn("ok"), textTurn("ok again"));
    const turn = suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    const url = await shown;
    suite.agent.notify("session/cancel", { sessionId });
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
    suite.model.enqueue(textTurn("ok"));
    await prompt(sessionId, "hi");
    expect(asked).toBe(0);
    expect(auth.stats.registrations).toBe(0);
    expect(suite.model.requests.at(-1)!.toolNames).not.toContain("secure_whoami");
    expect((await prompt(sessionId, "/mcp")).text).toMatch(/secure — unauthenticated[\s\S]*deep-acp mcp login secure/);
  });
});
