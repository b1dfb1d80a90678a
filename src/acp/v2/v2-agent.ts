import type * as v1 from "@agentclientprotocol/sdk/unstable";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { randomUUID } from "node:crypto";
import type { Logger } from "../../util/logger.js";
import { BridgedError, connectV1, type V1Bridge } from "./v1-bridge.js";
import { createIdempotencyKeys, withIdempotencyKeys } from "./idempotency.js";
import { registerV2MetaHandlers, toV2Capabilities } from "./v2-meta-handlers.js";
import {
  createTerminalState,
  toV2ConfigOptions,
  toV2Permission,
  toV2Updates,
  type TerminalState,
} from "./v2-updates.js";
import type { SteeringOutcome } from "../../turn/index.js";
import { wireError, isSessionNotFound } from "../errors.js";
import type { RewindTarget } from "../../transcript/index.js";
import { toV1McpServers, toV2AuthMethods } from "./v2-shapes.js";
import { registerV2Rewind, withRewindCapability } from "./rewind-door.js";

// ACP v2 (Preview), served by running our v1 agent in process and translating in one place: a v2
// client gets v2's lifecycle (prompts acknowledged with the inserted message's id, foreground state as
// `state_update`, session/resume with `replayFrom` instead of load, held prompts, no client fs or
// terminals: the session uses its own), subagents always as child sessions, plan operations always,
// and the background-work listing: the session's background processes, each as its terminal.
// A prompt sent while a turn runs joins that turn at its next safe point (handlers/steering.ts) and is
// acknowledged once it is inserted there; one that cannot join (a slash command, a turn that ended
// first, prompts already held before it) is held and inserted when the turn is over.
// Subagents are not listed as background work: the schema's `subagent` item is "a detached subagent
// session", and work in the listing "is not covered" by session/cancel "and keeps running"; ours run
// inside the parent's turn (its foreground work, which cancel stops), reported by `subagent_update`
// and their own `state_update`. The draft's session/rewind and session/edit_prompt: v2/rewind-door.ts.

export type V2AgentOptions = {
  /** The v1 app that does the work (one per connection, like the v2 app). */
  v1App: v1.AgentApp;
  /** Tool call ids of a session's running background processes (their terminals). */
  backgroundOf(sessionId: string): string[];
  /** Offers a prompt to the session's running turn under `messageId` (steerV2Prompt in handlers/steering.ts). */
  steer(sessionId: string, prompt: v1.ContentBlock[], messageId: string): Promise<SteeringOutcome>;
  /** The session's rewind, files left alone, and the look before it (v2/rewind-door.ts). */
  rewind(sessionId: string, target: RewindTarget): Promise<{ lastMessageId: string | null }>;
  checkRewind(sessionId: string, target: RewindTarget): Promise<void>;
  logger: Logger;
};

type Held = {
  prompt: v2.ContentBlock[];
  resolve(value: v2.PromptResponse): void;
  reject(error: unknown): void;
  /** Offered to the running turn, waiting for its next safe point. */
  steering?: boolean;
  /** Cancelled or closed while steering: if the turn did not take it, it is not inserted. */
  dropped?: boolean;
};
type Foreground = "idle" | "running" | "requires_action";
type SessionState = {
  queue: Held[];
  turn?: Promise<void>;
  state: Foreground;
  closed: boolean;
  /** Created or resumed on this connection (child sessions take no prompts). */
  open: boolean;
  /** A subagent's child session (its state comes from the v1 agent's `subagent_update`). */
  child?: boolean;
  terminals: TerminalState;
};

const toV2Error = (error: unknown) =>
  error instanceof BridgedError ? wireError.relayed(error.code, error.message, error.data) : error;

/** A request to the v1 agent, its errors as v2 errors. */
async function call<T>(bridge: V1Bridge | undefined, method: string, params: unknown): Promise<T> {
  if (!bridge) throw wireError.invalidRequest(undefined, "initialize first");
  try {
    return await bridge.request<T>(method, params);
  } catch (error) {
    throw toV2Error(error);
  }
}

