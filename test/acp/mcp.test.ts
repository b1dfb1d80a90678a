// MCP end to end over ACP: real servers from npm (server-everything over stdio, Streamable HTTP and
// SSE; server-filesystem) and failure fixtures, driven through the fake model. Assertions are on
// what the editor sees (updates, dialogs, /mcp) and what the model receives (tool lists, results).
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentText, toolUpdates, type Harness } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn, type FakeTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { isAlive, waitForExit } from "../support/processes.js";
import { EVERYTHING, FILESYSTEM, FIXTURES, NODE, startEverything } from "../unit/mcp/helpers.js";

const FIXTURE_SERVER = join(FIXTURES, "fixture-server.mjs");
const HANG_SERVER = join(FIXTURES, "hang-server.mjs");
const STUBBORN_SERVER = join(FIXTURES, "stubborn-server.mjs");
const everythingStdio = (extra: Record<string, unknown> = {}) => ({
  command: NODE,
  args: [EVERYTHING, "stdio"],
  ...extra,
});

const suite = useHarnessSuite({ name: "mcp", prepare: gitProject });

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, JSON.stringify(value, null, 2));
}

const userMcp = (servers: Record<string, unknown>) =>
  writeJson(join(suite.home, ".deepagents", ".mcp.json"), { mcpServers: servers });
const projectMcp = (servers: Record<string, unknown>) =>
  writeJson(join(suite.project, ".mcp.json"), { mcpServers: servers });
const userConfig = async (toml: string) => {
  await mkdir(join(suite.home, ".deepagents"), { recursive: true });
  await writeFile(join(suite.home, ".deepagents", "config.toml"), toml);
};

/** Each user message gets the next scripted tool call, then "done" once its result is back. */
function callEachPrompt(h: Harness, calls: Array<[string, unknown]>): void {
  let next = 0;
  h.model.setHandler((request): FakeTurn => {
    const last = request.messages.at(-1);
    if (last?.role === "user" && next < calls.length) {
      const [name, input] = calls[next++]!;
      return toolTurn(name, input);
    }
    return textTurn("done");
  });
}

/** What the model received as the result of its last tool call. */
function lastToolResult(request: RecordedRequest): { text: string; isError: boolean } {
  const result = request.messages.filter((m) => m.role === "tool").at(-1);
  if (!result) throw new Error(`no tool result in ${JSON.stringify(request.messages)}`);
  return { text: result.text, isError: result.isError === true };
}

const mcpStatus = async (h: Harness, sessionId: string) => agentText((await h.prompt(sessionId, "/mcp")).updates);
const trustDialogs = (h: Harness, server: string) =>
  h.permissions.filter((p) => p.toolCall.title === `Start project MCP server "${server}"?`);

