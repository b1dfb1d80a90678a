import { randomUUID } from "node:crypto";
import type { StateSnapshot } from "../backends/state/state-backend.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { ForkPointError } from "./errors.js";
import type { ClientSystemPrompt } from "../turn/index.js";
import type { SessionCollaborators, SessionOptions, SessionServices } from "./services.js";
import { Session } from "./session.js";
import {
  STATE_ATTACHMENT,
  type SessionMeta,
  restoreSession,
  type ReplayItem,
  type SessionRecord,
} from "../transcript/index.js";

/**
 * Builds the collaborators for the id the client will see. The factory calls it once it has
 * chosen that id, so a dialog can never be bound to an id the client was not given.
 */
export type BindCollaborators = (sessionId: string) => SessionCollaborators;

export type SessionSource =
  /** A fresh conversation; it reaches the disk at its first prompt. */
  /** `id`: the one the editor was already given (a session/new answered early); default: a new one. */
  (
    | { kind: "new"; id?: string; cwd: string; additionalDirectories?: string[]; modelSpec: string }
    /** A stored conversation read back (session/load, session/resume, `-n --resume`). */
    | { kind: "open"; id: string; cwd: string; additionalDirectories?: string[] }
    /**
     * A copy of a stored conversation under a new id. `messageId` is the fork point: a user message
     * id keeps everything before that message (so it can be asked differently); an agent message id
     * keeps everything up to and including that answer.
     */
    | { kind: "fork"; sourceId: string; cwd: string; additionalDirectories?: string[]; messageId?: string }
  ) & {
    /** The editor's instructions (ACP `systemPrompt`); absent: those stored with the session (a fork's source's). */
    systemPrompt?: ClientSystemPrompt;
  };

export type { SessionCollaborators };

export type OpenedSession = {
  session: Session;
  /** What the editor needs to show the conversation again (session/load). */
  replay: ReplayItem[];
  /** Lines of the log that could not be read (a torn write, corruption). */
  diagnostics: Diagnostic[];
};

/**
 * The one place a Session is built. Throws the store's SessionNotFoundError /
 * InvalidSessionIdError for an unknown source, ForkPointError for an unknown fork point.
 */
export async function createSession(
  services: SessionServices,
  source: SessionSource,
  bind: BindCollaborators,
): Promise<OpenedSession> {
  const opened =
    source.kind === "new"
      ? fresh(source)
      : await stored(services, source.kind === "fork" ? await forkStored(services, source) : source.id, source);
  const { id, ...options } = opened.options;
  // Bound here, to the id the session gets and the client will be told.
  const session = new Session({ id, ...options, services, ...bind(id) });
  return { session, replay: opened.replay, diagnostics: opened.diagnostics };
}

type Prepared = {
  options: Omit<SessionOptions, "services" | keyof SessionCollaborators>;
  replay: ReplayItem[];
  diagnostics: Diagnostic[];
};

function fresh(source: Extract<SessionSource, { kind: "new" }>): Prepared {
  const options = {
    id: source.id ?? randomUUID(),
    cwd: source.cwd,
    additionalDirectories: source.additionalDirectories ?? [],
    modelSpec: source.modelSpec,
    ...(source.systemPrompt ? { systemPrompt: source.systemPrompt } : {}),
  };
  return { options, replay: [], diagnostics: [] };
}

async function stored(
  services: SessionServices,
  id: string,
  source: { cwd: string; additionalDirectories?: string[]; systemPrompt?: ClientSystemPrompt },
): Promise<Prepared> {
  const { meta, records, diagnostics } = await services.sessions.read(id);
  const restored = restoreSession(records as unknown as SessionRecord[]);
  const snapshots = await readStateSnapshots(services, id);
  const modelSpec = restored.model ?? (await storedOrDefaultModel(services, meta));
  const options = {
    id,
    cwd: source.cwd,
    additionalDirectories: source.additionalDirectories ?? meta.additionalDirectories,
    modelSpec,
    ...systemPromptOf(source.systemPrompt ?? meta.extra?.systemPrompt),
    restored: { ...restored, title: meta.title, stateSnapshots: snapshots },
    persisted: true,
  };
  return { options, replay: restored.replay, diagnostics };
}

/** A stored system prompt is kept only in the shape it was saved in. */
function systemPromptOf(value: unknown): { systemPrompt?: ClientSystemPrompt } {
  const candidate = value as Partial<ClientSystemPrompt> | null | undefined;
  if (!candidate || (candidate.mode !== "append" && candidate.mode !== "override")) return {};
  return typeof candidate.text === "string" ? { systemPrompt: { mode: candidate.mode, text: candidate.text } } : {};
}

async function storedOrDefaultModel(services: SessionServices, meta: SessionMeta): Promise<string> {
  if (typeof meta.extra?.model === "string") return meta.extra.model;
  const resolved = await services.models.resolveDefault();
  return "error" in resolved ? "anthropic:claude-sonnet-4-5" : resolved.spec;
}

/** Copies the source's log up to the fork point under a new id; returns that id. */
async function forkStored(
  services: SessionServices,
  source: Extract<SessionSource, { kind: "fork" }>,
): Promise<string> {
  const { records } = await services.sessions.read(source.sourceId);
  const typed = records as unknown as SessionRecord[];
  let upto: number | undefined;
  if (source.messageId) {
    upto = forkPoint(typed, source.messageId);
    if (upto === undefined) throw new ForkPointError(`no message ${source.messageId} in session ${source.sourceId}`);
  }
  const id = randomUUID();
  const meta = { id, cwd: source.cwd, additionalDirectories: source.additionalDirectories ?? [] };
  await services.sessions.fork(source.sourceId, meta, upto === undefined ? {} : { uptoRecordCount: upto });
  return id;
}

function forkPoint(records: readonly SessionRecord[], messageId: string): number | undefined {
  const user = records.findIndex((r) => r.t === "user" && r.id === messageId);
  if (user >= 0) return user;
  let last = -1;
  records.forEach((r, i) => {
    if ((r.t === "text" || r.t === "thought" || r.t === "msg") && r.mid === messageId) last = i;
  });
  if (last < 0) return undefined;
  // Keep the rest of that turn's records (tool calls it made), up to the next user message.
  const next = records.findIndex((r, i) => i > last && r.t === "user");
  return next < 0 ? records.length : next;
}

async function readStateSnapshots(
  services: SessionServices,
  id: string,
): Promise<Record<string, StateSnapshot> | undefined> {
  const data = await services.sessions.readAttachment(id, STATE_ATTACHMENT).catch(() => undefined);
  if (!data) return undefined;
  try {
    return JSON.parse(data.toString("utf8")) as Record<string, StateSnapshot>;
  } catch {
    services.logger.warn(`session ${id}: saved files are unreadable and were not restored`);
    return undefined;
  }
}
