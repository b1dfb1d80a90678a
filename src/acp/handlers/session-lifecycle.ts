import * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { AIR_SESSION_REWIND, clientSpeaksAir } from "../capabilities.js";
import { checkNewSession, relativePathProblem } from "../../session/new-session-check.js";
import { InvalidSessionIdError, resolveRewindPoints } from "../../transcript/index.js";
import { mapErrors, newSessionProblemError, wireError } from "../errors.js";
import { loadSessionLayer, type ConnectionState, type LiveSession, type OpenedSession } from "../connection-state.js";
import { META_KEY } from "../updates/translate.js";
import { clientSystemPrompt } from "../client-system-prompt.js";
import { archiveFilter, isArchived } from "./session-meta-handlers.js";
import type { ClientSystemPrompt } from "../../turn/index.js";

/** Extension method: truncate a conversation before a user message and restore the files since. */
export const REWIND_METHOD = "_deep-acp/session/rewind";
const rewindParams = z.object({ sessionId: z.string().min(1), messageId: z.string().min(1) });

/**
 * The same rewind through JetBrains' door (claude-agent-acp PR #1126, codex-acp PR #508): the first
 * user message to remove (`beforeMessage`) and, as a guard, the last agent reply to keep
 * (`resumeAtMessage`, absent for the first message), each named by id, pinned by `sha256:<hex>` of
 * its full text and, for a client whose ids are not ours, the fingerprint's 1-based occurrence
 * (transcript/history-point.ts). A point that does not match is refused and nothing changes.
 * Answered `{ rewound: true }`; only for clients that list `sessionRewind`.
 */
export const AIR_REWIND_METHOD = "_session/rewind";
const historyPoint = z.object({
  messageId: z.string().min(1),
  messageFingerprint: z.string().optional(),
  messageOccurrence: z.number().int().min(1).optional(),
});
const airRewindParams = z.object({
  sessionId: z.string().min(1),
  beforeMessage: historyPoint,
  resumeAtMessage: historyPoint.optional(),
  _meta: z.unknown().optional(),
});

function checkPaths(cwd: string, extra: readonly string[] = []) {
  const problem = relativePathProblem(cwd, extra);
  if (problem) throw newSessionProblemError(problem);
}

