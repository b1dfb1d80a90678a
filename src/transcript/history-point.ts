import { createHash } from "node:crypto";
import type { SessionRecord } from "./restore.js";

// JetBrains' history points (`_session/rewind`, claude-agent-acp PR #1126 and codex-acp PR #508,
// docs/session-rewind-extension.md): a message named by its ACP id, pinned by `sha256:<hex>` of its
// complete text, with the 1-based occurrence of that fingerprint among messages of its role. The id
// is tried first (and must carry that text); the fingerprint's occurrence is the fallback for a
// client whose ids are not ours. Only the session's own messages count, never a subagent's.

export type HistoryPoint = { messageId: string; messageFingerprint?: string; messageOccurrence?: number };

/** A user message or an agent reply: its id and its full text. */
type Visible = { id: string; text: string };

/** `sha256:` and the hex SHA-256 of a message's text, as JetBrains pins it. */
export function messageFingerprint(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

/** The session's user messages, in order: where each starts (its record) and its text. */
function userMessages(records: readonly SessionRecord[]): Array<Visible & { at: number }> {
  const found: Array<Visible & { at: number }> = [];
  records.forEach((r, at) => {
    if (r.t === "user")
      found.push({ id: r.id, at, text: r.blocks.map((b) => (b.type === "text" ? b.text : "")).join("") });
  });
  return found;
}

/** The agent's replies (their streamed text, by message id) in `records`, in order. */
function agentReplies(records: readonly SessionRecord[]): Visible[] {
  const byId = new Map<string, Visible>();
  for (const r of records) {
    if (r.t !== "text" || r.sub) continue;
    const reply = byId.get(r.mid);
    if (reply) reply.text += r.text;
    else byId.set(r.mid, { id: r.mid, text: r.text });
  }
  return [...byId.values()];
}

function pick<T extends Visible>(messages: readonly T[], point: HistoryPoint): T | undefined {
  const wanted = point.messageFingerprint;
  const byId = messages.find((m) => m.id === point.messageId);
  if (byId) return !wanted || messageFingerprint(byId.text) === wanted ? byId : undefined;
  if (!wanted) return undefined;
  return messages.filter((m) => messageFingerprint(m.text) === wanted)[(point.messageOccurrence ?? 1) - 1];
}

/**
 * The user message `before` names (the first one a rewind removes), checked against `resumeAt`
 * when given: the last agent reply the rewind keeps. Its id, or why it names none.
 */
export function resolveRewindPoints(
  records: readonly SessionRecord[],
  before: HistoryPoint,
  resumeAt?: HistoryPoint,
): { messageId: string } | { problem: string } {
  const target = pick(userMessages(records), before);
  if (!target) return { problem: "beforeMessage names no user message of this session (by id and fingerprint)" };
  if (resumeAt === undefined) return { messageId: target.id };
  const kept = agentReplies(records.slice(0, target.at));
  const last = kept.at(-1);
  const named = pick(kept, resumeAt);
  if (!named || named !== last)
    return { problem: "resumeAtMessage is not the last agent reply before beforeMessage (by id and fingerprint)" };
  return { messageId: target.id };
}
