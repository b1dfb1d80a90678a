// `deep-acp login` / `logout` and ACP authenticate / logout, end to end with the built binary: answers
// are piped to stdin (or typed into a pseudo-terminal), the key is checked against the fake model
// server, and a separate agent process must then work with nothing but the stored key.
import { spawn, spawnSync } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BINARY, type AgentProcess } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn } from "../support/fake-model/index.js";
import { runCommand, type CommandResult } from "../support/processes.js";

const suite = useAgentSuite({ name: "login" });

const stateDir = () => join(suite.home, ".deepagents", ".state");
const credentials = () => join(stateDir(), "credentials.json");
/** The environment an editor without any key would give the agent: only where the provider lives. */
const baseEnv = () => ({ PATH: process.env.PATH, HOME: suite.home, ANTHROPIC_BASE_URL: suite.model.anthropicBaseUrl });

/** Runs `command args` with `input` piped to stdin, as a terminal-auth client would after the user typed. */
function run(
  command: string,
  args: string[],
  input: string,
  env: Record<string, string | undefined> = baseEnv(),
): Promise<CommandResult> {
  return runCommand(command, args, { cwd: suite.project, env: env as NodeJS.ProcessEnv, input });
}

const login = (input: string, env?: Record<string, string | undefined>) =>
  run(process.execPath, [BINARY, "login"], input, env);

function startAgent(env: Record<string, string | undefined> = baseEnv()): Promise<AgentProcess> {
  return suite.start({ api: "none", env, cwd: suite.project });
}

