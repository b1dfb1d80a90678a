// In-process ACP v2 harness: the SDK's own v2 client reaching our agent the way the binary connects
// one (connectVersioned: the SDK's protocol router, the v2 agent, the v1 app behind it), every message
// the agent sends checked against the SDK's v2 schema.
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectVersioned } from "../../src/acp/wire/protocol-select.js";
import { createAcpServer } from "../../src/acp/server.js";
import { createV2Agent } from "../../src/acp/v2/v2-agent.js";
import { parseCliArgs } from "../../src/cli/args/args.js";
import { createServices } from "../../src/cli/services/services.js";
import { silentLogger } from "../../src/util/logger.js";
import { createFakeModelServer } from "./fake-model/index.js";
import { checkedPipe, createSchemaCheck } from "./schema-check.js";
import { createWaiters } from "./waiters.js";

export type V2HarnessOptions = {
  home?: string;
  onPermission?: (
    request: v2.RequestPermissionRequest,
  ) => v2.RequestPermissionResponse | Promise<v2.RequestPermissionResponse>;
};

export async function startV2Harness(options: V2HarnessOptions = {}) {
  const ownsHome = options.home === undefined;
  const home = options.home ?? (await mkdtemp(join(tmpdir(), "deep-acp-v2-home-")));
  const model = await createFakeModelServer();
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
  };
  const services = createServices({ cli: parseCliArgs([]), env, logger: silentLogger, home });
  const server = createAcpServer({ services, version: "0.0.0-test", logger: silentLogger });
  const schema = createSchemaCheck(2);
  const pipe = checkedPipe(schema);
  const served = connectVersioned(pipe.agentSide as acp.Stream, {
    v1App: server.app,
    loadV2: async () => createV2Agent({ v1App: server.app, ...server.v2Hooks, logger: silentLogger }),
    logger: silentLogger,
  });

  const updates: v2.UpdateSessionNotification[] = [];
  const authUpdates: v2.AuthStatusUpdateNotification[] = [];
  const permissions: v2.RequestPermissionRequest[] = [];
  const { notify, waitFor } = createWaiters(() => "timed out waiting for the v2 agent");
  const allowOnce = (request: v2.RequestPermissionRequest): v2.RequestPermissionResponse => ({
    outcome: { outcome: "selected", optionId: request.options.find((o) => o.kind === "allow_once")!.optionId },
  });
  const clientApp = v2
    .client({ name: "v2-test-client" })
    .onNotification(v2.methods.client.session.update, ({ params }) => {
      updates.push(params);
      notify();
    })
    .onNotification(v2.methods.client.auth.statusUpdate, ({ params }) => {
      authUpdates.push(params);
      notify();
    })
    .onRequest(v2.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      notify();
      return (options.onPermission ?? allowOnce)(params);
    });
  const connection = clientApp.connect(pipe.clientSide as v2.Stream);
  const agent = connection.agent;
  const init = await agent.request(v2.methods.agent.initialize, {
    protocolVersion: 2,
    info: { name: "v2-test-client", version: "1.0.0" },
    capabilities: {},
  });

  return {
    home,
    model,
    server,
    agent,
    init,
    updates,
    authUpdates,
    permissions,
    schema,
    waitFor,
    /** The updates of one session, in order. */
    of: (sessionId: string, from = 0) =>
      updates
        .slice(from)
        .filter((u) => u.sessionId === sessionId)
        .map((u) => u.update),
    async newSession(cwd: string) {
      return agent.request(v2.methods.agent.session.new, { cwd });
    },
    prompt(sessionId: string, text: string) {
      return agent.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    },
    /** Resolves once the session reported idle `count` times since `from`. */
    async idle(sessionId: string, from = 0, count = 1) {
      await waitFor(
        () => updates.slice(from).filter((u) => u.sessionId === sessionId && isIdle(u.update)).length >= count,
      );
    },
    async close() {
      connection.close();
      void served.closed;
      await server.shutdown();
      await model.close();
      if (ownsHome) await rm(home, { recursive: true, force: true });
      schema.assertValid();
    },
  };
}

export function isIdle(update: v2.SessionUpdate): boolean {
  return update.sessionUpdate === "state_update" && (update as { state: string }).state === "idle";
}

export type V2Harness = Awaited<ReturnType<typeof startV2Harness>>;
