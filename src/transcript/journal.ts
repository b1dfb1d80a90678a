import type { AgentEvent, TurnResult } from "../agent/events.js";
import type { Message, UserMessage } from "../model/types.js";
import type { PromptBlock } from "../tools/types.js";
import type { Logger } from "../util/logger.js";
import { createRecorder, type Recorder } from "./recorder.js";
import type { BackendProtocol } from "../backends/protocol.js";
import type { RestoreScope } from "../gate/seams/restore.js";
import { restoreSession, type RestoredSession, type SessionRecord } from "./restore.js";
import { fileChanges, restoreFiles, type RewindReport } from "./rewind.js";
import type { MetaPatch, NewSessionMeta, SessionStore } from "./store/index.js";
import { saveTurnEnd } from "./turn-end.js";

export type RewindOutcome = { report: RewindReport; restored: RestoredSession };

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
     * Truncates the log before user message `messageId` and puts back the files the agent changed
     * since (unless someone else changed them after). Undefined when there is no such message.
     */
    async rewind(
      messageId: string,
      files: () => Promise<{ backend: BackendProtocol; scope: RestoreScope }>,
    ): Promise<RewindOutcome | undefined> {
      const records = await this.records();
      const cut = records.findIndex((r) => r.t === "user" && r.id === messageId);
      if (cut < 0) return undefined;
      const { backend, scope } = await files();
      const report = await restoreFiles(fileChanges(records.slice(cut)), backend, scope);
      const kept = records.slice(0, cut);
      savedSnapshot = undefined;
      await store.rewrite(sessionId, kept as unknown as Record<string, unknown>[]);
      return { report, restored: restoreSession(kept) };
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
