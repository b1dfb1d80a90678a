// The session methods and capabilities editors already send (issue 27, items 4-6), through the built
// binary, with Zed's capabilities and with a client that advertises none. Every message the agent
// sends in these tests is checked against the SDK's JSON schema (support/acp-schema.ts).
import { describe, expect, it, onTestFinished } from "vitest";
import { acpViolations } from "../support/acp-schema.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { CLIENTS, createFakeEditor } from "../support/fake-editor.js";
import {
  createFakeModelServer,
  limitHeaders,
  rateLimitedTurn,
  textTurn,
  toolTurn,
} from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "editor-protocol" });

const schemaViolations = () => acpViolations(suite.agent.messages, suite.agent.sent as never);

for (const [client, capabilities] of CLIENTS) {
  describe(`with ${client}`, () => {
    async function connect() {
      const editor = createFakeEditor();
      await suite.start({ onRequest: editor.handle });
      const init = await suite.agent.initialize(capabilities);
      return { editor, init: init.result };
    }

    it("a rejected call ends failed even when the editor interrupts the turn right after the rejection", async () => {
      const editor = createFakeEditor({
        permission: (message) => {
          // Reject, then interrupt, in one write: the cancel arrives in the same read as the answer.
          const option = message.params.options.find((o: { kind: string }) => o.kind === "reject_once");
          const answer = {
            jsonrpc: "2.0",
            id: message.id,
            result: { outcome: { outcome: "selected", optionId: option.optionId } },
          };
          const cancel = { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: message.params.sessionId } };
          suite.agent.writeRaw(`${JSON.stringify(answer)}\n${JSON.stringify(cancel)}\n`);
          return new Promise(() => undefined); // answered above
        },
      });
      await suite.start({ onRequest: editor.handle });
      await suite.agent.initialize(capabilities);
      suite.model.enqueue(toolTurn("execute", { command: "echo never" }), textTurn("unreached"));
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const answer = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "run it" }],
      });
      expect(answer.result.stopReason).toBe("cancelled");
      const callId = suite.agent.messages.find((m) => m.method === "session/request_permission")!.params.toolCall
        .toolCallId;
      const finals = suite.agent
        .updates(result.sessionId)
        .filter((u) => u.toolCallId === callId && (u.status === "failed" || u.status === "completed"));
      expect(finals.map((u) => u.status)).toEqual(["failed"]);
      // Nothing of the turn follows the cancelled answer.
      const answered = suite.agent.messages.indexOf(answer);
      expect(suite.agent.messages.slice(answered + 1).filter((m) => m.method === "session/update")).toEqual([]);
      expect(schemaViolations()).toEqual([]);
    });

    it("session/set_title keeps the editor's title: in session/list, over the generated one, and after load", async () => {
      const { init } = await connect();
      expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ title: {}, archive: {}, status: {} });
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const sessionId = result.sessionId;
      // Before the first prompt (the session is not stored yet) and after it.
      const early = await suite.agent.request("session/set_title", { sessionId, title: "  Fix   the\nbuild " });
      expect(early.result).toEqual({ title: "Fix the build" });
      suite.model.enqueue(textTurn("ok"));
      await suite.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "a generated title?" }],
      });
      const listed = await suite.agent.request("session/list", {});
      expect(listed.result.sessions).toMatchObject([{ sessionId, title: "Fix the build", archived: false }]);
      expect((await suite.agent.request("session/set_title", { sessionId, title: "Renamed" })).result).toEqual({
        title: "Renamed",
      });
      expect(
        suite.agent
          .updates(sessionId)
          .filter((u) => u.sessionUpdate === "session_info_update")
          .at(-1),
      ).toEqual({
        sessionUpdate: "session_info_update",
        title: "Renamed",
      });
      expect((await suite.agent.request("session/set_title", { sessionId, title: " " })).error?.code).toBe(-32602);
      expect((await suite.agent.request("session/set_title", { sessionId: "nope", title: "x" })).error?.code).toBe(
        -32002,
      );
      expect(schemaViolations()).toEqual([]);
      // The next process: a session it has not loaded can be retitled, and load shows the title.
      await suite.agent.stop();
      await connect();
      expect((await suite.agent.request("session/set_title", { sessionId, title: "Third name" })).result).toEqual({
        title: "Third name",
      });
      await suite.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
      expect(suite.agent.updates(sessionId)).toContainEqual({
        sessionUpdate: "session_info_update",
        title: "Third name",
      });
      expect(schemaViolations()).toEqual([]);
    });

    it("session/archive hides a session from the default list, closes it, and unarchive brings it back", async () => {
      await connect();
      const ids: string[] = [];
      for (const text of ["one", "two"]) {
        const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
        suite.model.enqueue(textTurn(`answer ${text}`));
        await suite.agent.request("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text }] });
        ids.push(result.sessionId);
      }
      const [kept, archived] = ids as [string, string];
      const listedIds = async (filter?: string) =>
        (await suite.agent.request("session/list", filter ? { archived: filter } : {})).result.sessions.map(
          (s: { sessionId: string; archived: boolean }) => `${s.sessionId}:${s.archived}`,
        );
      expect((await suite.agent.request("session/status", { sessionId: archived })).result).toEqual({ status: "open" });
      expect((await suite.agent.request("session/archive", { sessionId: archived })).result).toEqual({});
      // Archiving closes it: a prompt now has no session to go to.
      expect((await suite.agent.request("session/status", { sessionId: archived })).result).toEqual({
        status: "saved",
      });
      expect(await listedIds()).toEqual([`${kept}:false`]);
      expect(await listedIds("only")).toEqual([`${archived}:true`]);
      expect((await listedIds("include")).sort()).toEqual([`${kept}:false`, `${archived}:true`].sort());
      expect((await suite.agent.request("session/list", { archived: "sometimes" })).error?.code).toBe(-32602);
      // Archiving twice succeeds; an unknown session is not found.
      expect((await suite.agent.request("session/archive", { sessionId: archived })).result).toEqual({});
      expect((await suite.agent.request("session/archive", { sessionId: "missing" })).error?.code).toBe(-32002);
      expect((await suite.agent.request("session/unarchive", { sessionId: archived })).result).toEqual({});
      expect((await listedIds()).sort()).toEqual([`${kept}:false`, `${archived}:false`].sort());
      const status = await suite.agent.request("session/status", { sessionId: "missing" });
      expect(status.error).toMatchObject({ code: -32002 });
      expect(schemaViolations()).toEqual([]);
    });

    it("systemPrompt: appended text reaches the model; a replaced prompt still names the cwd; both survive load", async () => {
      const { init } = await connect();
      expect(init.agentCapabilities.sessionCapabilities.systemPrompt).toEqual({ mode: { override: {} } });
      const sessionFor = async (systemPrompt: unknown) =>
        (await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [], systemPrompt })).result
          .sessionId as string;
      const appended = await sessionFor({
        mode: "append",
        content: [{ type: "text", text: "Always answer in haiku." }],
      });
      const replaced = await sessionFor({
        mode: "override",
        content: [
          { type: "text", text: "You are Terse." },
          { type: "text", text: "Answer in one word." },
        ],
      });
      for (const sessionId of [appended, replaced]) {
        suite.model.enqueue(textTurn("ok"));
        await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      }
      const [first, second] = suite.model.requests.slice(-2).map((r) => r.system);
      expect(first).toContain("You are deep-acp");
      expect(first).toContain("# Working rules");
      expect(first!.trimEnd().endsWith("Always answer in haiku.")).toBe(true);
      expect(second!.startsWith("You are Terse.\n\nAnswer in one word.")).toBe(true);
      expect(second).not.toContain("You are deep-acp");
      expect(second).not.toContain("# Working rules");
      expect(second).toContain(`Working directory: ${suite.project}`);
      // What cannot be applied is refused before a session exists.
      const bad = [
        { mode: "prepend", content: [{ type: "text", text: "x" }] },
        { mode: "append", content: [] },
        { mode: "append", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
      ];
      for (const systemPrompt of bad) {
        const refused = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [], systemPrompt });
        expect(refused.error?.code, JSON.stringify(systemPrompt)).toBe(-32602);
      }
      expect(schemaViolations()).toEqual([]);
      // A later process loads the replaced one without the field: its stored prompt still applies.
      await suite.agent.stop();
      await connect();
      await suite.agent.request("session/load", { sessionId: replaced, cwd: suite.project, mcpServers: [] });
      suite.model.enqueue(textTurn("ok"));
      await suite.agent.request("session/prompt", { sessionId: replaced, prompt: [{ type: "text", text: "again" }] });
      expect(suite.model.requests.at(-1)!.system.startsWith("You are Terse.")).toBe(true);
      expect(schemaViolations()).toEqual([]);
    });

    it("providers/*: lists our providers, sends one to the editor's gateway, turns one off; auth/status follows", async () => {
      const editor = createFakeEditor();
      // No key at all: the editor's gateway brings the credential.
      await suite.start({ onRequest: editor.handle, api: "none" });
      const init = (await suite.agent.initialize(capabilities)).result;
      expect(init.agentCapabilities).toMatchObject({ providers: {}, auth: { logout: {}, status: {} } });
      expect((await suite.agent.request("auth/status", {})).result).toEqual({ state: "unauthenticated", accounts: [] });
      const listed = (await suite.agent.request("providers/list", {})).result.providers;
      expect(listed.find((p: { providerId: string }) => p.providerId === "anthropic")).toEqual({
        providerId: "anthropic",
        supported: ["anthropic"],
        required: false,
        current: null,
      });
      expect(listed.find((p: { providerId: string }) => p.providerId === "bedrock")).toMatchObject({ supported: [] });
      const gateway = await createFakeModelServer({ handler: () => textTurn("via the gateway") });
      onTestFinished(() => gateway.close());
      const set = (params: object) => suite.agent.request("providers/set", params);
      expect((await set({ providerId: "anthropic", apiType: "openai", baseUrl: gateway.origin })).error?.code).toBe(
        -32602,
      );
      expect((await set({ providerId: "nope", apiType: "openai", baseUrl: gateway.origin })).error?.code).toBe(-32602);
      expect((await set({ providerId: "google", apiType: "_gemini", baseUrl: gateway.origin })).error?.code).toBe(
        -32602,
      );
      const headers = { "x-api-key": "gateway-key", "x-route": "team-a" };
      expect(
        (await set({ providerId: "anthropic", apiType: "anthropic", baseUrl: gateway.origin, headers })).result,
      ).toEqual({});
      await suite.agent.waitFor(() => suite.agent.messages.some((m) => m.method === "auth/status_update"));
      expect(suite.agent.messages.find((m) => m.method === "auth/status_update")!.params).toEqual({
        state: "authenticated",
        accounts: [{ label: "Anthropic through the editor's gateway", active: true }],
      });
      const session = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const model = session.result.configOptions.find((o: { id: string }) => o.id === "model");
      expect(model.options.map((o: { value: string }) => o.value)).toContain("anthropic:claude-sonnet-4-5");
      await suite.agent.request("session/prompt", {
        sessionId: session.result.sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(gateway.requests.at(-1)!.headers).toMatchObject({ "x-api-key": "gateway-key", "x-route": "team-a" });
      const current = (await suite.agent.request("providers/list", {})).result.providers.find(
        (p: { providerId: string }) => p.providerId === "anthropic",
      ).current;
      expect(current).toEqual({ apiType: "anthropic", baseUrl: gateway.origin });
      // Off: nothing picks it any more, and the editor is told it must sign in.
      expect((await suite.agent.request("providers/disable", { providerId: "anthropic" })).result).toEqual({});
      expect((await suite.agent.request("providers/disable", { providerId: "unheard-of" })).result).toEqual({});
      expect((await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] })).error?.code).toBe(
        -32000,
      );
      await suite.agent.waitFor(
        () => suite.agent.messages.filter((m) => m.method === "auth/status_update").length >= 2,
      );
      expect(suite.agent.messages.filter((m) => m.method === "auth/status_update").at(-1)!.params.state).toBe(
        "unauthenticated",
      );
      expect(schemaViolations()).toEqual([]);
    });

    it("auth/status names where the key comes from, never the key", async () => {
      await suite.start({ env: { ANTHROPIC_API_KEY: "sk-ant-do-not-show" } });
      await suite.agent.initialize(capabilities);
      const status = (await suite.agent.request("auth/status", {})).result;
      expect(status).toEqual({
        state: "authenticated",
        accounts: [{ label: "Anthropic API key (ANTHROPIC_API_KEY)", active: true }],
      });
      expect(JSON.stringify(status)).not.toContain("sk-ant-do-not-show");
      expect(schemaViolations()).toEqual([]);
    });

    it("a usage limit past the retries ends the turn saying when it resets; a nearly used limit is a notice", async () => {
      await connect();
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const sessionId = result.sessionId;
      const prompt = (text: string) =>
        suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      suite.model.enqueue({ ...textTurn("fine"), headers: limitHeaders("anthropic", { tokensLeft: 4000 }) });
      expect((await prompt("one")).result.stopReason).toBe("end_turn");
      // 95% of the output tokens used: said once, as a warning in the thread (neither client has notices).
      const warnings = () =>
        suite.agent
          .updates(sessionId)
          .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text.includes("nearly reached"));
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0].content.text).toMatch(/Output tokens per window nearly reached: 95% used, resets at/);
      suite.model.enqueue(rateLimitedTurn("anthropic", { resetsInSeconds: 300 }));
      const limited = await prompt("two");
      // Not an error: the editor shows an answer, and the session goes on.
      expect(limited.error).toBeUndefined();
      expect(limited.result.stopReason).toBe("end_turn");
      const said = suite.agent
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === "agent_message_chunk")
        .map((u) => u.content.text)
        .join("");
      expect(said).toMatch(
        /Anthropic API rate limit reached \(output tokens per window\); it resets at \d\d:\d\d:\d\d UTC \(in 5 min\)/,
      );
      expect(said).toContain("The conversation is kept");
      suite.model.enqueue(textTurn("back"));
      expect((await prompt("three")).result.stopReason).toBe("end_turn");
      expect(schemaViolations()).toEqual([]);
    });

    it("a prompt sent while a turn runs waits for it (the client did not ask to steer)", async () => {
      const { say, first, answer } = await turnAwaitingPermission(
        capabilities,
        textTurn("first done"),
        textTurn("second done"),
      );
      const second = say("and then this");
      answer();
      expect((await first).result.stopReason).toBe("end_turn");
      expect((await second).result.stopReason).toBe("end_turn");
      // Its own turn: the model saw it only after the first turn had ended.
      expect(suite.model.requests.map((r) => r.lastUserText)).toEqual(["do it", "do it", "and then this"]);
      expect(schemaViolations()).toEqual([]);
    });

    it("advertises prompt content without false entries, and every message of a turn is schema-valid", async () => {
      const { init } = await connect();
      expect(init.agentCapabilities.promptCapabilities).toEqual({ image: true, embeddedContext: true });
      suite.model.enqueue(toolTurn("ls", { path: suite.project }), textTurn("Listed."));
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const answer = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "list" }],
      });
      expect(answer.result.stopReason).toBe("end_turn");
      // The turn's two model requests, added up (PromptResponse.usage).
      const { usage } = answer.result;
      expect(usage.inputTokens).toBeGreaterThan(0);
      expect(usage.totalTokens).toBe(
        usage.inputTokens + usage.outputTokens + usage.cachedReadTokens + usage.cachedWriteTokens,
      );
      expect(schemaViolations()).toEqual([]);
    });
  });
}

