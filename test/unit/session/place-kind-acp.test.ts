import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createAcpServer } from "../../../src/acp/server.js";
import { createStdioTransport } from "../../../src/acp/wire/stdio.js";
import { parseCliArgs } from "../../../src/cli/args/args.js";
import { createServices } from "../../../src/cli/services/services.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import type { PlaceKind } from "../../../src/session/workspace/place.js";
import { registerPlaceKind } from "../../../src/session/workspace/place-kinds.js";
import { createLogger } from "../../../src/util/logger.js";
import { pollUntil } from "../../support/poll.js";

// Issue 35 item 2, seen from the editor: a kind registered in test code, named by the session's
// workspace URL, is what an ACP session works in — /status shows the place's own line, the editor is
// told the place's URL, /changes answers from the place — with no session code naming it. (The URL is
// handed over as parsed flags: `--workspace` and config.toml check URL syntax before the session layer
// loads, and know today's forms only; see docs/architecture.md, "What a new kind adds".)

const home = mkdtempSync(join(tmpdir(), "deep-acp-place-acp-"));
const project = join(home, "proj");
mkdirSync(project, { recursive: true });
let disposed = 0;
const forgotten: string[] = [];
const fake: PlaceKind = {
  name: "fake",
  schemes: ["fake"],
  usage: "fake://HOST/path",
  select: (url) => ({
    url,
    async open() {
      const files = createStateBackend();
      return {
        files,
        cwd: "/srv/p",
        roots: ["/srv/p"],
        sandboxed: false,
        announce: url,
        status: async () => ({ label: "Fake workspace", text: `${url} answers` }),
        changes: {
          describe: async () => "fake: nothing changed yet",
          apply: async () => ({ applied: [], skipped: [], conflicts: [], failed: [], text: "" }),
        },
        async dispose() {
          disposed++;
        },
      };
    },
  }),
  async forgetSession(_paths, sessionId) {
    forgotten.push(sessionId);
  },
};
const unregister = registerPlaceKind(fake);
afterAll(() => {
  unregister();
  rmSync(home, { recursive: true, force: true });
});

function agent() {
  const logger = createLogger({ level: "error", write: () => undefined });
  const input = new PassThrough();
  const output = new PassThrough();
  const messages: Array<{ id?: number; result?: unknown; method?: string; params?: unknown }> = [];
  let buffer = "";
  output.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      messages.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  const env = { ANTHROPIC_API_KEY: "place-test-key" };
  const cli = { ...parseCliArgs([]), workspace: "fake://box/srv/p" };
  const services = createServices({ cli, env, logger, home });
  const transport = createStdioTransport({ input, output, logger });
  createAcpServer({ services, version: "0.0.0-test", logger }).app.connect(transport.stream);
  let id = 0;
  const call = async (method: string, params: unknown) => {
    const mine = ++id;
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id: mine, method, params })}\n`);
    await pollUntil(() => messages.some((m) => m.id === mine), `the answer to ${method}`, { timeoutMs: 20_000 });
    return messages.find((m) => m.id === mine)!;
  };
  const said = () =>
    messages
      .flatMap((m) => {
        const update = (m.params as { update?: { sessionUpdate?: string; content?: { text?: string } } })?.update;
        return update?.sessionUpdate === "agent_message_chunk" ? [update.content?.text ?? ""] : [];
      })
      .join("");
  return { call, messages, said, close: () => transport.close("test over") };
}

describe("a registered place kind behind an ACP session", () => {
  it("is chosen by its scheme and answers /status, the editor's workspace, /changes and session/delete", async () => {
    const a = agent();
    await a.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const created = await a.call("session/new", { cwd: project, mcpServers: [] });
    const sessionId = (created.result as { sessionId: string }).sessionId;
    await a.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/status" }] });
    expect(a.said()).toContain("- Fake workspace: fake://box/srv/p answers");
    expect(JSON.stringify(a.messages)).toMatch(
      /"sessionUpdate":"session_info_update".*"workspace":"fake:\/\/box\/srv\/p"/,
    );
    await a.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/changes" }] });
    expect(a.said()).toContain("fake: nothing changed yet");
    // session/delete lets the place go and has the kind forget what it kept for the session.
    await a.call("session/delete", { sessionId });
    await pollUntil(() => disposed > 0 && forgotten.includes(sessionId), "the place let go of and forgotten");
    a.close();
  });
});
