// ACP v2: the session-meta methods (set_title, archive, unarchive, status), the editor's system
// prompt, providers/* and auth/status, through the SDK's own v2 client. Every message the agent sends
// is checked against the SDK's v2 schema (the harness fails on close otherwise).
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "../support/acp-v2-harness.js";
import { textTurn } from "../support/fake-model/index.js";

let project: string;
let h: V2Harness;

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "deep-acp-v2-meta-"));
  await mkdir(join(project, ".git"));
  h = await startV2Harness();
});
afterEach(async () => {
  await h.close();
  await rm(project, { recursive: true, force: true });
});

describe("ACP v2 session standing, system prompt, providers and auth status", () => {
  it("advertises each in v2's shape, prompt content as object markers without false entries", () => {
    const capabilities = h.init.capabilities ?? {};
    expect(capabilities.session?.prompt).toEqual({ image: {}, embeddedContext: {} });
    expect(capabilities.session).toMatchObject({ title: {}, archive: {}, status: {}, systemPrompt: {} });
    expect(capabilities.auth).toEqual({ status: {} });
    expect(capabilities.providers).toEqual({});
  });

  it("set_title, status with the foreground state, archive out of the list and back", async () => {
    const { sessionId } = await h.newSession(project);
    h.model.setHandler(() => textTurn("ok"));
    await h.prompt(sessionId, "hi");
    await h.idle(sessionId);

    const mark = h.updates.length;
    const titled = await h.agent.request(v2.methods.agent.session.setTitle, {
      sessionId,
      title: "  Fix   the  build ",
    });
    expect(titled).toEqual({ title: "Fix the build" });
    await h.waitFor(() => h.of(sessionId, mark).some((u) => u.sessionUpdate === "session_info_update"));
    expect(h.of(sessionId, mark).find((u) => u.sessionUpdate === "session_info_update")).toMatchObject({
      title: "Fix the build",
    });

    const open = await h.agent.request(v2.methods.agent.session.status, { sessionId });
    expect(open).toEqual({ status: "open", state: { state: "idle", background: [] } });

    await h.agent.request(v2.methods.agent.session.archive, { sessionId });
    expect(await h.agent.request(v2.methods.agent.session.status, { sessionId })).toEqual({ status: "saved" });
    const listed = async (archived?: "only") =>
      (await h.agent.request(v2.methods.agent.session.list, archived ? { archived } : {})).sessions;
    expect((await listed()).map((s) => s.sessionId)).not.toContain(sessionId);
    expect(await listed("only")).toEqual([
      expect.objectContaining({ sessionId, archived: true, title: "Fix the build" }),
    ]);
    // Archived means closed on this connection: a prompt for it is refused, nothing inserted.
    await expect(h.prompt(sessionId, "still there?")).rejects.toMatchObject({ code: -32002 });

    await h.agent.request(v2.methods.agent.session.unarchive, { sessionId });
    expect((await listed()).find((s) => s.sessionId === sessionId)).toMatchObject({ archived: false });
    await expect(
      h.agent.request(v2.methods.agent.session.status, { sessionId: "no-such-session" }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it("the editor's appended system prompt reaches the model request", async () => {
    const { sessionId } = await h.newSession(project);
    await h.agent.request(v2.methods.agent.session.close, { sessionId });
    const appended = await h.agent.request(v2.methods.agent.session.new, {
      cwd: project,
      systemPrompt: { mode: "append", content: [{ type: "text", text: "Answer in haiku." }] },
    });
    h.model.setHandler(() => textTurn("ok"));
    await h.prompt(appended.sessionId, "hi");
    await h.idle(appended.sessionId);
    expect(h.model.requests.at(-1)!.system).toContain("Answer in haiku.");
  });

  it("providers/list, set and disable over the provider table; auth/status and its updates", async () => {
    const status = await h.agent.request(v2.methods.agent.auth.status, {});
    expect(status.state).toBe("authenticated");
    expect(status.accounts?.find((a) => a.active)?.label).toContain("Anthropic");

    const { providers } = await h.agent.request(v2.methods.agent.providers.list, {});
    const anthropic = providers.find((p) => p.providerId === "anthropic");
    expect(anthropic).toMatchObject({ supported: ["anthropic"], required: false, current: { apiType: "anthropic" } });

    await h.agent.request(v2.methods.agent.providers.set, {
      providerId: "anthropic",
      apiType: "anthropic",
      baseUrl: h.model.anthropicBaseUrl,
      headers: { "x-api-key": "from-the-editor" },
    });
    await h.waitFor(() => h.authUpdates.length === 1);
    expect(h.authUpdates[0]!.accounts?.find((a) => a.active)?.label).toContain("through the editor's gateway");
    await expect(
      h.agent.request(v2.methods.agent.providers.set, { providerId: "nope", apiType: "openai", baseUrl: "http://x" }),
    ).rejects.toMatchObject({ code: -32602 });

    await h.agent.request(v2.methods.agent.providers.disable, { providerId: "anthropic" });
    const listed = await h.agent.request(v2.methods.agent.providers.list, {});
    expect(listed.providers.find((p) => p.providerId === "anthropic")?.current ?? null).toBeNull();
    await h.waitFor(() => h.authUpdates.length === 2);
    expect(h.authUpdates[1]!.accounts?.some((a) => a.label.includes("Anthropic"))).toBe(false);
  });
});