describe("a client that asks for the quotas-and-limits draft", () => {
  it("gets quota_update snapshots and quota/read, checked against the RFD's shape", async () => {
    await suite.start();
    const init = await suite.agent.initialize({ _meta: { quota: {} } });
    expect(init.result.agentCapabilities.quota).toEqual({});
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    suite.model.enqueue({ ...textTurn("fine"), headers: limitHeaders("anthropic", { tokensLeft: 4000 }) });
    await suite.agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    const quota = suite.agent.updates(result.sessionId).filter((u) => u.sessionUpdate === "quota_update");
    expect(quota).toHaveLength(1);
    expect(quota[0].pools[0]).toMatchObject({ id: "anthropic", state: "available" });
    expect(quota[0].pools[0].meters.find((m: { id: string }) => m.id === "output-tokens")).toMatchObject({
      usedPercent: 95,
      limit: { value: "80000", unit: "tokens" },
      remaining: { value: "4000", unit: "tokens" },
      status: "warning",
    });
    // No notice for it: the client shows the quota itself.
    expect(JSON.stringify(suite.agent.updates(result.sessionId))).not.toContain("nearly reached");
    const read = await suite.agent.request("quota/read", { sessionId: result.sessionId });
    expect(read.result.pools).toEqual(quota[0].pools);
    expect(Date.parse(read.result.updatedAt)).toBeGreaterThanOrEqual(Date.parse(quota[0].updatedAt));
    expect(schemaViolations()).toEqual([]);
  });
});

