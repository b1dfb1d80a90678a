import * as acp from "@agentclientprotocol/sdk/unstable";
import type {
  BindCollaborators,
  SessionCollaborators,
  Session,
  SessionServices,
  SessionEvent,
} from "../session/index.js";
import { SessionRegistry } from "../session/registry.js";
import type { ReplayItem } from "../transcript/index.js";
import type { Logger } from "../util/logger.js";
import { sessionConfigState } from "./config-options.js";
import { createEditorBridge } from "./dialogs/editor-bridge.js";
import { createSessionDialogs } from "./dialogs/session-dialogs.js";
import { editorServersFromNameValueLists } from "../mcp/config/editor-servers.js";
import { toContentBlocks } from "./prompt-content.js";
import { availableCommands, type SlashCommand } from "../commands/index.js";
import { createTranslator, type AccountSink, type ClientFeatures } from "./updates/translate.js";
import { ACCOUNT_RATE_LIMITS_METHOD, createAccountRateLimits } from "./quota/editor-shapes.js";
import type { QuotaPool } from "../model/limits.js";
import { createSessionUpdateStream, type createUpdateStream } from "./updates/update-stream.js";
import { wireError } from "./errors.js";

// The session layer (agent loop, tools, backends) loads after `initialize` has been answered, so
// the handshake only pays for the protocol library.
type SessionLayer = typeof import("../session/index.js");
type SessionSource = Parameters<SessionLayer["createSession"]>[1];
export type OpenedSession = Awaited<ReturnType<SessionLayer["createSession"]>>;
let sessionLayer: Promise<SessionLayer> | undefined;
export function loadSessionLayer(): Promise<SessionLayer> {
  sessionLayer ??= import("../session/index.js");
  // A failed load is retried by the next request instead of failing every request for good.
  sessionLayer.catch(() => (sessionLayer = undefined));
  return sessionLayer;
}

/** How to open an unloaded session again, as the editor first attached it. */
type Origin = {
  client: acp.AgentContext;
  cwd: string;
  additionalDirectories: string[];
  mcpServers: readonly acp.McpServer[];
};

export type LiveSession = {
  session: Session;
  stream: ReturnType<typeof createUpdateStream>;
  translate: ReturnType<typeof createTranslator>;
};

/** Everything the handlers of one ACP connection share. */
export class ConnectionState {
  /** The sessions of this connection (session/registry.ts): unloaded over a cap, opened again on use. */
  readonly sessions: SessionRegistry<LiveSession, Origin>;
  clientCapabilities: acp.ClientCapabilities = {};
  features: ClientFeatures = { terminalOutput: false, notices: false, compaction: false };
  commands: SlashCommand[] = [];
  /** The command list last sent to each session. */
  private readonly advertised = new WeakMap<LiveSession, string>();
  /** What /reload would apply, per session id, for clients that cannot be sent a notice now. */
  private readonly pendingReload = new Map<string, string>();
  /**
   * Ids the early handshake gave to session/new requests it answered before the SDK loaded; the SDK
   * sees those requests before any other session/new (stdio.ts holds the rest back), in this order.
   */
  earlySessionIds: string[] = [];

  constructor(
    readonly services: SessionServices,
    readonly logger: Logger,
  ) {
    this.sessions = new SessionRegistry<LiveSession, Origin>({
      logger,
      reopen: async (id, { client, cwd, additionalDirectories, mcpServers }) =>
        (await this.open(client, { kind: "open", id, cwd, additionalDirectories }, mcpServers)).entry,
      dropped: (id) => this.pendingReload.delete(id),
      closed: (entry) => entry.stream.flush(),
    });
  }

  /** A session of this connection, opened again if it was unloaded; most recently used last. */
  async live(sessionId: string): Promise<LiveSession> {
    const entry = await this.sessions.live(sessionId);
    if (!entry) throw wireError.sessionNotFound(sessionId);
    return entry;
  }

  /** Forgets an unloaded session (deleted or closed by the editor). */
  forget(sessionId: string): boolean {
    return this.sessions.forget(sessionId);
  }

  /**
   * What a Session needs from this connection: the dialogs, the editor's fs/terminals, the MCP
   * servers the editor passed, and a way to reach the editor outside a turn. The session factory
   * calls the result with the id it gives the session, so all of them speak under that id.
   */
  bind(client: acp.AgentContext, mcpServers: readonly acp.McpServer[] = []): BindCollaborators {
    return (sessionId) => this.collaborators(client, sessionId, mcpServers);
  }

  private collaborators(
    client: acp.AgentContext,
    sessionId: string,
    mcpServers: readonly acp.McpServer[],
  ): SessionCollaborators {
    return {
      ...createSessionDialogs({
        client,
        sessionId,
        capabilities: this.clientCapabilities,
        childSessions: () => this.features.subagents === true,
        childDialog: (request, signal, ask) => this.childDialog(sessionId, request, signal, ask),
        logger: this.logger,
      }),
      editor: createEditorBridge(client, sessionId, this.clientCapabilities),
      editorMcpServers: editorServersFromNameValueLists(mcpServers as never),
      peerMcpServers: mcpServers,
      peerErrors: { refused: wireError.peerRefused, notFound: wireError.peerNotFound },
      updates: (event: SessionEvent) => {
        const entry = this.sessions.get(sessionId);
        if (!entry) return;
        for (const update of entry.translate(event)) entry.stream.push(update);
      },
      notify: (event: SessionEvent) => {
        // Outside a turn only notices are safe: editors append stray chunks to the last message.
        const entry = this.sessions.get(sessionId);
        if (!entry || event.type !== "notice" || !this.features.notices) return false;
        for (const update of entry.translate(event)) entry.stream.push(update);
        return true;
      },
      // Clients without notices (Zed) learn at once that a reload is due: the /reload entry of the
      // command list says what is pending. Nothing enters the conversation outside a turn.
      onReloadPending: (summary) => {
        if (this.features.notices) return;
        if (summary) this.pendingReload.set(sessionId, summary);
        else this.pendingReload.delete(sessionId);
        const entry = this.sessions.get(sessionId);
        if (entry) void this.refreshCommands(entry);
      },
    };
  }

