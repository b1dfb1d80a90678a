import type { TurnResult } from "../agent/events.js";
import type { Logger } from "../util/logger.js";
import type { Recorder } from "./recorder.js";
import type { MetaPatch, SessionStore } from "./store/index.js";

/** The attachment holding the files of the session-scoped routes (/memories/ and the like). */
export const STATE_ATTACHMENT = "state.json";

export type TurnEndInput = {
  recorder: Recorder;
  store: SessionStore;
  sessionId: string;
  result: TurnResult;
  /** Title and settings for session/list. */
  meta: MetaPatch;
  /** Files of the session-scoped routes by prefix, when there are any. */
  snapshots?: Record<string, unknown>;
  /**
   * The snapshot (as JSON) this process saved last for the session: an unchanged one is not written
   * again. Writing it (a temp file and a rename, behind the log's queue) was most of what a turn's
   * end waited for, every turn, though the scratch files rarely change.
   */
  saved?: string;
  logger: Logger;
};

/**
 * Saves the end of a turn: the stop reason, the title and time for session/list, the scratch files.
 * Resolves with the snapshot JSON saved now or before (undefined when none is known to be saved).
 */
export async function saveTurnEnd(input: TurnEndInput): Promise<string | undefined> {
  const { recorder, store, sessionId, logger } = input;
  recorder.record({ t: "turn_end", stopReason: input.result.stopReason });
  store.updateMeta(sessionId, input.meta).catch((error) => logger.warn("cannot update session index", error));
  let saved = input.saved;
  const json = input.snapshots && JSON.stringify(input.snapshots);
  if (json !== undefined && json !== saved) {
    saved = await store.writeAttachment(sessionId, STATE_ATTACHMENT, json).then(
      () => json,
      (error) => void logger.warn("cannot save session files", error),
    );
  }
  await recorder.flush().catch((error) => logger.warn("cannot save session", error));
  return saved;
}