/** session/new, load, resume, fork, list, delete, close and rewind. */
export function registerSessionLifecycle(app: acp.AgentApp, state: ConnectionState): acp.AgentApp {
  const { services } = state;

  /** Opens a stored session into this connection, or reuses it when it is already live. */
  async function attach(
    client: acp.AgentContext,
    sessionId: string,
    cwd: string,
    additionalDirectories: string[] | undefined,
    mcpServers: acp.McpServer[] | undefined,
    replay: boolean,
    systemPrompt?: ClientSystemPrompt,
  ): Promise<LiveSession> {
    const existing = state.sessions.get(sessionId);
    if (existing) {
      if (replay) {
        const { restoreSession } = await import("../../transcript/index.js");
        state.replay(existing, restoreSession(await existing.session.records()).replay);
      }
      return existing;
    }
    state.forget(sessionId); // an unloaded session is opened afresh (and replayed) by load and resume
    const source = { kind: "open" as const, id: sessionId, cwd, additionalDirectories, systemPrompt };
    const guard = (work: () => Promise<OpenedSession>) => mapErrors({ sessionId }, work);
    const { entry, opened } = await state.open(client, source, mcpServers, { guard });
    if (replay) state.replay(entry, opened.replay);
    for (const d of opened.diagnostics) state.logger.warn(`session ${sessionId}: ${d.message}`);
    return entry;
  }

  /** After the answer (Zed registers a session only then): its commands, and the quota already known (quota/quota.ts). */
  function announce(entry: LiveSession) {
    state.announceCommands(entry);
    setTimeout(() => {
      for (const update of entry.translate.quotaAtStart()) entry.stream.push(update);
    }, 0);
  }

  async function respond(entry: LiveSession, replayed: boolean) {
    // After a replay the editor shows the session's stored title (an editor that set it sees it kept).
    if (replayed && entry.session.title)
      entry.stream.push({ sessionUpdate: "session_info_update", title: entry.session.title });
    await entry.stream.flush();
    announce(entry);
    return state.config(entry.session);
  }

  return app
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      // The first session/new may be one the editor was already answered (with this id) early.
      const earlyId = state.earlySessionIds.shift();
      // The same check the early handshake made before it answered (session/new-session-check.ts).
      const check = await checkNewSession(services, params);
      if (!check.ok) throw newSessionProblemError(check);
      const systemPrompt = clientSystemPrompt(params);
      const source = {
        kind: "new" as const,
        ...(systemPrompt ? { systemPrompt } : {}),
        ...(earlyId ? { id: earlyId } : {}),
        cwd: params.cwd,
        additionalDirectories: params.additionalDirectories ?? [],
        modelSpec: check.modelSpec,
      };
      const { entry } = await state.open(client, source, params.mcpServers);
      const { session } = entry;
      const config = await state.config(session);
      // Zed registers the session only when it has this response, so updates wait for the next tick.
      announce(entry);
      return { sessionId: session.id, ...config };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      checkPaths(params.cwd, params.additionalDirectories ?? []);
      const entry = await attach(
        client,
        params.sessionId,
        params.cwd,
        params.additionalDirectories,
        params.mcpServers,
        true,
        clientSystemPrompt(params),
      );
      return respond(entry, true);
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params, client }) => {
      checkPaths(params.cwd, params.additionalDirectories ?? []);
      const entry = await attach(
        client,
        params.sessionId,
        params.cwd,
        params.additionalDirectories,
        params.mcpServers,
        false,
        clientSystemPrompt(params),
      );
      return respond(entry, false);
    })
    .onRequest(acp.methods.agent.session.fork, async ({ params, client }) => {
      checkPaths(params.cwd, params.additionalDirectories ?? []);
      const meta = (params._meta ?? {}) as Record<string, unknown>;
      const own = (meta[META_KEY] ?? {}) as Record<string, unknown>;
      const messageId =
        typeof own.messageId === "string"
          ? own.messageId
          : typeof meta.messageId === "string"
            ? meta.messageId
            : undefined;
      const systemPrompt = clientSystemPrompt(params);
      await state.sessions.get(params.sessionId)?.session.records(); // flush a live source first
      const source = {
        kind: "fork" as const,
        ...(systemPrompt ? { systemPrompt } : {}),
        sourceId: params.sessionId,
        cwd: params.cwd,
        additionalDirectories: params.additionalDirectories,
        messageId,
      };
      const guard = (work: () => Promise<OpenedSession>) => mapErrors({ sessionId: params.sessionId, messageId }, work);
      const { entry } = await state.open(client, source, params.mcpServers, { guard });
      announce(entry);
      return { sessionId: entry.session.id, ...(await state.config(entry.session)) };
    })
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      const where = archiveFilter(params.archived);
      const query = {
        ...(params.cwd ? { cwd: params.cwd } : {}),
        ...(params.cursor ? { cursor: params.cursor } : {}),
        ...(where ? { where } : {}),
      };
      const page = await mapErrors({ cursor: params.cursor ?? undefined }, () => services.sessions.list(query));
      return {
        sessions: page.sessions.map((s) => ({
          sessionId: s.id,
          cwd: s.cwd,
          ...(s.additionalDirectories.length ? { additionalDirectories: s.additionalDirectories } : {}),
          ...(s.title ? { title: s.title } : {}),
          updatedAt: s.updatedAt,
          archived: isArchived(s),
        })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    })
    .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
      state.forget(params.sessionId);
      await state.close(params.sessionId);
      // Its container (if it had one) goes with it; an engine that cannot be reached is logged, not fatal.
      await (
        await loadSessionLayer()
      )
        .removeSessionWorkspace(services.paths, params.sessionId)
        .catch((error) => state.logger.warn(`session ${params.sessionId}: removing its container failed`, error));
      try {
        await services.sessions.delete(params.sessionId);
      } catch (error) {
        // Deleting what does not exist succeeds (idempotent); a malformed id cannot exist.
        if (!(error instanceof InvalidSessionIdError)) throw error;
        return {};
      }
      // Its saved plan (plan mode's Markdown plan document) too.
      await (await loadSessionLayer()).removePlanDocument(services.paths.plansDir, params.sessionId);
      return {};
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      if (!state.sessions.has(params.sessionId) && !state.forget(params.sessionId))
        throw wireError.sessionNotFound(params.sessionId);
      await state.close(params.sessionId);
      return {};
    })
    .onRequest(REWIND_METHOD, rewindParams, async ({ params }) => {
      const entry = await state.live(params.sessionId);
      const { report } = await mapErrors({ messageId: params.messageId }, () =>
        entry.session.rewind({ before: params.messageId }),
      );
      return { restoredFiles: report.restored, notRestored: report.notRestored };
    })
    .onRequest(AIR_REWIND_METHOD, airRewindParams, async ({ params }) => {
      if (!clientSpeaksAir(state.clientCapabilities, AIR_SESSION_REWIND))
        throw wireError.methodNotFound(AIR_REWIND_METHOD);
      const entry = await state.live(params.sessionId);
      const { beforeMessage, resumeAtMessage } = params;
      const found = resolveRewindPoints(await entry.session.records(), beforeMessage, resumeAtMessage);
      if ("problem" in found) throw wireError.invalidParams({ messageId: beforeMessage.messageId }, found.problem);
      await mapErrors({ messageId: found.messageId }, () => entry.session.rewind({ before: found.messageId }));
      return { rewound: true };
    });
}
