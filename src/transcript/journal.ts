import type { AgentEvent, TurnResult } from "../agent/events.js";
import type { Message, UserMessage } from "../model/types.js";
import type { PromptBlock } from "../tools/types.js";
import type { Logger } from "../util/logger.js";
import { createRecorder, type Recorder } from "./recorder.js";
import type { BackendProtocol } from "../backends/protocol.js";
import type { RestoreScope } from "../gate/seams/restore.js";
import { restoreSession, type RestoredSession, type SessionRecord } from "./restore.js";
import { fileChanges, restoreFiles, type RewindReport } from "./rewind.js";
import { describeRewindProblem, findCut, lastMessageId, type RewindProblem, type RewindTarget } from "./rewind-cut.js";
import type { MetaPatch, NewSessionMeta, SessionStore } from "./store/index.js";
import { saveTurnEnd } from "./turn-end.js";

/** What a rewind did: the files it put back, and the last message left (null: none is). */
export type RewindDone = { report: RewindReport; lastMessageId: string | null };
export type RewindOutcome = RewindDone & { restored: RestoredSession };

export type JournalOptions = { store: SessionStore; sessionId: string; logger: Logger; persisted: boolean };

/**
 * A session's transcript on disk. New sessions reach the disk at their first prompt (`create`), so
 * empty sessions never clutter the list; until then every write is dropped.
 */
export function createJournal(options: JournalOptions) {
  const { store, sessionId, logger } = options;
  let persisted = options.persisted;
  let recorder: Recorder | undefined = persisted ? createRecorder(store, sessionId, logger) : undefined;
  /** The scratch-file snapshot this process saved last (see saveTurnEnd). */
  let savedSnapshot: string | undefined;
  return {
    get persisted(): boolean {
      return persisted;
    },
    /** Writes the session's first lines; false when it was on disk already. */
    async create(meta: Omit<NewSessionMeta, "id">, first: readonly SessionRecord[]): Promise<boolean> {
      if (persisted) return false;
      persisted = true;
      await store.create({ ...meta, id: sessionId });
      recorder = createRecorder(store, sessionId, logger);
      for (const record of first) recorder.record(record);
      return true;
    },
    record(record: SessionRecord): void {
      recorder?.record(record);
    },
    event(event: AgentEvent): void {
      recorder?.event(event);
    },
    user(messageId: string, blocks: PromptBlock[], message: UserMessage): void {
      recorder?.user(messageId, blocks, message);
    },
    message(message: Message, messageId?: string): void {
      recorder?.message(message, messageId);
    },
    async flush(): Promise<void> {
      await recorder?.flush();
    },
    /** The records written so far (after flushing what is buffered). */
    async records(): Promise<SessionRecord[]> {
      if (!persisted) return [];
      await recorder?.flush();
      return (await store.read(sessionId)).records as unknown as SessionRecord[];
    },
    /**
     * Truncates the log at `target` (rewind-cut.ts) and, when `files` is given, puts back the files
     * the agent changed since (unless someone else changed them after). Nothing changes on a problem.
     */
    async rewind(
      target: RewindTarget,
      files?: () => Promise<{ backend: BackendProtocol; scope: RestoreScope }>,
    ): Promise<RewindOutcome | { problem: RewindProblem; message: string }> {
      const records = await this.records();
      const cut = findCut(records, target);
      if (typeof cut !== "number") return { problem: cut, message: describeRewindProblem(cut, target, sessionId) };
      let report: RewindReport = { restored: [], notRestored: [] };
      if (files) {
        const { backend, scope } = await files();
        report = await restoreFiles(fileChanges(records.slice(cut)), backend, scope);
      }
      const kept = records.slice(0, cut);
      savedSnapshot = undefined;
      await store.rewrite(sessionId, kept as unknown as Record<string, unknown>[]);
      return { report, restored: restoreSession(kept), lastMessageId: lastMessageId(kept) };
    },
    async endTurn(result: TurnResult, meta: MetaPatch, snapshots: Record<string, unknown> | undefined): Promise<void> {
      if (recorder)
        savedSnapshot = await saveTurnEnd({
          recorder,
          store,
          sessionId,
          result,
          meta,
          snapshots,
          logger,
          saved: savedSnapshot,
        });
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;
