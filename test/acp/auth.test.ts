import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildInitializeResponse } from "../../src/acp/capabilities.js";
import { agentText } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "auth" });

// No key in the environment: only what `deep-acp login` stores counts.
const NO_ENV_KEY = { ANTHROPIC_API_KEY: "" };

function credentialsFile(home: string): string {
  return join(home, ".deepagents", ".state", "credentials.json");
}

async function storeKey(home: string, apiKey: string): Promise<void> {
  await mkdir(join(home, ".deepagents", ".state"), { recursive: true, mode: 0o700 });
  await writeFile(credentialsFile(home), JSON.stringify({ anthropic: { apiKey } }), { mode: 0o600 });
}

async function errorOf(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error("expected the request to fail");
}

const isTerminal = (m: acp.AuthMethod) => "type" in m && m.type === "terminal";

describe("initialize: auth methods", () => {
  it("always offers an agent method and advertises logout", async () => {
    const h = await suite.start();
    expect(h.init.authMethods).toHaveLength(1);
    expect(h.init.authMethods![0]).toMatchObject({ id: "deep-acp-login", name: expect.any(String) });
    expect(h.init.authMethods!.some(isTerminal)).toBe(false);
    expect(h.init.agentCapabilities?.auth).toEqual({ logout: {}, status: {} });
  });

  it("offers the terminal login (with the legacy descriptor) to clients that can run it", () => {
    const launch = { command: "/usr/bin/node", args: ["/opt/deep-acp/dist/deep-acp.js"] };
    const response = buildInitializeResponse({
      version: "1.0.0",
      clientCapabilities: { auth: { terminal: true } },
      launch,
    });
    const terminal = response.authMethods!.find(isTerminal);
    expect(terminal).toMatchObject({
      type: "terminal",
      id: "deep-acp-terminal-login",
      args: ["login"],
      _meta: {
        "terminal-auth": {
          label: "deep-acp login",
          command: "/usr/bin/node",
          args: ["/opt/deep-acp/dist/deep-acp.js", "login"],
          env: {},
        },
      },
    });
    expect(response.authMethods!.filter((m) => !isTerminal(m)).map((m) => m.id)).toEqual(["deep-acp-login"]);
  });

  it("gives clients that only know the legacy descriptor a method carrying it, never a terminal-type one", () => {
    const launch = { command: "/usr/bin/node", args: ["/x/deep-acp.js"] };
    const response = buildInitializeResponse({
      version: "1.0.0",
      clientCapabilities: { _meta: { "terminal-auth": true } },
      launch,
    });
    expect(response.authMethods!.some(isTerminal)).toBe(false);
    expect(response.authMethods!.find((m) => m.id === "deep-acp-terminal-login")?._meta).toEqual({
      "terminal-auth": {
        label: "deep-acp login",
        command: "/usr/bin/node",
        args: ["/x/deep-acp.js", "login"],
        env: {},
      },
    });
  });

  it("names this process's own node and script as the login command by default", async () => {
    const h = await suite.start({ clientCapabilities: { auth: { terminal: true } } });
    const terminal = h.init.authMethods!.find(isTerminal)!;
    expect(terminal._meta).toEqual({
      "terminal-auth": {
        label: "deep-acp login",
        command: process.execPath,
        args: [process.argv[1], "login"],
        env: {},
      },
    });
  });
});

describe("authenticate", () => {
  it("re-reads stored credentials, so a login made elsewhere works without a restart", async () => {
    const h = await suite.start({ env: NO_ENV_KEY });
    const before = await errorOf(h.newSession(suite.project));
    expect(before.code).toBe(-32000);
    // What `deep-acp login` in another process leaves behind:
    await storeKey(h.home, "sk-from-login");
    expect(await h.agent.request(acp.methods.agent.authenticate, { methodId: "deep-acp-login" })).toEqual({});
    h.model.enqueue(textTurn("hello with the stored key"));
    const { sessionId } = await h.newSession(suite.project);
    const { updates } = await h.prompt(sessionId, "hi");
    expect(agentText(updates)).toBe("hello with the stored key");
    expect(h.model.requests[0]!.headers["x-api-key"]).toBe("sk-from-login");
  });

  it("answers -32000 while no key can be found, and -32602 for a method it never offered", async () => {
    const h = await suite.start({ env: NO_ENV_KEY });
    const missing = await errorOf(h.agent.request(acp.methods.agent.authenticate, { methodId: "deep-acp-login" }));
    expect(missing.code).toBe(-32000);
    expect(missing.message).toMatch(/ANTHROPIC_API_KEY/);
    const unknown = await errorOf(h.agent.request(acp.methods.agent.authenticate, { methodId: "oauth-google" }));
    expect(unknown.code).toBe(-32602);
  });
});

describe("logout", () => {
  it("deletes the stored key; the next session/new asks for auth again", async () => {
    const h = await suite.start({ env: NO_ENV_KEY, setupHome: (home) => storeKey(home, "sk-stored") });
    await h.newSession(suite.project);
    expect(await h.agent.request(acp.methods.agent.logout, {})).toEqual({});
    await expect(stat(credentialsFile(h.home))).rejects.toMatchObject({ code: "ENOENT" });
    expect((await errorOf(h.newSession(suite.project))).code).toBe(-32000);
    // Logging out twice is harmless.
    expect(await h.agent.request(acp.methods.agent.logout, {})).toEqual({});
  });

  it("leaves a key from the environment in charge", async () => {
    const h = await suite.start({
      env: { ANTHROPIC_API_KEY: "sk-env" },
      setupHome: (home) => storeKey(home, "sk-stored"),
    });
    await h.agent.request(acp.methods.agent.logout, {});
    await expect(stat(credentialsFile(h.home))).rejects.toMatchObject({ code: "ENOENT" });
    h.model.enqueue(textTurn("still here"));
    const { sessionId } = await h.newSession(suite.project);
    await h.prompt(sessionId, "hi");
    expect(h.model.requests[0]!.headers["x-api-key"]).toBe("sk-env");
  });
});
