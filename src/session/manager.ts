import { randomUUID } from "node:crypto";
import type { Approver } from "../agent/approver.js";
import type { EditorBridge } from "../backends/editor-bridge.js";
import type { StateSnapshot } from "../backends/state-backend.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { ForkPointError } from "./errors.js";
import type { SessionEvent, SessionServices } from "./services.js";
import type { EditorMcpServer } from "../mcp/index.js";
import type { TrustPrompter } from "./trust-queue.js";
import { Session, STATE_ATTACHMENT } from "./session.js";
import type { SessionMeta } from "./store/index.js";
import { restoreSession, type ReplayItem, type SessionRecord } from "./transcript.js";

export type AttachOptions = {
  cwd: string;
  additionalDirectories?: string[];
  approver: Approver;
  editor?: EditorBridge;
  editorMcpServers?: EditorMcpServer[];
  trustPrompter?: TrustPrompter;
  notify?: (event: SessionEvent) => boolean;
};

export type OpenedSession = {
  session: Session;
  /** What the editor needs to show the conversation again (session/load). */
  replay: ReplayItem[];
  /** Lines of the log that could not be read (a torn write, corruption). */
  diagnostics: Diagnostic[];
  meta: SessionMeta;
};

/** Reads a stored session back into a live one. Throws the store's SessionNotFoundError. */
export async function openSession(services: SessionServices, id: string, options: AttachOptions): Promise<OpenedSession> {
  const { meta, records, diagnostics } = await services.sessions.read(id);
  const restored = restoreSession(records as unknown as SessionRecord[]);
  const snapshots = await readStateSnapshots(services, id);
  let modelSpec = restored.model ?? (typeof meta.extra?.model === "string" ? meta.extra.model : undefined);
  if (!modelSpec) {
    const resolved = await services.models.resolveDefault();
    modelSpec = "error" in resolved ? "anthropic:claude-sonnet-4-5" : resolved.spec;
  }
  const session = new Session({
    id,
    cwd: options.cwd,
    additionalDirectories: options.additionalDirectories ?? meta.additionalDirectories,
    modelSpec,
    services,
    approver: options.approver,
    editor: options.editor,
    editorMcpServers: options.editorMcpServers,
    trustPrompter: options.trustPrompter,
    notify: options.notify,
    restored: { ...restored, title: meta.title, stateSnapshots: snapshots },
    persisted: true,
  });
  return { session, replay: restored.replay, diagnostics, meta };
}

export type ForkOptions = AttachOptions & {
  /**
   * Fork point. A user message id keeps everything before that message (so it can be asked
   * differently); an agent message id keeps everything up to and including that answer.
   */
  messageId?: string;
};

export async function forkSession(services: SessionServices, sourceId: string, options: ForkOptions): Promise<OpenedSession> {
  const { records } = await services.sessions.read(sourceId);
  const typed = records as unknown as SessionRecord[];
  let upto: number | undefined;
  if (options.messageId) {
    upto = forkPoint(typed, options.messageId);
    if (upto === undefined) throw new ForkPointError(`no message ${options.messageId} in session ${sourceId}`);
  }
  const id = randomUUID();
  await services.sessions.fork(sourceId, { id, cwd: options.cwd, additionalDirectories: options.additionalDirectories ?? [] }, upto === undefined ? {} : { uptoRecordCount: upto });
  return openSession(services, id, options);
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

async function readStateSnapshots(services: SessionServices, id: string): Promise<Record<string, StateSnapshot> | undefined> {
  const data = await services.sessions.readAttachment(id, STATE_ATTACHMENT).catch(() => undefined);
  if (!data) return undefined;
  try {
    return JSON.parse(data.toString("utf8")) as Record<string, StateSnapshot>;
  } catch {
    services.logger.warn(`session ${id}: saved files are unreadable and were not restored`);
    return undefined;
  }
}