describe("MCP servers reach the model from every source", () => {
  it("advertises http and sse MCP transports", async () => {
    const h = await suite.start();
    expect(h.init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
  });

  it("a stdio server from ~/.deepagents/.mcp.json, with ${VAR} expanded from the agent's environment only", async () => {
    await userMcp({
      ev: {
        command: "${DEEP_ACP_TEST_NODE}",
        args: ["${DEEP_ACP_TEST_EVERYTHING}", "stdio"],
        env: { GREETING: "${DEEP_ACP_TEST_GREETING}", FALLBACK: "${DEEP_ACP_TEST_UNSET:-from-default}" },
      },
      broken: everythingStdio({ env: { TOKEN: "${DEEP_ACP_TEST_MISSING}" } }),
    });
    const h = await suite.start({
      env: { DEEP_ACP_TEST_NODE: NODE, DEEP_ACP_TEST_EVERYTHING: EVERYTHING, DEEP_ACP_TEST_GREETING: "hello-from-env" },
    });
    const { sessionId } = await h.newSession(suite.project);
    callEachPrompt(h, [["ev_get-env", {}]]);
    const { updates } = await h.prompt(sessionId, "show the server environment");
    expect(h.model.requests[0]!.toolNames).toContain("ev_get-env");
    expect(h.model.requests[0]!.toolNames.some((name) => name.startsWith("broken_"))).toBe(false);
    const result = lastToolResult(h.model.requests[1]!);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('"GREETING": "hello-from-env"');
    expect(result.text).toContain('"FALLBACK": "from-default"');
    // The agent's own secrets are not inherited by the server.
    expect(result.text).not.toContain("ANTHROPIC_API_KEY");
    expect(result.text).not.toContain("test-key");
    expect(toolUpdates(updates).map((u) => u.title)).toContain("ev/get-env");
    expect(h.permissions).toHaveLength(0); // user config is trusted and get-env is annotated read-only

    const status = await mcpStatus(h, sessionId);
    expect(status).toMatch(/ev — ok/);
    expect(status).toMatch(/broken — error/);
    expect(status).toContain("DEEP_ACP_TEST_MISSING");
  });

  it("a stdio server from the project's .mcp.json, once approved in the editor", async () => {
    await projectMcp({ proj: everythingStdio() });
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    callEachPrompt(h, [["proj_get-sum", { a: 19, b: 23 }]]);
    await h.prompt(sessionId, "add them");
    expect(trustDialogs(h, "proj")).toHaveLength(1);
    expect(lastToolResult(h.model.requests[1]!).text).toContain("42");
  });

  it("stdio, Streamable HTTP and SSE servers the editor passes in session/new", async () => {
    const http = await startEverything("streamableHttp");
    const sse = await startEverything("sse");
    try {
      const h = await suite.start();
      const { sessionId } = await h.newSession(suite.project, {
        mcpServers: [
          { name: "local", command: NODE, args: [EVERYTHING, "stdio"], env: [] },
          { type: "http", name: "web", url: http.url, headers: [] },
          { type: "sse", name: "stream", url: sse.url, headers: [] },
        ],
      });
      callEachPrompt(h, [
        ["local_echo", { message: "via stdio" }],
        ["web_echo", { message: "via streamable http" }],
        ["stream_echo", { message: "via sse" }],
      ]);
      await h.prompt(sessionId, "one");
      await h.prompt(sessionId, "two");
      await h.prompt(sessionId, "three");
      const tools = h.model.requests[0]!.toolNames;
      expect(tools).toEqual(expect.arrayContaining(["local_echo", "web_echo", "stream_echo"]));
      const results = h.model.requests
        .filter((r) => r.messages.at(-1)?.role === "tool")
        .map((r) => lastToolResult(r).text);
      expect(results).toEqual(["Echo: via stdio", "Echo: via streamable http", "Echo: via sse"]);
      expect(h.permissions).toHaveLength(0);
    } finally {
      await http.stop();
      await sse.stop();
    }
  });

  it("Streamable HTTP and SSE servers from a config file", async () => {
    const http = await startEverything("streamableHttp");
    const sse = await startEverything("sse");
    try {
      await userMcp({
        web: { type: "streamable_http", url: http.url },
        stream: { transport: "sse", url: "${DEEP_ACP_TEST_SSE_URL}" },
      });
      const h = await suite.start({ env: { DEEP_ACP_TEST_SSE_URL: sse.url } });
      const { sessionId } = await h.newSession(suite.project);
      callEachPrompt(h, [
        ["web_get-sum", { a: 1, b: 2 }],
        ["stream_get-sum", { a: 3, b: 4 }],
      ]);
      await h.prompt(sessionId, "one");
      await h.prompt(sessionId, "two");
      expect(lastToolResult(h.model.requests[1]!).text).toContain("3");
      expect(lastToolResult(h.model.requests[3]!).text).toContain("7");
      const status = await mcpStatus(h, sessionId);
      expect(status).toMatch(/web — ok/);
      expect(status).toMatch(/stream — ok/);
    } finally {
      await http.stop();
      await sse.stop();
    }
  });

  it("server-filesystem: reads without asking, writes after the editor approves", async () => {
    await writeFile(join(suite.project, "notes.txt"), "remember the milk\n");
    await userMcp({ files: { command: NODE, args: [FILESYSTEM, suite.project] } });
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    callEachPrompt(h, [
      ["files_read_text_file", { path: join(suite.project, "notes.txt") }],
      ["files_write_file", { path: join(suite.project, "out.txt"), content: "written by mcp" }],
    ]);
    await h.prompt(sessionId, "read the notes");
    expect(lastToolResult(h.model.requests[1]!).text).toContain("remember the milk");
    expect(h.permissions).toHaveLength(0);
    await h.prompt(sessionId, "write a file");
    expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["files/write_file"]);
    expect(await readFile(join(suite.project, "out.txt"), "utf8")).toBe("written by mcp");
  });
});

