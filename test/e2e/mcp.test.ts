// MCP (and the interpreter that can call MCP tools) through the built binary: `deep-acp mcp
// list|login|logout`, OAuth with /reload in an open editor session, headless project trust, no
// orphan servers after stdin EOF, and an eval whose worker thread loads from the bundle.
import { mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOAuthFixture, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { isAlive, waitForExit, type CommandResult } from "../support/processes.js";
import { EVERYTHING, FIXTURES, NODE } from "../unit/mcp/helpers.js";

const suite = useAgentSuite({ name: "e2e-mcp", prepare: ({ project }) => mkdir(join(project, ".git")) });
/** Every MCP server process a test saw: killed after the file, should one have survived a failure. */
const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

const everythingStdio = { command: NODE, args: [EVERYTHING, "stdio"] };

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, JSON.stringify(value, null, 2));
}
const userMcp = (servers: Record<string, unknown>) =>
  writeJson(join(suite.home, ".deepagents", ".mcp.json"), { mcpServers: servers });

/** Runs `deep-acp ARGS` in the project; `onStderr` sees stderr as it arrives (e.g. the login URL). */
function runCli(args: string[], onStderr?: (text: string) => void): Promise<CommandResult> {
  return suite.run(args, onStderr ? { onStderr } : {});
}

/** Starts the binary as an editor would and opens a session in the project. */
async function openSession(args: string[] = []): Promise<string> {
  const agent = await suite.start({ args, cwd: suite.project });
  await agent.initialize();
  const { result, error } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
  if (error) throw new Error(error.message);
  return result.sessionId as string;
}

async function prompt(sessionId: string, text: string): Promise<{ stopReason: string; text: string }> {
  const before = suite.agent.updates(sessionId).length;
  const response = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  if (response.error) throw new Error(response.error.message);
  const updates = suite.agent.updates(sessionId).slice(before);
  const textOut = updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");
  return { stopReason: response.result.stopReason, text: textOut };
}

function lastToolResult(request: RecordedRequest): string {
  return request.messages.filter((m) => m.role === "tool").at(-1)?.text ?? "";
}

describe("deep-acp mcp list", () => {
  it("shows every source file, the merged servers, their trust and status", async () => {
    await userMcp({ ev: everythingStdio, broken: { command: "${DEEP_ACP_E2E_UNSET}" } });
    await writeJson(join(suite.project, ".mcp.json"), { mcpServers: { proj: everythingStdio } });
    const { code, stdout } = await runCli(["mcp", "list"]);
    expect(code).toBe(0);
    const files = stdout
      .slice(0, stdout.indexOf("Servers:"))
      .split("\n")
      .map((line) => line.trim().split(/\s+/).join(" "));
    expect(files).toEqual(
      expect.arrayContaining([
        `user ${join(suite.home, ".deepagents", ".mcp.json")} (found, 2 servers)`,
        `project ${join(suite.project, ".deepagents", ".mcp.json")} (not found)`,
        `project-root ${join(suite.project, ".mcp.json")} (found, 1 server)`,
      ]),
    );
    expect(stdout).toMatch(/ev {2}\[user, stdio\] {2}ok, \d+ tools/);
    expect(stdout).toMatch(/broken {2}\[user, stdio\] {2}error - .*DEEP_ACP_E2E_UNSET/);
    expect(stdout).toMatch(/proj {2}\[project-root, stdio\] {2}untrusted/);
    expect(stdout).toContain("trust: not approved");

    const trusted = await runCli(["mcp", "list", "--trust-project-mcp"]);
    expect(trusted.stdout).toMatch(/proj {2}\[project-root, stdio\] {2}ok/);
    expect(trusted.stdout).toContain("trust: trusted by --trust-project-mcp");
    expect((await runCli(["mcp", "list", "--no-mcp"])).stdout).toBe("MCP is disabled (--no-mcp).\n");
  });
});

describe("OAuth", () => {
  let auth: OAuthFixture;
  beforeEach(async () => {
    auth = await startOAuthFixture();
  });
  afterEach(async () => {
    await auth.close();
  });

  /** Plays the browser: opens the printed URL and follows the consent redirect to the loopback listener. */
  async function browse(url: string): Promise<void> {
    const consent = await fetch(url, { redirect: "manual" });
    const back = consent.headers.get("location");
    if (!back) throw new Error(`authorize failed: ${consent.status} ${await consent.text()}`);
    await (await fetch(back)).text();
  }

  function login(name: string): Promise<CommandResult> {
    let opened = false;
    return runCli(["mcp", "login", name], (stderr) => {
      const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)/.exec(stderr)?.[1];
      if (url && !opened) {
        opened = true;
        void browse(url);
      }
    });
  }

  it("mcp login in a terminal, then /reload brings the unauthenticated server back in the open session; logout forgets it", async () => {
    await userMcp({ secure: { type: "http", url: auth.mcpUrl, auth: "oauth" } });
    const sessionId = await openSession();
    suite.model.enqueue(textTurn("ok"));
    await prompt(sessionId, "hi");
    expect(suite.model.requests.at(-1)!.toolNames).not.toContain("secure_whoami");
    expect((await prompt(sessionId, "/mcp")).text).toMatch(
      /secure — unauthenticated[\s\S]*reason: .*deep-acp mcp login secure/,
    );

    const result = await login("secure");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/code_challenge_method=S256/);
    expect(result.stdout).toMatch(/^Logged in to secure; tokens saved in .*mcp-tokens\/secure-[0-9a-f]{16}\.json/);
    const tokenDir = join(suite.home, ".deepagents", ".state", "mcp-tokens");
    const [tokenFile] = await readdir(tokenDir);
    expect((await stat(join(tokenDir, tokenFile!))).mode & 0o777).toBe(0o600);
    expect((await stat(tokenDir)).mode & 0o777).toBe(0o700);
    expect(auth.stats).toMatchObject({ registrations: 1, codeGrants: 1, pkceFailures: 0 });

    expect((await prompt(sessionId, "/reload")).text).toContain("MCP secure: unauthenticated → ok");
    expect((await prompt(sessionId, "/mcp")).text).toMatch(/secure — ok/);
    const requestsBefore = suite.model.requests.length;
    suite.model.enqueue(toolTurn("secure_whoami", {}), textTurn("it is me"));
    expect((await prompt(sessionId, "who am I?")).stopReason).toBe("end_turn");
    expect(suite.model.requests[requestsBefore]!.toolNames).toContain("secure_whoami");
    expect(lastToolResult(suite.model.requests.at(-1)!)).toBe("access-1");

    const logout = await runCli(["mcp", "logout", "secure"]);
    expect(logout).toMatchObject({ code: 0, stdout: "Logged out of secure.\n" });
    expect(await readdir(tokenDir)).toEqual([]);
    expect((await runCli(["mcp", "logout", "secure"])).stdout).toBe("No stored login for secure.\n");
  });

  it("login refuses an unapproved project server", async () => {
    await writeJson(join(suite.project, ".mcp.json"), {
      mcpServers: { secure: { type: "http", url: auth.mcpUrl, auth: "oauth" } },
    });
    const result = await runCli(["mcp", "login", "secure"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/project server "secure" is not approved/);
    expect(auth.stats.registrations).toBe(0);
  });
});

