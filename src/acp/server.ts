import * as acp from "@agentclientprotocol/sdk/unstable";
import type { Session, SessionServices } from "../session/index.js";
import type { Logger } from "../util/logger.js";
import { registerAuthHandlers } from "./handlers/auth-handlers.js";
import { buildInitializeResponse } from "./capabilities.js";
import { ConnectionState, loadSessionLayer } from "./connection-state.js";
import { registerPromptHandlers } from "./handlers/prompt-handlers.js";
import { registerSessionLifecycle } from "./handlers/session-lifecycle.js";
import { registerSessionMetaHandlers } from "./handlers/session-meta-handlers.js";
import { registerProviderHandlers } from "./handlers/provider-handlers.js";
import { registerQuotaRead, wantsQuotaUpdates } from "./quota/quota.js";
import { quotaShapesOf } from "./quota/editor-shapes.js";
import { registerSteering, wantsPromptQueueing } from "./handlers/steering.js";
import { createCommandTable } from "../commands/index.js";
import { steerV2Prompt } from "./handlers/steering.js";
import { RewindError } from "../session/errors.js";
import { describeRewindProblem, findCut, type RewindTarget } from "../transcript/index.js";

const SESSION_LAYER_PREFETCH_DELAY_MS = 50;

export type AcpServerOptions = {
  services: SessionServices;
  version: string;
  logger: Logger;
  /** Loaded sessions kept before the least recently used idle ones are unloaded (default 32). */
  maxLoadedSessions?: number;
  /** Ids already given to session/new requests the early handshake answered, in order. */
  earlySessionIds?: string[];
};

/** The ACP agent: protocol handlers over the session layer. One instance per connection. */
export function createAcpServer(options: AcpServerOptions) {
  const { services, logger } = options;
  const state = new ConnectionState(services, logger);
  if (options.maxLoadedSessions !== undefined) state.sessions.maxLoaded = options.maxLoadedSessions;
  state.earlySessionIds = [...(options.earlySessionIds ?? [])];
  state.commands = createCommandTable();

  let app = acp.agent({ name: "deep-acp" }).onRequest(acp.methods.agent.initialize, ({ params }) => {
    state.clientCapabilities = params.clientCapabilities ?? {};
    const meta = (state.clientCapabilities._meta ?? {}) as Record<string, unknown>;
    state.features = {
      terminalOutput: meta.terminal_output === true,
      notices: state.clientCapabilities.session?.notices != null,
      compaction: state.clientCapabilities.session?.compaction != null,
      quota: wantsQuotaUpdates(state.clientCapabilities),
      steering: wantsPromptQueueing(state.clientCapabilities),
      subagents: state.clientCapabilities.subagents != null,
      plans: state.clientCapabilities.plan != null,
      quotaShapes: quotaShapesOf(state.clientCapabilities),
    };
    // Warm what session/new needs once this answer is on its way. Compiling the session layer
    // holds the thread for tens of milliseconds, so it waits a moment: a session/list or
    // session/new sent straight after initialize is answered first (session/new loads the
    // layer itself), and an editor that pauses finds it warm.
    setTimeout(
      () =>
        void services
          .config()
          .then(() => services.models.choices())
          .catch(() => undefined),
      0,
    );
    setTimeout(
      () => void loadSessionLayer().catch((error) => logger.error("cannot load the session layer", error)),
      SESSION_LAYER_PREFETCH_DELAY_MS,
    ).unref();
    return buildInitializeResponse({ version: options.version, clientCapabilities: state.clientCapabilities });
  });
  const providers = registerProviderHandlers(app, services);
  app = registerAuthHandlers(providers.app, state, providers.notifyAuthStatus);
  app = registerSessionLifecycle(app, state);
  app = registerSessionMetaHandlers(app, state);
  app = registerPromptHandlers(app, state);
  app = registerQuotaRead(app);
  app = registerSteering(app, state);

  return {
    app,
    /** Cancels every running turn: each prompt answers with stopReason "cancelled". */
    cancelTurns(): void {
      for (const { session } of state.sessions.values()) session.cancel();
    },
    /** Closes every session (cancelling turns and killing their processes). */
    async shutdown(): Promise<void> {
      await Promise.all([...state.sessions.keys()].map((id) => state.close(id)));
      // No watcher may outlive the connection (a live one keeps an exiting agent busy).
      await services.watchHub.close();
    },
    /** What the v2 agent (v2-agent.ts) reads of the sessions it serves. */
    v2Hooks: {
      backgroundOf: (sessionId: string): string[] =>
        state.sessions.get(sessionId)?.session.background.runningToolCalls() ?? [],
      steer: (sessionId: string, prompt: acp.ContentBlock[], messageId: string) =>
        steerV2Prompt(state, sessionId, prompt, messageId),
      /** The v2 draft's rewind (v2/rewind-door.ts): a look first, then the session's one rewind. */
      checkRewind: async (sessionId: string, target: RewindTarget) => {
        const problem = findCut(await (await state.live(sessionId)).session.records(), target);
        if (typeof problem !== "number")
          throw new RewindError(problem, describeRewindProblem(problem, target, sessionId));
      },
      rewind: async (sessionId: string, target: RewindTarget) =>
        (await state.live(sessionId)).session.rewind(target, { restoreFiles: false }),
    },
    /** For tests: the live session objects. */
    sessions: (): Session[] => [...state.sessions.values()].map((e) => e.session),
  };
}