describe("merging, flags and filters", () => {
  it("--mcp-config wins over user and project files; no dialog for the replaced project server", async () => {
    await userMcp({ srv: everythingStdio({ allowedTools: ["echo"] }) });
    await projectMcp({ srv: everythingStdio({ allowedTools: ["get-sum"] }) });
    const flagFile = join(suite.home, "flag-mcp.json");
    await writeJson(flagFile, { mcpServers: { srv: everythingStdio({ allowedTools: ["get-env"] }) } });
    const h = await suite.start({ args: ["--mcp-config", flagFile] });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    expect(h.model.requests[0]!.toolNames.filter((name) => name.startsWith("srv_"))).toEqual(["srv_get-env"]);
    expect(h.permissions).toHaveLength(0);
    expect(await mcpStatus(h, sessionId)).toContain(`source: flag (${flagFile})`);
  });

  it("--no-mcp turns every source off, editor servers included", async () => {
    await userMcp({ user: everythingStdio() });
    await projectMcp({ proj: everythingStdio() });
    const h = await suite.start({ args: ["--no-mcp"] });
    const { sessionId } = await h.newSession(suite.project, {
      mcpServers: [{ name: "ed", command: NODE, args: [EVERYTHING, "stdio"], env: [] }],
    });
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    expect(h.model.requests[0]!.toolNames.filter((name) => /^(user|proj|ed)_/.test(name))).toEqual([]);
    expect(h.permissions).toHaveLength(0);
  });

  it("config.toml [mcp].disabled_servers keeps a configured server off", async () => {
    await userMcp({ off: everythingStdio(), on: everythingStdio({ allowedTools: ["echo"] }) });
    await userConfig('[mcp]\ndisabled_servers = ["off"]\n');
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    expect(h.model.requests[0]!.toolNames.filter((name) => /^(on|off)_/.test(name))).toEqual(["on_echo"]);
    expect(await mcpStatus(h, sessionId)).toMatch(/off — disabled/);
  });

  it("allowedTools and disabledTools (literal, glob, prefixed) narrow the list the model receives", async () => {
    await userMcp({
      keep: everythingStdio({ allowedTools: ["echo", "get-s*"] }),
      drop: everythingStdio({ disabledTools: ["drop_echo", "get-*", "toggle-*"] }),
    });
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    const tools = h.model.requests[0]!.toolNames;
    expect(tools.filter((name) => name.startsWith("keep_")).sort()).toEqual([
      "keep_echo",
      "keep_get-structured-content",
      "keep_get-sum",
    ]);
    const dropped = tools.filter((name) => name.startsWith("drop_"));
    expect(dropped.length).toBeGreaterThan(0);
    expect(
      dropped.filter((name) => name === "drop_echo" || name.startsWith("drop_get-") || name.startsWith("drop_toggle-")),
    ).toEqual([]);
    expect(dropped).toContain("drop_trigger-long-running-operation");
    expect(await mcpStatus(h, sessionId)).toMatch(/hidden by filter: .*echo/);
  });
});