/**
 * A session whose first prompt ("do it") runs `execute` and waits in its permission dialog until
 * the test calls answer() (allow once); the model answers with `turns` after that.
 */
async function turnAwaitingPermission(capabilities: object, ...turns: Parameters<typeof suite.model.enqueue>) {
  return awaitingPermission(capabilities, [toolTurn("execute", { command: "echo first" }), ...turns]);
}

/** As turnAwaitingPermission, with the model's answers given in full (the dialog is for the first `execute`). */
async function awaitingPermission(capabilities: object, turns: Parameters<typeof suite.model.enqueue>) {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const editor = createFakeEditor({
    permission: async (message) => {
      await opened;
      const option = message.params.options.find((o: { kind: string }) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    },
  });
  await suite.start({ onRequest: editor.handle });
  const init = await suite.agent.initialize(capabilities);
  suite.model.enqueue(...turns);
  const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
  const sessionId: string = result.sessionId;
  const say = (text: string) => suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const first = say("do it");
  await suite.agent.waitFor(() => suite.agent.messages.some((m) => m.method === "session/request_permission"));
  return { init: init.result, sessionId, say, first, answer: () => release() };
}

/** claude-agent-acp's prompt queueing, asked for. */
const QUEUEING = { _meta: { claudeCode: { promptQueueing: true } } };

describe("steering: clients that ask for it", () => {
  it("claude-agent-acp's prompt queueing: a prompt joins the running turn after the tool call", async () => {
    const { init, sessionId, say, first, answer } = await turnAwaitingPermission(QUEUEING, textTurn("did both"));
    expect(init.agentCapabilities._meta).toEqual({ claudeCode: { promptQueueing: true } });
    const second = say("also say both");
    answer();
    const [one, two] = await Promise.all([first, second]);
    // The first answers when the second joins; the second carries the turn to its end.
    expect(one.result.stopReason).toBe("end_turn");
    expect(two.result.stopReason).toBe("end_turn");
    expect(suite.agent.messages.indexOf(one)).toBeLessThan(suite.agent.messages.indexOf(two));
    // One turn, two model requests: the second has the tool's result and the steering message.
    expect(suite.model.requests).toHaveLength(2);
    const sent = suite.model.requests[1]!;
    expect(sent.lastUserText).toBe("also say both");
    expect(sent.messages.some((m) => m.role === "tool")).toBe(true);
    const answerText = suite.agent
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
    expect(answerText).toBe("did both");
    // The text streamed after the handover belongs to the second request: it comes after the first answer.
    const firstAnswer = suite.agent.messages.indexOf(one);
    const chunkAt = suite.agent.messages.findIndex(
      (m) => m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk",
    );
    expect(chunkAt).toBeGreaterThan(firstAnswer);
    expect(schemaViolations()).toEqual([]);
  });

  it("a slash command is never steered: it queues as its own turn, and a later prompt joins the running one", async () => {
    const { say, first, answer } = await turnAwaitingPermission(
      QUEUEING,
      textTurn("did both"),
      textTurn("the command"),
    );
    // Not a command we have, so the model gets it, in a turn of its own after the running one.
    const command = say("/unknown-command please");
    const steered = say("also say both");
    answer();
    const [one, two, three] = await Promise.all([first, command, steered]);
    expect([one, two, three].map((m) => m.result.stopReason)).toEqual(["end_turn", "end_turn", "end_turn"]);
    expect(suite.model.requests.map((r) => r.lastUserText)).toEqual([
      "do it",
      "also say both",
      "/unknown-command please",
    ]);
    // The steered prompt answers when the turn it joined ends; the command's answer waits for its own turn.
    const at = (m: unknown) => suite.agent.messages.indexOf(m as never);
    expect(at(one)).toBeLessThan(at(three));
    expect(at(three)).toBeLessThan(at(two));
    const commandTurnStart = suite.agent.messages.findIndex(
      (m) => m.method === "session/update" && m.params.update.content?.text === "the command",
    );
    expect(at(three)).toBeLessThan(commandTurnStart);
    expect(schemaViolations()).toEqual([]);
  });

  it("a prompt sent during /compact waits for it: only prompt turns take steered messages", async () => {
    await suite.start({ onRequest: createFakeEditor().handle });
    await suite.agent.initialize(QUEUEING);
    let summarize!: () => void;
    const summarizing = new Promise<void>((resolve) => (summarize = resolve));
    suite.model.setHandler(async (request) => {
      if (!request.system.includes("summar")) return textTurn("ok");
      await summarizing;
      return textTurn("SUMMARY");
    });
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    const sessionId = result.sessionId;
    const say = (text: string) =>
      suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    // More messages than compaction keeps (6), so /compact has something to summarize.
    for (let i = 0; i < 4; i++) await say(`message ${i}`);
    const compact = say("/compact");
    await suite.model.waitForRequests(5);
    const after = say("after the summary");
    summarize();
    const [compacted, answered] = await Promise.all([compact, after]);
    expect([compacted, answered].map((m) => m.result.stopReason)).toEqual(["end_turn", "end_turn"]);
    expect(suite.agent.messages.indexOf(compacted)).toBeLessThan(suite.agent.messages.indexOf(answered));
    // Its own turn, after the summary: the model got the summary and the prompt, not the prompt mid-compaction.
    expect(suite.model.requests).toHaveLength(6);
    expect(suite.model.requests[5]!.lastUserText).toBe("after the summary");
    expect(JSON.stringify(suite.model.requests[5]!.body)).toContain("SUMMARY");
    expect(schemaViolations()).toEqual([]);
  });

  it("a message sent while a subagent runs is for the main agent: the subagent never takes it", async () => {
    const {
      sessionId,
      first: prompt,
      answer,
    } = await awaitingPermission({}, [
      toolTurn("task", { description: "run the echo", subagent_type: "general-purpose" }),
      toolTurn("execute", { command: "echo first" }),
      textTurn("subagent done"),
      textTurn("main agent done"),
    ]);
    // The dialog is the subagent's: the main turn's first request called `task`.
    expect(suite.model.requests).toHaveLength(2);
    const steer = suite.agent.request("_session/steering", {
      sessionId,
      prompt: [{ type: "text", text: "also check the logs" }],
    });
    answer();
    expect((await steer).result).toEqual({ outcome: "injected" });
    expect((await prompt).result.stopReason).toBe("end_turn");
    const [, , subagentNext, mainNext] = suite.model.requests;
    expect(subagentNext!.lastUserText).not.toBe("also check the logs");
    expect(JSON.stringify(subagentNext!.messages)).not.toContain("also check the logs");
    expect(mainNext!.lastUserText).toBe("also check the logs");
    expect(JSON.stringify(mainNext!.messages)).toContain("subagent done");
    expect(schemaViolations()).toEqual([]);
  });

  it("codex-acp's _session/steering: injected into the running turn, or a new turn when none runs", async () => {
    const {
      init,
      sessionId,
      first: prompt,
      answer,
    } = await turnAwaitingPermission({}, textTurn("steered"), textTurn("fresh turn"));
    expect(init._meta).toEqual({ steering: { supported: true } });
    const steer = suite.agent.request("_session/steering", { sessionId, prompt: [{ type: "text", text: "use echo" }] });
    answer();
    expect((await steer).result).toEqual({ outcome: "injected" });
    expect((await prompt).result.stopReason).toBe("end_turn");
    expect(suite.model.requests[1]!.lastUserText).toBe("use echo");
    const idle = await suite.agent.request("_session/steering", {
      sessionId,
      prompt: [{ type: "text", text: "more" }],
    });
    expect(idle.result).toEqual({ outcome: "startedNewTurn" });
    await suite.model.waitForRequests(3);
    expect(suite.model.requests[2]!.lastUserText).toBe("more");
    expect(schemaViolations()).toEqual([]);
  });
});