describe("headless project trust", () => {
  it("-n skips an unapproved project server unless --trust-project-mcp", async () => {
    await writeJson(join(suite.project, ".mcp.json"), { mcpServers: { proj: everythingStdio } });
    suite.model.setHandler((request) => {
      if (request.messages.at(-1)?.role === "tool") return textTurn(`server said: ${lastToolResult(request)}`);
      return request.toolNames.includes("proj_echo")
        ? toolTurn("proj_echo", { message: "headless" })
        : textTurn("no project server");
    });
    const skipped = await runCli(["-n", "use the project server"]);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toBe("no project server\n");
    expect(skipped.stderr).toContain(
      'deep-acp: Project MCP server "proj" not started (not approved): approve in an editor session, or pass --trust-project-mcp for this run',
    );
    const trusted = await runCli(["-n", "use the project server", "--trust-project-mcp"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toBe("server said: Echo: headless\n");
    expect(trusted.stderr).not.toContain("not approved");
    // The flag is for that run only: nothing was persisted.
    expect((await runCli(["-n", "again"])).stdout).toBe("no project server\n");
  });
});

describe("process lifetime", () => {
  it("stdin EOF ends the agent and every MCP server, including one that ignores SIGTERM", async () => {
    const marker = join(suite.home, "fixture.log");
    await userMcp({
      fixture: { command: NODE, args: [join(FIXTURES, "fixture-server.mjs")], env: { FIXTURE_MARKER: marker } },
      stubborn: { command: NODE, args: [join(FIXTURES, "stubborn-server.mjs")] },
    });
    const sessionId = await openSession();
    suite.model.enqueue(toolTurn("stubborn_pids", {}), textTurn("got them"));
    await prompt(sessionId, "pids");
    const pids = JSON.parse(lastToolResult(suite.model.requests.at(-1)!)) as { server: number; helper: number };
    const fixturePid = Number(/started (\d+)/.exec(await readFile(marker, "utf8"))![1]);
    const all = [pids.server, pids.helper, fixturePid];
    leftovers.push(...all);
    expect(all.every(isAlive)).toBe(true);

    // Not agent.stop(): its 5 s SIGKILL fallback is about the time the stubborn server's grace takes.
    const running = suite.agent;
    running.child.stdin.end();
    const exit = await Promise.race([
      running.exited,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000)),
    ]);
    if (exit === null) running.child.kill("SIGKILL");
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of all) expect(await waitForExit(pid, 5000)).toBe(true);
  });
});

describe("interpreter in the bundle", () => {
  it("runs eval in its worker thread, calling a built-in and an MCP tool from code", async () => {
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    await writeFile(
      join(suite.home, ".deepagents", "config.toml"),
      '[interpreter]\ntools = ["read_file", "ev_get-sum"]\n',
    );
    await userMcp({ ev: everythingStdio });
    await writeFile(join(suite.project, "n.txt"), "40\n");
    const sessionId = await openSession();
    const code = [
      `const n = Number((await tools.readFile({ file_path: ${JSON.stringify(join(suite.project, "n.txt"))} })).trim());`,
      "const sum = await tools.evGetSum({ a: n, b: 2 });",
      'console.log("sum says", sum);',
      "n + 2",
    ].join("\n");
    suite.model.enqueue(toolTurn("eval", { code }), textTurn("42"));
    const { stopReason } = await prompt(sessionId, "compute");
    expect(stopReason).toBe("end_turn");
    expect(suite.model.requests.at(-2)!.system).toContain("tools.evGetSum");
    const output = lastToolResult(suite.model.requests.at(-1)!);
    expect(output).toMatch(/sum says .*42/);
    expect(output.trim().split("\n").at(-1)).toBe("42");
    const calls = suite.agent.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call");
    const evalCall = calls.find((u) => u._meta?.["deep-acp"]?.toolName === "eval")!;
    expect(calls.filter((u) => u._meta?.["deep-acp"]?.parentToolCallId === evalCall.toolCallId)).toHaveLength(2);
    expect(suite.agent.messages.some((m) => m.method === "session/request_permission")).toBe(false);
  });
});
