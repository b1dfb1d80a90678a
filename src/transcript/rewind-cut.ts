import type { SessionRecord } from "./restore.js";

// Where a rewind cuts a session's records. Two shapes name the point: before a user message (it and
// everything after go: our `_deep-acp/session/rewind` and JetBrains' `_session/rewind`), or through
// any message the editor was shown (it stays, everything after goes: the v2 draft's
// `session/rewind { toMessageId }`). Only the session's own messages count, never a subagent's.

export type RewindTarget = { before: string } | { through: string };

/** Why a rewind found no point to cut at (the v2 draft's `error.data.reason`). */
export type RewindProblem = "unknown_message_id" | "not_a_user_message";

/** The message id a record of the session's own conversation carries. */
function messageIdOf(record: SessionRecord): string | undefined {
  if (record.t === "user") return record.id;
  if ((record.t === "text" || record.t === "thought") && !record.sub) return record.mid;
  if (record.t === "msg") return record.mid;
  return undefined;
}

/** The index the kept records end at, or why there is none. */
export function findCut(records: readonly SessionRecord[], target: RewindTarget): number | RewindProblem {
  if ("before" in target) {
    const at = records.findIndex((r) => r.t === "user" && r.id === target.before);
    if (at >= 0) return at;
    return records.some((r) => messageIdOf(r) === target.before) ? "not_a_user_message" : "unknown_message_id";
  }
  for (let i = records.length - 1; i >= 0; i--) if (messageIdOf(records[i]!) === target.through) return i + 1;
  return "unknown_message_id";
}

/** The last message the editor was shown among `records` (a user message or agent text); null if none. */
export function lastMessageId(records: readonly SessionRecord[]): string | null {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.t === "user") return record.id;
    if ((record.t === "text" || record.t === "thought") && !record.sub) return record.mid;
  }
  return null;
}

/** The error message of a rewind that found no point to cut at. */
export function describeRewindProblem(problem: RewindProblem, target: RewindTarget, sessionId: string): string {
  const id = "before" in target ? target.before : target.through;
  return problem === "not_a_user_message"
    ? `message ${id} of session ${sessionId} is not a user message`
    : `no message ${id} in session ${sessionId}`;
}