describe("failures", () => {
  it("a server that crashes mid-call fails that call cleanly; the session and other servers keep working", async () => {
    await userMcp({ fixture: { command: NODE, args: [FIXTURE_SERVER] }, ev: everythingStdio() });
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    callEachPrompt(h, [
      ["fixture_crash", {}],
      ["ev_echo", { message: "still here" }],
    ]);
    const crashed = await h.prompt(sessionId, "crash it");
    expect(crashed.response.stopReason).toBe("end_turn");
    expect(toolUpdates(crashed.updates).at(-1)).toMatchObject({ status: "failed" });
    const failure = lastToolResult(h.model.requests[1]!);
    expect(failure.isError).toBe(true);
    expect(failure.text).toMatch(/fixture: crash failed: MCP server "fixture" stopped during the call/);

    const next = await h.prompt(sessionId, "carry on");
    expect(next.response.stopReason).toBe("end_turn");
    expect(lastToolResult(h.model.requests.at(-1)!).text).toBe("Echo: still here");
    expect(h.model.requests.at(-1)!.toolNames.some((name) => name.startsWith("fixture_"))).toBe(false);
    const status = await mcpStatus(h, sessionId);
    expect(status).toMatch(/fixture — error/);
    expect(status).toMatch(/reason: .*(exit|code 3|about to crash)/);
  });

  it("a server that never answers initialize does not hold up the first prompt or the other servers", async () => {
    await userMcp({ stuck: { command: NODE, args: [HANG_SERVER] }, ev: everythingStdio() });
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    callEachPrompt(h, [["ev_echo", { message: "not blocked" }]]);
    const { response } = await h.prompt(sessionId, "go");
    expect(response.stopReason).toBe("end_turn");
    expect(lastToolResult(h.model.requests[1]!).text).toBe("Echo: not blocked");
    expect(h.model.requests[0]!.toolNames.some((name) => name.startsWith("stuck_"))).toBe(false);
    expect(await mcpStatus(h, sessionId)).toMatch(/stuck — connecting/);
  });

  it("session/cancel during a long MCP call answers cancelled and tells the server to stop", async () => {
    const marker = join(suite.home, "fixture-marker.log");
    await userMcp({
      ev: everythingStdio(),
      fixture: { command: NODE, args: [FIXTURE_SERVER], env: { FIXTURE_MARKER: marker } },
    });
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    callEachPrompt(h, [
      ["ev_trigger-long-running-operation", { duration: 600, steps: 600 }],
      ["fixture_slow", {}],
      ["ev_echo", { message: "after cancel" }],
    ]);

    const markerText = () => readFile(marker, "utf8").catch(() => "");
    const running = [
      // server-everything's long-running operation, cancelled as soon as the editor shows it running
      (seen: number) =>
        h.waitFor(() =>
          h.updates
            .slice(seen)
            .some((u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "in_progress"),
        ),
      // the fixture's slow tool, cancelled once the server is inside the handler
      async () => void (await expect.poll(markerText, { timeout: 10_000 }).toContain("slow started")),
    ];
    for (const [index, text] of ["long op", "slow op"].entries()) {
      const seen = h.updates.length;
      const pending = h.prompt(sessionId, text);
      await running[index]!(seen);
      await h.cancel(sessionId);
      expect((await pending).response.stopReason).toBe("cancelled");
    }
    // The turn's abort reached the server as an MCP cancellation.
    await expect.poll(markerText, { timeout: 5000 }).toContain("slow cancelled");

    const after = await h.prompt(sessionId, "still there?");
    expect(after.response.stopReason).toBe("end_turn");
    expect(lastToolResult(h.model.requests.at(-1)!).text).toBe("Echo: after cancel");
  });
});

describe("read-only annotations", () => {
  it("in default mode annotated read-only tools run without a dialog, others ask", async () => {
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project, {
      mcpServers: [{ name: "ev", command: NODE, args: [EVERYTHING, "stdio"], env: [] }],
    });
    callEachPrompt(h, [
      ["ev_get-sum", { a: 2, b: 3 }],
      ["ev_toggle-simulated-logging", {}],
    ]);
    await h.prompt(sessionId, "sum");
    expect(h.permissions).toHaveLength(0);
    await h.prompt(sessionId, "toggle");
    expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["ev/toggle-simulated-logging"]);
    expect(await mcpStatus(h, sessionId)).toMatch(/`ev_get-sum` \(read-only, as the server claims\)/);
  });
});

