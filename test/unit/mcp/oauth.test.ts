import { readFile, stat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import { createMcpSignIn } from "../../../src/extensions/mcp-sign-in.js";
import { createMcpManager } from "../../../src/mcp/servers/manager.js";
import { mcpLogin, mcpLogout } from "../../../src/mcp/oauth-login.js";
import { tokenFilePath } from "../../../src/mcp/oauth/oauth-store.js";
import { createMcpTrustResolver } from "../../../src/mcp/trust/trust.js";
import { createMcpTrustStore } from "../../../src/mcp/trust/trust-store.js";
import type { Questioner } from "../../../src/tools/types.js";
import { silentLogger } from "../../../src/util/logger.js";
import { startOAuthFixture, type OAuthFixture } from "../../fixtures/mcp/oauth-server.js";
import { entry, makeTempDir, run, textOf } from "./helpers.js";

describe("OAuth for remote servers", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let fixture: OAuthFixture;
  let stateDir: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    stateDir = join(dir, "home", ".deepagents", ".state");
    fixture = await startOAuthFixture();
    browser.opened = [];
  });
  afterEach(async () => {
    await fixture.close();
    await cleanup();
  });

  const trust = (options: { trustProjectServers?: boolean } = {}) =>
    createMcpTrustResolver({ store: createMcpTrustStore({ stateDir }), projectRoot: dir, ...options });

  /** Plays the browser: follows the authorization redirect back to the loopback listener. */
  const browser = { opened: [] as string[] };

  const openUrl = async (url: string) => {
    browser.opened.push(url);
    const consent = await fetch(url, { redirect: "manual" });
    const back = consent.headers.get("location");
    if (!back) throw new Error(`authorize failed: ${consent.status} ${await consent.text()}`);
    await (await fetch(back)).text();
  };

  it("logs in with PKCE, connects, refreshes an expired token, and turns unauthenticated when refresh fails", async () => {
    const server = entry("secure", { type: "http", url: fixture.mcpUrl, auth: "oauth" });
    const manager = createMcpManager({ entries: [server], trust: trust(), stateDir, env: {} });
    try {
      manager.start();
      await manager.ready();
      expect(manager.describe()[0]).toMatchObject({
        status: "unauthenticated",
        reason: expect.stringMatching(/deep-acp mcp login secure/),
      });

      const login = await mcpLogin("secure", { entries: [server], trust: trust(), stateDir, openUrl, env: {} });
      expect(login.tokenFile).toBe(tokenFilePath(stateDir, "secure", fixture.mcpUrl));
      expect(login.tokenFile).toMatch(/mcp-tokens\/secure-[0-9a-f]{16}\.json$/);
      expect(browser.opened[0]).toMatch(/code_challenge_method=S256/);
      expect(fixture.stats).toMatchObject({ registrations: 1, codeGrants: 1, pkceFailures: 0 });
      expect((await stat(login.tokenFile)).mode & 0o777).toBe(0o600);
      expect((await stat(join(stateDir, "mcp-tokens"))).mode & 0o777).toBe(0o700);
      expect(await readdir(join(stateDir, "mcp-tokens"))).toEqual([login.tokenFile.split("/").pop()]);
      const saved = JSON.parse(await readFile(login.tokenFile, "utf8"));
      expect(saved).toMatchObject({
        server: "secure",
        url: fixture.mcpUrl,
        tokens: { access_token: expect.stringMatching(/^access-1-/), refresh_token: expect.any(String) },
        client: { client_id: "client-1" },
      });

      // After login, /reload brings the unauthenticated server back in the same session.
      await manager.reload([server]);
      await manager.ready();
      expect(manager.describe()[0]!.status).toBe("ok");
      expect(textOf(await run(manager.tools(), "secure_whoami", {}))).toBe("access-1");

      fixture.expireAccessTokens();
      expect(textOf(await run(manager.tools(), "secure_whoami", {}))).toBe("access-2");
      expect(fixture.stats.refreshGrants).toBe(1);
      expect(JSON.parse(await readFile(login.tokenFile, "utf8")).tokens.access_token).toMatch(/^access-2-/);

      fixture.expireAccessTokens();
      fixture.revokeRefreshTokens();
      const failed = await run(manager.tools(), "secure_whoami", {});
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/needs a new login/);
      expect(manager.describe()[0]).toMatchObject({
        status: "unauthenticated",
        reason: expect.stringMatching(/mcp login secure/),
      });
      expect(fixture.stats.rejectedRefreshes).toBeGreaterThanOrEqual(1);

      await mcpLogin("secure", { entries: [server], trust: trust(), stateDir, openUrl, env: {} });
      await manager.reload([server]);
      await manager.ready();
      expect(manager.describe()[0]!.status).toBe("ok");
      expect(textOf(await run(manager.tools(), "secure_whoami", {}))).toMatch(/^access-/);
    } finally {
      await manager.close();
    }
  });

  it("marks a server unauthenticated on connect when its refresh token is dead", async () => {
    const server = entry("secure", { type: "http", url: fixture.mcpUrl, auth: "oauth" });
    await mcpLogin("secure", { entries: [server], trust: trust(), stateDir, openUrl, env: {} });
    fixture.expireAccessTokens();
    fixture.revokeRefreshTokens();
    const manager = createMcpManager({ entries: [server], trust: trust(), stateDir, env: {} });
    try {
      manager.start();
      await manager.ready();
      expect(manager.describe()[0]).toMatchObject({
        status: "unauthenticated",
        reason: expect.stringMatching(/refresh failed/),
      });
      expect(browser.opened).toHaveLength(1);
    } finally {
      await manager.close();
    }
  });

  it("a protected server without auth: oauth is reported as unauthenticated", async () => {
    const manager = createMcpManager({
      entries: [entry("plain", { url: fixture.mcpUrl })],
      trust: trust(),
      stateDir,
      env: {},
    });
    try {
      manager.start();
      await manager.ready();
      expect(manager.describe()[0]).toMatchObject({
        status: "unauthenticated",
        reason: expect.stringMatching(/HTTP 401/),
      });
    } finally {
      await manager.close();
    }
  });

  it("login obeys project trust", async () => {
    const project = entry(
      "secure",
      { type: "http", url: fixture.mcpUrl, auth: "oauth" },
      "project-root",
      join(dir, ".mcp.json"),
    );
    await expect(
      mcpLogin("secure", { entries: [project], trust: trust(), stateDir, openUrl, env: {} }),
    ).rejects.toThrow(/not approved/);
    expect(fixture.stats.registrations).toBe(0);
    await mcpLogin("secure", {
      entries: [project],
      trust: trust({ trustProjectServers: true }),
      stateDir,
      openUrl,
      env: {},
    });
    expect(fixture.stats.codeGrants).toBe(1);
  });

  it("signing in through the editor honours the session's allow-once of a project server", async () => {
    const project = entry(
      "secure",
      { type: "http", url: fixture.mcpUrl, auth: "oauth" },
      "project-root",
      join(dir, ".mcp.json"),
    );
    const dialogs: string[] = [];
    const sessionTrust = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir }),
      projectRoot: dir,
      decide: async (request) => {
        dialogs.push(request.name);
        return "allow_once";
      },
    });
    const manager = createMcpManager({ entries: [project], trust: sessionTrust, stateDir, env: {} });
    try {
      manager.start();
      await manager.ready();
      expect(manager.describe()[0]).toMatchObject({ status: "unauthenticated" });
      const questioner: Questioner = {
        forms: false,
        urls: true,
        ask: () => Promise.reject(new Error("no questions expected")),
        form: () => Promise.reject(new Error("no forms expected")),
        openUrl: async (request) => {
          await openUrl(request.url);
          return "accept";
        },
      };
      const signIn = createMcpSignIn({
        services: { paths: { stateDir }, env: {}, logger: silentLogger },
        projectRoot: dir,
        questioner,
      });
      const notices: AgentEvent[] = [];
      const target = { mcp: manager, mcpEntries: [project], mcpEnvPolicy: { projectEnv: [] }, mcpTrust: sessionTrust };
      await signIn.run(target, new AbortController().signal, (event) => notices.push(event));
      expect(notices).toEqual([
        expect.objectContaining({ title: 'Signed in to MCP server "secure"; its tools are available.' }),
      ]);
      // Allowed once, asked once: the sign-in did not ask again nor refuse the server as unapproved.
      expect(dialogs).toEqual(["secure"]);
      expect(fixture.stats.codeGrants).toBe(1);
      expect(manager.describe()[0]!.status).toBe("ok");
    } finally {
      await manager.close();
    }
  });

  it("rejects login for unknown, stdio and non-OAuth servers, and logout removes every token file of a name", async () => {
    const entries = [entry("local", { command: "x" }), entry("open", { url: fixture.mcpUrl })];
    const login = (name: string) => mcpLogin(name, { entries, trust: trust(), stateDir, openUrl, env: {} });
    await expect(login("missing")).rejects.toThrow(/no MCP server named "missing" \(configured: local, open\)/);
    await expect(login("local")).rejects.toThrow(/stdio server/);
    await expect(login("open")).rejects.toThrow(/does not use OAuth/);

    const dev = entry("secure", { type: "http", url: fixture.mcpUrl, auth: "oauth" });
    await mcpLogin("secure", { entries: [dev], trust: trust(), stateDir, openUrl, env: {} });
    const prod = entry("secure", { type: "http", url: `${fixture.mcpUrl}?env=prod`, auth: "oauth" });
    await mcpLogin("secure", { entries: [prod], trust: trust(), stateDir, openUrl, env: {} });
    const other = entry("secure-2", { type: "http", url: fixture.mcpUrl, auth: "oauth" });
    await mcpLogin("secure-2", { entries: [other], trust: trust(), stateDir, openUrl, env: {} });
    expect(await readdir(join(stateDir, "mcp-tokens"))).toHaveLength(3);

    const { removed } = await mcpLogout("secure", { stateDir });
    expect(removed).toHaveLength(2);
    expect(await readdir(join(stateDir, "mcp-tokens"))).toEqual([
      tokenFilePath(stateDir, "secure-2", fixture.mcpUrl).split("/").pop(),
    ]);
    expect(await mcpLogout("secure", { stateDir })).toEqual({ removed: [] });
  });

  it("the fixture really verifies PKCE", async () => {
    const register = await fetch(`${fixture.base}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:1/cb"] }),
    });
    const { client_id } = (await register.json()) as { client_id: string };
    const authorize = await fetch(
      `${fixture.base}/authorize?response_type=code&client_id=${client_id}&redirect_uri=${encodeURIComponent("http://127.0.0.1:1/cb")}&code_challenge=abc&code_challenge_method=S256`,
      { redirect: "manual" },
    );
    const code = new URL(authorize.headers.get("location")!).searchParams.get("code")!;
    const token = await fetch(`${fixture.base}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        client_id,
        redirect_uri: "http://127.0.0.1:1/cb",
        code_verifier: "wrong",
      }),
    });
    expect(token.status).toBe(400);
    expect(fixture.stats.pkceFailures).toBe(1);
  });
});
