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
  logger: Logger;
};

/** Saves the end of a turn: the stop reason, the title and time for session/list, the scratch files. */
export async function saveTurnEnd(input: TurnEndInput): Promise<void> {
  const { recorder, store, sessionId, logger } = input;
  recorder.record({ t: "turn_end", stopReason: input.result.stopReason });
  store.updateMeta(sessionId, input.meta).catch((error) => logger.warn("cannot update session index", error));
  if (input.snapshots) {
    await store
      .writeAttachment(sessionId, STATE_ATTACHMENT, JSON.stringify(input.snapshots))
      .catch((error) => logger.warn("cannot save session files", error));
  }
  await recorder.flush().catch((error) => logger.warn("cannot save session", error));
}