describe("deep-acp login (piped answers)", () => {
  it("checks the key, then stores it 0600 in a 0700 directory next to the other providers' keys", async () => {
    await mkdir(stateDir(), { recursive: true });
    await writeFile(credentials(), JSON.stringify({ openai: { apiKey: "sk-openai" } }));
    const result = await login("1\ngood-key\n");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("The key works.");
    expect(result.stderr + result.stdout).not.toContain("good-key");
    expect(JSON.parse(await readFile(credentials(), "utf8"))).toEqual({
      openai: { apiKey: "sk-openai" },
      anthropic: { apiKey: "good-key" },
    });
    expect((await stat(credentials())).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir())).mode & 0o777).toBe(0o700);
  });

  it("stores nothing when the provider rejects the key", async () => {
    const result = await login("anthropic\nbad-key\n");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/rejected the key \(HTTP 401\); nothing stored/);
    await expect(stat(credentials())).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("knows every provider: stores a Gemini key that a session then uses, and says how Bedrock signs in", async () => {
    const env = { ...baseEnv(), GOOGLE_BASE_URL: suite.model.origin };
    const stored = await login("google\ngemini-key\n", env);
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stderr).toContain("The key works.");
    expect(JSON.parse(await readFile(credentials(), "utf8"))).toEqual({ google: { apiKey: "gemini-key" } });
    suite.model.enqueue(textTurn("answered by gemini"));
    const answer = await run(process.execPath, [BINARY, "-n", "hi"], "", env);
    expect(answer.stdout, answer.stderr).toContain("answered by gemini");
    expect(suite.model.requests.at(-1)!.headers["x-goog-api-key"]).toBe("gemini-key");

    const bedrock = await login("bedrock\n");
    expect(bedrock.code).toBe(1);
    expect(bedrock.stderr).toMatch(/AWS credential chain.*aws sso login/s);
  });

  it("deep-acp logout deletes the stored keys", async () => {
    expect((await login("1\ngood-key\n")).code).toBe(0);
    const result = await run(process.execPath, [BINARY, "logout"], "");
    expect(result.code).toBe(0);
    await expect(stat(credentials())).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("stored credentials over ACP", () => {
  it("serves a session with only the stored key; ACP logout removes it and session/new answers -32000", async () => {
    expect((await login("1\ngood-key\n")).code).toBe(0);
    const agent = await startAgent();
    const init = await agent.initialize();
    expect(init.result.agentCapabilities.auth).toEqual({ logout: {}, status: {} });
    suite.model.enqueue(textTurn("answered with the stored key"));
    const created = await agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    const turn = await agent.request("session/prompt", {
      sessionId: created.result.sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(turn.result.stopReason).toBe("end_turn");
    expect(suite.model.requests.at(-1)!.headers["x-api-key"]).toBe("good-key");

    expect((await agent.request("logout", {})).result).toEqual({});
    await expect(stat(credentials())).rejects.toMatchObject({ code: "ENOENT" });
    const refused = await agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(refused.error?.code).toBe(-32000);
    expect(init.result.authMethods.map((m: { id: string }) => m.id)).toContain("deep-acp-login");
  });

  it("authenticate picks up a login finished in another process, without a restart (AUTH-003)", async () => {
    const agent = await startAgent();
    await agent.initialize();
    expect((await agent.request("session/new", { cwd: suite.project, mcpServers: [] })).error?.code).toBe(-32000);
    expect((await login("1\ngood-key\n")).code).toBe(0);
    expect((await agent.request("authenticate", { methodId: "deep-acp-login" })).result).toEqual({});
    const created = await agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(typeof created.result?.sessionId).toBe("string");
  });

  it("runs the terminal auth method as a client would: the agent's command plus its args, or the legacy descriptor", async () => {
    const agent = await startAgent();
    const init = await agent.initialize({ auth: { terminal: true }, _meta: { "terminal-auth": true } });
    const method = init.result.authMethods.find((m: { type?: string }) => m.type === "terminal");
    // The editor relaunches the command it started the agent with, method args appended.
    const viaArgs = await run(process.execPath, [BINARY, ...method.args], "1\nfirst-key\n");
    expect(viaArgs.code).toBe(0);
    expect(JSON.parse(await readFile(credentials(), "utf8"))).toEqual({ anthropic: { apiKey: "first-key" } });
    // Older clients run the descriptor's command line as it is.
    const legacy = method._meta["terminal-auth"];
    const viaMeta = await run(legacy.command, legacy.args, "1\nsecond-key\n", { ...baseEnv(), ...legacy.env });
    expect(viaMeta.code).toBe(0);
    expect(JSON.parse(await readFile(credentials(), "utf8"))).toEqual({ anthropic: { apiKey: "second-key" } });

    expect((await agent.request("authenticate", { methodId: "deep-acp-login" })).result).toEqual({});
    suite.model.enqueue(textTurn("ok"));
    const created = await agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    await agent.request("session/prompt", {
      sessionId: created.result.sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(suite.model.requests.at(-1)!.headers["x-api-key"]).toBe("second-key");
  });
});

// `script` (util-linux) gives the login a real pseudo-terminal, as an editor's terminal pane does.
const hasScript = spawnSync("script", ["--version"]).status === 0;

function inTerminal(env: Record<string, string | undefined>) {
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const child = spawn("script", ["-qec", `${quote(process.execPath)} ${quote(BINARY)} login`, "/dev/null"], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  const listeners = new Set<() => void>();
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    screen += d;
    listeners.forEach((l) => l());
  });
  // "close", not "exit": the last of the screen may still be in the pipe when the process exits.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    screen: () => screen,
    type: (text: string) => void child.stdin.write(text),
    waitFor: (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => screen.includes(text) && (listeners.delete(check), resolve());
        listeners.add(check);
        check();
      }),
    async exit(): Promise<number | null> {
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      child.stdin.destroy();
      return code;
    },
  };
}

describe.skipIf(!hasScript)("deep-acp login on a terminal", () => {
  it("does not echo the key", async () => {
    const term = inTerminal(baseEnv());
    await term.waitFor("Provider [1]: ");
    term.type("1\r");
    await term.waitFor("(input hidden): ");
    term.type("tty-secret-key\r");
    expect(await term.exit()).toBe(0);
    expect(term.screen()).toContain("The key works.");
    expect(term.screen()).not.toContain("tty-secret-key");
    expect(JSON.parse(await readFile(credentials(), "utf8"))).toEqual({ anthropic: { apiKey: "tty-secret-key" } });
  });

  it("stores nothing when the user presses Ctrl-C at the key prompt", async () => {
    const term = inTerminal(baseEnv());
    await term.waitFor("Provider [1]: ");
    term.type("1\r");
    await term.waitFor("(input hidden): ");
    term.type("half-typed\x03");
    expect(await term.exit()).toBe(130);
    expect(term.screen()).toContain("Cancelled; nothing stored.");
    await expect(stat(credentials())).rejects.toMatchObject({ code: "ENOENT" });
  });
});