  /**
   * Creates a session (new, opened again or forked) speaking to `client`, registers it and warms it
   * up.
   */
  async open(
    client: acp.AgentContext,
    source: SessionSource,
    mcpServers: readonly acp.McpServer[] = [],
    {
      guard = (work) => work(),
    }: {
      /** Wraps the creation (the handlers map its errors to ACP errors). */
      guard?: (work: () => Promise<OpenedSession>) => Promise<OpenedSession>;
    } = {},
  ): Promise<{ entry: LiveSession; opened: OpenedSession }> {
    const { createSession } = await loadSessionLayer();
    const opened = await guard(() => createSession(this.services, source, this.bind(client, mcpServers)));
    const entry = this.register(client, opened.session, mcpServers);
    opened.session.warmUp();
    return { entry, opened };
  }

  private register(client: acp.AgentContext, session: Session, mcpServers: readonly acp.McpServer[]): LiveSession {
    const entry: LiveSession = {
      session,
      stream: createSessionUpdateStream(client, session.id, (error) =>
        this.logger.debug("session/update failed", error),
      ),
      translate: createTranslator(this.features, { sessionId: session.id, cwd: session.cwd }, this.accountSink(client)),
    };
    const { cwd, additionalDirectories } = session;
    this.sessions.add(entry, { client, cwd, additionalDirectories, mcpServers });
    return entry;
  }

  /** codex-acp's `_account/rate_limits_update`, once per connection and limit, for a client that reads it. */
  private accountPush?: (pool: QuotaPool) => void;
  private accountSink(client: acp.AgentContext): AccountSink | undefined {
    if (!this.features.quotaShapes?.accountRateLimits) return undefined;
    this.accountPush ??= createAccountRateLimits(
      (params) => void client.notify(ACCOUNT_RATE_LIMITS_METHOD, params).catch(() => undefined),
    );
    return this.accountPush;
  }

  config(session: Session) {
    return sessionConfigState(this.services.models, session.mode, session.modelSpec, session.thoughtLevel);
  }

  /**
   * Sends the slash commands once the editor has registered the session (the next tick), and again
   * with the session's skills once they have loaded.
   */
  announceCommands(entry: LiveSession): void {
    setTimeout(() => {
      if (this.advertised.has(entry)) return; // the list with skills went out first
      const availableCommands = this.commandsFor(entry.session.id, []);
      this.advertised.set(entry, JSON.stringify(availableCommands));
      entry.stream.push({ sessionUpdate: "available_commands_update", availableCommands });
    }, 0);
    void this.refreshCommands(entry);
  }

  /**
   * Sends the commands with the session's current skills and pending reload, unless the list is
   * what was sent last (after a turn an approved skill link may have added one; after /reload the
   * pending note goes away).
   */
  async refreshCommands(entry: LiveSession): Promise<void> {
    const skills = await entry.session.extensions.skillList().catch(() => []);
    if (!this.sessions.has(entry.session.id)) return;
    const commands = this.commandsFor(entry.session.id, skills);
    const key = JSON.stringify(commands);
    if (this.advertised.get(entry) === key) return;
    this.advertised.set(entry, key);
    entry.stream.push({ sessionUpdate: "available_commands_update", availableCommands: commands });
  }

  private commandsFor(
    sessionId: string,
    skills: ReadonlyArray<{ name: string; description: string }>,
  ): acp.AvailableCommand[] {
    return availableCommands(this.commands, skills, this.pendingReload.get(sessionId)).map(({ hint, ...command }) =>
      hint ? { ...command, input: { hint } } : command,
    );
  }

  /**
   * A subagent's permission dialog, asked under its child session's id: its state on the parent is
   * `requires_action` while the dialog waits (sent before the request) and `running` again once it
   * is answered, unless the child was cancelled meanwhile (its idle update follows).
   */
  private async childDialog<T>(
    parentId: string,
    request: acp.RequestPermissionRequest,
    signal: AbortSignal,
    ask: (request: acp.RequestPermissionRequest, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const stream = this.sessions.get(parentId)?.stream;
    const state = (state: "running" | "requires_action") =>
      stream?.push({ sessionUpdate: "subagent_update", sessionId: request.sessionId, state: { state } });
    state("requires_action");
    await stream?.flush();
    try {
      return await ask(request, signal);
    } finally {
      if (!signal.aborted) state("running");
    }
  }

  /** Replays a stored conversation as session updates (load). Never sends a terminal id. */
  replay(entry: LiveSession, items: readonly ReplayItem[]): void {
    const { id: sessionId, cwd } = entry.session;
    const translate = createTranslator({ ...this.features, terminalOutput: false }, { sessionId, cwd });
    for (const item of items) {
      if (item.type === "user") {
        for (const content of toContentBlocks(item.blocks))
          entry.stream.push({ sessionUpdate: "user_message_chunk", messageId: item.messageId, content });
        continue;
      }
      for (const update of translate(item)) entry.stream.push(update);
    }
  }

  /** `session/cancel`: a session's turn, or one running subagent of it (a child session id). */
  cancel(sessionId: string): void {
    this.sessions.cancel(sessionId);
  }

  close(sessionId: string): Promise<void> {
    return this.sessions.close(sessionId);
  }
}
