// In-process ACP harness: the SDK's own client connected to our agent app, with a real fake-model
// HTTP server behind the real provider code. Tests assert on the ACP messages the editor would see.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAcpServer } from "../../src/acp/server.js";
import { parseCliArgs } from "../../src/cli/args/args.js";
import { createServices } from "../../src/cli/services/services.js";
import type { ConfigChange, WatchSubscription } from "../../src/watch/index.js";
import { silentLogger } from "../../src/util/logger.js";
import { createFakeModelServer, type FakeModelServer } from "./fake-model/index.js";
import { createWaiters } from "./waiters.js";
import { checkedPipe, createSchemaCheck } from "./schema-check.js";

export type PermissionAnswer = "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";

export type HarnessOptions = {
  clientCapabilities?: acp.ClientCapabilities;
  /** Extra CLI flags for the agent (e.g. ["--sandbox", "bwrap"]). */
  args?: string[];
  env?: Record<string, string>;
  /** Answers permission requests; default: allow_once. */
  onPermission?: (request: acp.RequestPermissionRequest) => PermissionAnswer | Promise<PermissionAnswer>;
  /** Answers elicitation/create (only used when the capabilities advertise elicitation). */
  onElicitation?: (request: acp.CreateElicitationRequest) => Promise<acp.CreateElicitationResponse>;
  /** Client fs handlers (only used when the capabilities advertise fs). */
  fs?: {
    read?: (request: acp.ReadTextFileRequest) => Promise<acp.ReadTextFileResponse>;
    write?: (request: acp.WriteTextFileRequest) => Promise<void>;
  };
  api?: "anthropic" | "openai";
  /** Reuse this HOME (e.g. a second "process" on the same sessions); it is not deleted on close. */
  home?: string;
  /** Prepares the temporary HOME (config.toml, skills, ...) before the agent starts. */
  setupHome?: (home: string) => Promise<void>;
};

export type Harness = Awaited<ReturnType<typeof startHarness>>;

export async function startHarness(options: HarnessOptions = {}) {
  const ownsHome = options.home === undefined;
  const home = options.home ?? (await mkdtemp(join(tmpdir(), "deep-acp-home-")));
  await options.setupHome?.(home);
  const model: FakeModelServer = await createFakeModelServer();
  const env: NodeJS.ProcessEnv =
    options.api === "openai"
      ? {
          PATH: process.env.PATH,
          HOME: home,
          OPENAI_API_KEY: "test-key",
          OPENAI_BASE_URL: model.openaiBaseUrl,
          ...options.env,
        }
      : {
          PATH: process.env.PATH,
          HOME: home,
          ANTHROPIC_API_KEY: "test-key",
          ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
          ...options.env,
        };
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const writes: acp.WriteTextFileRequest[] = [];
  const completions: acp.CompleteElicitationNotification[] = [];
  const { notify, waitFor } = createWaiters(() => "timed out waiting for the agent");
  const cli = parseCliArgs(options.args ?? []);
  const services = createServices({ cli, env, logger: silentLogger, home });
  // Every config-watcher subscription, so a test can wait until the watchers have finished their first
  // scan, and every change they passed on to a session, so a test can wait until an edit was seen.
  const subscriptions: WatchSubscription[] = [];
  const watchChanges: ConfigChange[] = [];
  const hub = services.watchHub;
  services.watchHub = {
    ...hub,
    watch: (root, targets, listener) => {
      const subscription = hub.watch(root, targets, (change) => {
        listener(change);
        watchChanges.push(change);
        notify();
      });
      subscriptions.push(subscription);
      notify();
      return subscription;
    },
  };
  const server = createAcpServer({ services, version: "0.0.0-test", logger: silentLogger });

  const clientApp = acp
    .client({ name: "test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      notify();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      notify();
      const answer = await (options.onPermission ?? (() => "allow_once" as const))(params);
      if (answer === "cancelled") return { outcome: { outcome: "cancelled" } };
      const option = params.options.find((o) => o.kind === answer);
      if (!option) throw new Error(`no ${answer} option offered: ${JSON.stringify(params.options)}`);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onNotification(acp.methods.client.elicitation.complete, ({ params }) => {
      completions.push(params);
    })
    .onRequest(acp.methods.client.elicitation.create, async ({ params }) => {
      if (!options.onElicitation) throw acp.RequestError.methodNotFound("elicitation/create");
      return options.onElicitation(params);
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      if (!options.fs?.read) throw acp.RequestError.methodNotFound("fs/read_text_file");
      return options.fs.read(params);
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      writes.push(params);
      if (!options.fs?.write) throw acp.RequestError.methodNotFound("fs/write_text_file");
      await options.fs.write(params);
      return {};
    });

  // Every message the agent sends is checked against the SDK's v1 schema; close() fails on a violation.
  const schema = createSchemaCheck(1);
  const pipe = checkedPipe(schema);
  server.app.connect(pipe.agentSide as acp.Stream);
  const connection = clientApp.connect(pipe.clientSide as acp.Stream);
  const agent = connection.agent;
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: options.clientCapabilities ?? {},
  });

  async function newSession(cwd: string, extra: Partial<acp.NewSessionRequest> = {}) {
    return agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [], ...extra });
  }

  async function prompt(sessionId: string, content: string | acp.ContentBlock[]) {
    const start = updates.length;
    const blocks: acp.ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    const response = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
    // Updates are dispatched asynchronously; everything for the turn was sent before the response.
    await new Promise((resolve) => setImmediate(resolve));
    return {
      response,
      updates: updates
        .slice(start)
        .filter((u) => u.sessionId === sessionId)
        .map((u) => u.update),
    };
  }

  return {
    home,
    model,
    server,
    /** What the agent sent, checked against the SDK's schema. */
    schema,
    agent,
    init,
    updates,
    permissions,
    writes,
    /** elicitation/complete notifications the agent sent. */
    completions,
    newSession,
    prompt,
    /** Resolves when `predicate` holds for the updates, permissions or watcher changes seen so far. */
    waitFor,
    /** Config changes the watchers passed on to sessions (after the session's own listener ran), in order. */
    watchChanges,
    /**
     * Resolves once `count` config-watcher subscriptions exist (a session subscribes when its
     * extensions have loaded, in the background after session/new) and every one watches what it
     * was given: edits after this are seen.
     */
    async watchersReady(count = 1): Promise<void> {
      await waitFor(() => subscriptions.length >= count);
      await Promise.all(subscriptions.map((subscription) => subscription.ready));
    },
    cancel: (sessionId: string) => agent.notify(acp.methods.agent.session.cancel, { sessionId }),
    async close() {
      connection.close();
      schema.assertValid();
      await server.shutdown();
      await model.close();
      if (ownsHome) await rm(home, { recursive: true, force: true });
    },
  };
}

/** Concatenated text of the agent_message_chunk updates. */
export function agentText(updates: readonly acp.SessionUpdate[]): string {
  return updates
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");
}

export function toolUpdates(updates: readonly acp.SessionUpdate[], toolCallId?: string) {
  return updates.filter(
    (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }> =>
      (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
      (toolCallId === undefined || u.toolCallId === toolCallId),
  );
}
