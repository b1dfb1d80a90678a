// Every request and notification the agent sends to the client names a session the client was
// given (by session/new or session/fork, or asked for by load/resume). A forked session once spoke
// under an id that was neither its own nor its source's; a real editor refuses such requests.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAcpServer } from "../../src/acp/server.js";
import { parseCliArgs } from "../../src/cli/args/args.js";
import { createServices } from "../../src/cli/services/services.js";
import { silentLogger } from "../../src/util/logger.js";
import type { ConfigChangeListener } from "../../src/watch/index.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";

type Sent = { kind: string; sessionId: string };

const suite = useHarnessSuite({
  name: "ids",
  prepare: async ({ project }) => {
    // Untrusted project hooks: each live session asks the editor once (the trust dialog).
    await mkdir(join(project, ".deepagents"), { recursive: true });
    const hook = { type: "command", argv: [process.execPath, "-e", ""] };
    await writeFile(
      join(project, ".deepagents", "hooks.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [hook] }] } }),
    );
    await writeFile(join(project, "a.txt"), "one\n");
  },
});
let model: FakeModelServer;
beforeEach(async () => {
  model = await createFakeModelServer();
});
afterEach(async () => {
  await model.close();
});

/** An editor with every capability, recording the session id of everything the agent sends it. */
function startEditor() {
  const env = {
    PATH: process.env.PATH,
    HOME: suite.home,
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
  };
  const services = createServices({ cli: parseCliArgs([]), env, logger: silentLogger, home: suite.home });
  // Config-change listeners, so a test can make the agent send an out-of-turn notice without a watcher.
  const watchers: ConfigChangeListener[] = [];
  const hub = services.watchHub;
  services.watchHub = {
    ...hub,
    watch: (root, targets, listener) => {
      watchers.push(listener);
      return hub.watch(root, targets, listener);
    },
  };
  const server = createAcpServer({ services, version: "0.0.0-test", logger: silentLogger });
  const sent: Sent[] = [];
  const files = new Map<string, string>();
  let terminals = 0;
  const record = (kind: string, params: { sessionId: string }) => void sent.push({ kind, sessionId: params.sessionId });
  const client = acp
    .client({ name: "id-checking-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const update = params.update.sessionUpdate;
      record(update === "notice" ? "notice" : "update", params);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      record(params.toolCall.title === "Run this project's hooks?" ? "trust" : "permission", params);
      const allow = params.options.find((o) => o.kind === "allow_once")!;
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      record("fs/read", params);
      return { content: files.get(params.path) ?? (await readFile(params.path, "utf8")) };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      record("fs/write", params);
      files.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, async ({ params }) => {
      record("terminal", params);
      return { terminalId: `t${++terminals}` };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      record("terminal", params);
      return { exitCode: 0 };
    })
    .onRequest(acp.methods.client.terminal.output, async ({ params }) => {
      record("terminal", params);
      return { output: "hi\n", truncated: false, exitStatus: { exitCode: 0 } };
    })
    .onRequest(acp.methods.client.terminal.release, async ({ params }) => {
      record("terminal", params);
      return {};
    })
    .onRequest(acp.methods.client.terminal.kill, async ({ params }) => {
      record("terminal", params);
      return {};
    });
  const connection = client.connect(server.app);
  const agent = connection.agent;
  return {
    agent,
    sent,
    watchers,
    async initialize() {
      const capabilities = {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        session: { notices: {} },
      };
      await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: capabilities as acp.ClientCapabilities,
      });
    },
    async close() {
      connection.close();
      await server.shutdown();
    },
  };
}

/** One turn that reads and writes a file and runs a command, so every editor surface is used. */
async function exercise(editor: ReturnType<typeof startEditor>, sessionId: string): Promise<Sent[]> {
  const start = editor.sent.length;
  const file = join(suite.project, "a.txt");
  model.enqueue(
    toolTurn("read_file", { file_path: file }),
    toolTurn("write_file", { file_path: join(suite.project, "b.txt"), content: "two\n" }),
    toolTurn("execute", { command: "echo hi" }),
    textTurn("done"),
  );
  const response = await editor.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  expect(response.stopReason).toBe("end_turn");
  // A config file changed outside a turn: the session tells the editor at once.
  const watchersBefore = editor.watchers.length;
  expect(watchersBefore).toBeGreaterThan(0);
  for (const listener of editor.watchers)
    listener({ labels: ["skills"], paths: [join(suite.project, ".deepagents", "skills")] });
  // Notifications are dispatched after the handler runs; a round trip orders them before this point.
  await editor.agent.request(acp.methods.agent.session.list, {});
  return editor.sent.slice(start);
}

function kindsFor(sent: readonly Sent[], sessionId: string): string[] {
  return [...new Set(sent.filter((s) => s.sessionId === sessionId).map((s) => s.kind))].sort();
}

const EVERY_SURFACE = ["fs/read", "fs/write", "notice", "permission", "terminal", "trust", "update"];

describe("session ids the client sees", () => {
  it("new, loaded, resumed and forked sessions speak to the editor only under ids it was given", async () => {
    const { project } = suite;
    const editor = startEditor();
    try {
      await editor.initialize();
      const known = new Set<string>();

      const { sessionId: original } = await editor.agent.request(acp.methods.agent.session.new, {
        cwd: project,
        mcpServers: [],
      });
      known.add(original);
      expect(kindsFor(await exercise(editor, original), original)).toEqual(EVERY_SURFACE);

      await editor.agent.request(acp.methods.agent.session.close, { sessionId: original });
      await editor.agent.request(acp.methods.agent.session.load, { sessionId: original, cwd: project, mcpServers: [] });
      expect(kindsFor(await exercise(editor, original), original)).toEqual(EVERY_SURFACE);

      await editor.agent.request(acp.methods.agent.session.close, { sessionId: original });
      await editor.agent.request(acp.methods.agent.session.resume, {
        sessionId: original,
        cwd: project,
        mcpServers: [],
      });
      expect(kindsFor(await exercise(editor, original), original)).toEqual(EVERY_SURFACE);

      const { sessionId: forked } = await editor.agent.request(acp.methods.agent.session.fork, {
        sessionId: original,
        cwd: project,
        mcpServers: [],
      });
      known.add(forked);
      expect(forked).not.toBe(original);
      expect(kindsFor(await exercise(editor, forked), forked)).toEqual(EVERY_SURFACE);

      expect(editor.sent.filter((s) => !known.has(s.sessionId))).toEqual([]);
    } finally {
      await editor.close();
    }
  });
});