describe("project trust dialogs", () => {
  const approvalState = () =>
    readFile(join(suite.home, ".deepagents", ".state", "mcp_trust.json"), "utf8").catch(() => "");

  let lastSession = "";
  async function sessionTools(h: Harness): Promise<string[]> {
    const { sessionId } = await h.newSession(suite.project);
    lastSession = sessionId;
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    return h.model.requests.at(-1)!.toolNames.filter((name) => name.startsWith("proj_"));
  }

  it("shows where the server comes from and exactly what it runs", async () => {
    await projectMcp({ proj: everythingStdio({ env: { API_TOKEN: "${SECRET_TOKEN}" } }) });
    const h = await suite.start({ onPermission: () => "reject_once", env: { SECRET_TOKEN: "s3cr3t" } });
    await sessionTools(h);
    const [dialog] = trustDialogs(h, "proj");
    const body = JSON.stringify(dialog!.toolCall.content);
    expect(body).toContain(join(suite.project, ".mcp.json"));
    expect(body).toContain(`${NODE} ${EVERYTHING} stdio`);
    expect(body).toContain("API_TOKEN");
    expect(body).not.toContain("s3cr3t");
    expect(dialog!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
  });

  it("allow once: runs now, asks again in the next process", async () => {
    await projectMcp({ proj: everythingStdio() });
    const first = await suite.start({ onPermission: () => "allow_once" });
    expect(await sessionTools(first)).toContain("proj_echo");
    expect(await approvalState()).not.toContain("proj");
    const second = await suite.start({ onPermission: () => "reject_once" });
    expect(await sessionTools(second)).toEqual([]);
    expect(trustDialogs(second, "proj")).toHaveLength(1);
  });

  it("always: remembered for the next process until the definition changes", async () => {
    await projectMcp({ proj: everythingStdio() });
    const first = await suite.start({ onPermission: () => "allow_always" });
    expect(await sessionTools(first)).toContain("proj_echo");
    const second = await suite.start({ onPermission: () => "reject_once" });
    expect(await sessionTools(second)).toContain("proj_echo");
    expect(trustDialogs(second, "proj")).toHaveLength(0);

    await projectMcp({ proj: everythingStdio({ env: { EXTRA: "1" } }) });
    const third = await suite.start({ onPermission: () => "allow_once" });
    expect(await sessionTools(third)).toContain("proj_echo");
    const [dialog] = trustDialogs(third, "proj");
    expect(JSON.stringify(dialog!.toolCall.content)).toContain(
      "The definition changed since you last approved this server.",
    );
  });

  it("reject: off for this session (not asked again in it), asked again in the next process", async () => {
    await projectMcp({ proj: everythingStdio() });
    const first = await suite.start({ onPermission: () => "reject_once" });
    expect(await sessionTools(first)).toEqual([]);
    first.model.enqueue(textTurn("ok"));
    await first.prompt(lastSession, "again");
    expect(first.model.requests.at(-1)!.toolNames.filter((name) => name.startsWith("proj_"))).toEqual([]);
    expect(trustDialogs(first, "proj")).toHaveLength(1);
    expect(await mcpStatus(first, lastSession)).toContain("rejected for this session");
    expect(await approvalState()).not.toContain("proj");
    const second = await suite.start({ onPermission: () => "allow_once" });
    expect(await sessionTools(second)).toContain("proj_echo");
    expect(trustDialogs(second, "proj")).toHaveLength(1);
  });

  it("never: persisted, never asked again, and beats --trust-project-mcp", async () => {
    await projectMcp({ proj: everythingStdio() });
    const first = await suite.start({ onPermission: () => "reject_always" });
    expect(await sessionTools(first)).toEqual([]);
    expect(await approvalState()).toContain("proj");
    const second = await suite.start({ onPermission: () => "allow_always", args: ["--trust-project-mcp"] });
    expect(await sessionTools(second)).toEqual([]);
    expect(trustDialogs(second, "proj")).toHaveLength(0);
    const status = await mcpStatus(second, lastSession);
    expect(status).toMatch(/proj — untrusted/);
    expect(status).toContain("never allow");
  });
});

describe("process lifetime", () => {
  let stubbornPids: number[] = [];
  afterAll(() => {
    for (const pid of stubbornPids) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  });

  it("session/close stops every server, including one that ignores SIGTERM and its helper child", async () => {
    const marker = join(suite.home, "fixture-marker.log");
    await userMcp({
      fixture: { command: NODE, args: [FIXTURE_SERVER], env: { FIXTURE_MARKER: marker } },
      stubborn: { command: NODE, args: [STUBBORN_SERVER] },
    });
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    callEachPrompt(h, [["stubborn_pids", {}]]);
    await h.prompt(sessionId, "pids");
    const pids = JSON.parse(lastToolResult(h.model.requests[1]!).text) as { server: number; helper: number };
    const fixturePid = Number(/started (\d+)/.exec(await readFile(marker, "utf8"))![1]);
    stubbornPids = [pids.server, pids.helper, fixturePid];
    expect(stubbornPids.every(isAlive)).toBe(true);

    await h.agent.request(acp.methods.agent.session.close, { sessionId });
    for (const pid of stubbornPids) expect(await waitForExit(pid, 10_000)).toBe(true);
  });
});