export function createV2Agent(options: V2AgentOptions): v2.AgentApp {
  const { logger } = options;
  const sessions = new Map<string, SessionState>();
  let bridge: V1Bridge | undefined;
  let client: v2.AgentContext | undefined;
  const keys = createIdempotencyKeys();

  const sessionOf = (sessionId: string): SessionState => {
    let s = sessions.get(sessionId);
    if (!s)
      sessions.set(
        sessionId,
        (s = { queue: [], state: "idle", closed: false, open: false, terminals: createTerminalState() }),
      );
    return s;
  };
  const notify = (sessionId: string, update: v2.SessionUpdate) => {
    if (sessions.get(sessionId)?.closed) return;
    void client
      ?.notify(v2.methods.client.session.update, { sessionId, update })
      .catch((error) => logger.debug("session/update failed", error));
  };
  const background = (sessionId: string, s: SessionState): v2.BackgroundWork[] =>
    options
      .backgroundOf(sessionId)
      .filter((id) => s.terminals.announced.has(id) && !s.terminals.exited.has(id))
      .map((terminalId) => ({ type: "terminal", terminalId }));
  const snapshot = (sessionId: string, s: SessionState) =>
    ({ state: s.state, background: background(sessionId, s) }) as v2.StateUpdate;
  const setState = (sessionId: string, state: Foreground, idle: Record<string, unknown> = {}) => {
    const s = sessionOf(sessionId);
    s.state = state;
    notify(sessionId, {
      sessionUpdate: "state_update",
      state,
      ...(state === "idle" ? idle : {}),
      background: background(sessionId, s),
    } as v2.SessionUpdate);
  };

  const onNotification = (method: string, params: unknown) => {
    if (method === "elicitation/complete") {
      void client?.notify(v2.methods.client.elicitation.complete, params as v2.CompleteElicitationNotification);
      return;
    }
    if (method === "auth/status_update") {
      void client?.notify(v2.methods.client.auth.statusUpdate, params as v2.AuthStatusUpdateNotification);
      return;
    }
    if (method !== "session/update") return;
    const { sessionId, update } = params as v1.SessionNotification;
    const s = sessionOf(sessionId);
    const exitedBefore = s.terminals.exited.size;
    for (const converted of toV2Updates(update, s.terminals)) notify(sessionId, converted);
    // A child's state is reported on the child too, not only mirrored on its parent (and kept, so
    // its command's exit is not taken for a change of an idle session's background listing).
    if (update.sessionUpdate === "subagent_update" && update.state) {
      const child = sessionOf(update.sessionId);
      child.child = true;
      child.state = update.state.state as Foreground;
      notify(update.sessionId, { sessionUpdate: "state_update", ...update.state } as v2.SessionUpdate);
    }
    // A background process ended while nothing runs: the listing changed.
    if (s.terminals.exited.size > exitedBefore && s.state === "idle" && !s.turn) setState(sessionId, "idle");
  };

  const onRequest = async (method: string, params: unknown, signal: AbortSignal): Promise<unknown> => {
    if (!client) throw new BridgedError(-32603, "no client");
    const sendOptions = { cancellationSignal: signal, stopWaitingOnCancel: true };
    const peer = client;
    if (method === "elicitation/create") {
      const request = params as v2.CreateElicitationRequest;
      const sessionId = (request as { sessionId?: string }).sessionId;
      return waitingOnUser(sessionId, () => peer.request(v2.methods.client.elicitation.create, request, sendOptions));
    }
    if (method !== "session/request_permission")
      throw new BridgedError(-32601, `"${method}" is not available over ACP v2`);
    const request = params as v1.RequestPermissionRequest;
    return waitingOnUser(request.sessionId, () =>
      peer.request(v2.methods.client.session.requestPermission, toV2Permission(request), sendOptions),
    );
  };
  /**
   * A dialog of a running session (or child session) blocks it on the user: `requires_action` until
   * it is answered, then `running` again unless its work ended meanwhile. A child whose dialog the v1
   * agent already reported blocked (a subagent's permission) is not reported twice.
   */
  const waitingOnUser = async <T>(sessionId: string | undefined, ask: () => Promise<T>): Promise<T> => {
    const s = sessionId === undefined ? undefined : sessions.get(sessionId);
    const blocked = s?.state === "running";
    if (blocked) setState(sessionId!, "requires_action");
    try {
      return await ask();
    } finally {
      if (blocked && s.state === "requires_action" && (s.turn || s.child)) setState(sessionId!, "running");
    }
  };

  /** Inserts the next held prompt once the session's turn is over: one v1 prompt at a time. */
  const pump = (sessionId: string) => {
    const s = sessionOf(sessionId);
    if (s.turn || s.closed) return;
    // A prompt still offered to the turn keeps its place: the ones behind it wait.
    if (!s.queue[0] || s.queue[0].steering) return;
    const next = s.queue.shift()!;
    const messageId = randomUUID();
    setState(sessionId, "running");
    notify(sessionId, { sessionUpdate: "user_message", messageId, content: next.prompt });
    next.resolve({ messageId });
    const prompt = { sessionId, prompt: next.prompt, _meta: { "deep-acp": { userMessageId: messageId } } };
    s.turn = call<v1.PromptResponse>(bridge, "session/prompt", prompt)
      .then(
        (response) => setState(sessionId, "idle", { stopReason: response.stopReason }),
        (error: unknown) => {
          const e = error as { code?: number; message?: string };
          setState(sessionId, "idle", {
            stopReason: "error",
            error: { code: typeof e.code === "number" ? e.code : -32603, message: e.message ?? String(error) },
          });
        },
      )
      .finally(() => {
        s.turn = undefined;
        pump(sessionId);
      });
  };
  /** Joins the running turn or, when it cannot, stays held in its place (see the header). */
  const steer = (sessionId: string, s: SessionState, held: Held) => {
    held.steering = true;
    const messageId = randomUUID();
    const settle = (outcome: SteeringOutcome | Error) => {
      held.steering = false;
      if (outcome === "left" && !held.dropped && !s.closed) return pump(sessionId);
      s.queue.splice(s.queue.indexOf(held), 1);
      if (outcome === "joined") held.resolve({ messageId });
      else if (outcome === "blocked")
        held.reject(wireError.invalidRequest(undefined, "a UserPromptSubmit hook stopped this message"));
      else if (outcome instanceof Error) held.reject(outcome);
      else held.reject(wireError.requestCancelled());
      pump(sessionId);
    };
    options.steer(sessionId, held.prompt as v1.ContentBlock[], messageId).then(settle, settle);
  };
  /** Held prompts are answered -32800; one offered to the turn is inserted only if the turn took it first. */
  const dropHeld = (s: SessionState) => {
    for (const held of s.queue.filter((h) => h.steering)) held.dropped = true;
    for (const held of s.queue.filter((h) => !h.steering)) {
      s.queue.splice(s.queue.indexOf(held), 1);
      held.reject(wireError.requestCancelled());
    }
  };

  /** A prompt held, offered to the running turn or inserted: answered once it is in. */
  const insert = (sessionId: string, s: SessionState, prompt: v2.ContentBlock[]) =>
    new Promise<v2.PromptResponse>((resolve, reject) => {
      const held: Held = { prompt, resolve, reject };
      // It may join the running turn unless prompts held before it are still waiting to be inserted.
      const joinable = s.turn !== undefined && s.queue.every((h) => h.steering);
      s.queue.push(held);
      if (joinable) steer(sessionId, s, held);
      else pump(sessionId);
    });
  const openState = (sessionId: string) => {
    const s = sessions.get(sessionId);
    if (!s?.open || s.closed) throw wireError.sessionNotFound(sessionId);
    return s;
  };

  /** session/close and archive: held prompts answered, the cancelled turn's idle update out, then nothing. */
  const closing = async <T>(sessionId: string, close: () => Promise<T>): Promise<T> => {
    const s = sessions.get(sessionId);
    if (s) dropHeld(s);
    const result = await close();
    await s?.turn;
    if (s) s.closed = true;
    return result;
  };

  const app = v2
    .agent({ name: "deep-acp" })
    .onRequest(v2.methods.agent.initialize, async ({ params, client: peer }) => {
      client = peer;
      bridge ??= connectV1(options.v1App, { onNotification, onRequest });
      const capabilities = params.capabilities ?? {};
      const init = await call<v1.InitializeResponse>(bridge, "initialize", {
        protocolVersion: 1,
        clientCapabilities: {
          session: { notices: {}, compaction: {} },
          subagents: {},
          plan: {},
          auth: { terminal: capabilities.auth?.terminal != null },
          ...(capabilities.elicitation ? { elicitation: capabilities.elicitation } : {}),
          // Live command output as v1 gives it to Zed: the v2 agent-owned terminals are made from it.
          _meta: { terminal_output: true },
        },
      });
      return {
        protocolVersion: 2,
        info: init.agentInfo ?? { name: "deep-acp", version: "unknown" },
        capabilities: withRewindCapability(toV2Capabilities(init.agentCapabilities ?? {})),
        authMethods: toV2AuthMethods(init.authMethods),
      };
    })
    .onRequest(v2.methods.agent.auth.login, async ({ params }) => {
      await call(bridge, "authenticate", { methodId: params.methodId });
      return {};
    })
    .onRequest(v2.methods.agent.auth.logout, async () => {
      await call(bridge, "logout", {});
      return {};
    })
    .onRequest(v2.methods.agent.session.new, async ({ params }) => {
      const response = await call<v1.NewSessionResponse>(bridge, "session/new", {
        cwd: params.cwd,
        mcpServers: toV1McpServers(params.mcpServers),
        ...(params.additionalDirectories?.length ? { additionalDirectories: params.additionalDirectories } : {}),
        ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
      });
      sessionOf(response.sessionId).open = true;
      return { sessionId: response.sessionId, configOptions: toV2ConfigOptions(response.configOptions) };
    })
    .onRequest(v2.methods.agent.session.resume, async ({ params }) => {
      const replay = params.replayFrom;
      if (replay != null && replay.type !== "start")
        throw wireError.invalidParams({ replayFrom: replay }, `replay cursor "${replay.type}" is not supported`);
      const s = sessionOf(params.sessionId);
      s.closed = false;
      const response = await call<v1.ResumeSessionResponse>(bridge, replay ? "session/load" : "session/resume", {
        sessionId: params.sessionId,
        cwd: params.cwd,
        mcpServers: toV1McpServers(params.mcpServers),
        ...(params.additionalDirectories?.length ? { additionalDirectories: params.additionalDirectories } : {}),
        ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
      });
      s.open = true;
      // The current state, after the replay and before the answer (v2's resume rule).
      setState(params.sessionId, s.turn ? s.state : "idle");
      return { configOptions: toV2ConfigOptions(response.configOptions) };
    })
    .onRequest(v2.methods.agent.session.list, async ({ params }) =>
      call<v2.ListSessionsResponse>(bridge, "session/list", {
        ...(params.cwd ? { cwd: params.cwd } : {}),
        ...(params.cursor ? { cursor: params.cursor } : {}),
        ...(params.archived ? { archived: params.archived } : {}),
      }),
    )
    .onRequest(v2.methods.agent.session.delete, async ({ params }) => {
      await call(bridge, "session/delete", { sessionId: params.sessionId });
      keys.forget(params.sessionId);
      return {};
    })
    .onRequest(v2.methods.agent.session.close, ({ params }) =>
      closing(params.sessionId, async () => {
        try {
          await call(bridge, "session/close", { sessionId: params.sessionId });
        } catch (error) {
          // Closing what is not open succeeds (v2's close rule).
          if (!isSessionNotFound(error)) throw error;
        }
        return {};
      }),
    )
    .onRequest(v2.methods.agent.session.setConfigOption, async ({ params }) => {
      const value = params as { type?: string; value: unknown };
      const response = await call<v1.SetSessionConfigOptionResponse>(bridge, "session/set_config_option", {
        sessionId: params.sessionId,
        configId: params.configId,
        ...(value.type === "boolean" ? { type: "boolean", value: value.value } : { value: value.value }),
      });
      return { configOptions: toV2ConfigOptions(response.configOptions) };
    })
    .onRequest(v2.methods.agent.session.prompt, async ({ params, requestId }) => {
      const key = keys.take(requestId);
      const s = openState(params.sessionId);
      return keys.once(params.sessionId, key, () => insert(params.sessionId, s, params.prompt));
    })
    .onNotification(v2.methods.agent.session.cancel, ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (s) dropHeld(s);
      bridge?.notify("session/cancel", { sessionId: params.sessionId });
    });
  const served = registerV2MetaHandlers(app, {
    call: (method, params) => call(bridge, method, params),
    stateOf: (sessionId) => {
      const s = sessions.get(sessionId);
      return s?.open && !s.closed ? snapshot(sessionId, s) : undefined;
    },
    closing,
  });
  const rewinding = registerV2Rewind(served, {
    checkOpen: openState,
    check: options.checkRewind,
    truncate: options.rewind,
    notify,
    insert: (sessionId, prompt) => insert(sessionId, openState(sessionId), prompt),
    // The running turn is cancelled and its idle state sent before anything is cut (the draft's rule).
    async settle(sessionId) {
      const s = openState(sessionId);
      dropHeld(s);
      if (s.turn) bridge?.notify("session/cancel", { sessionId });
      while (s.turn) await s.turn;
    },
  });
  return withIdempotencyKeys(rewinding, keys);
}
