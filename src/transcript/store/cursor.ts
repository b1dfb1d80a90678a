import { InvalidCursorError } from "./errors.js";
import type { ListPage, SessionMeta } from "./types.js";

// list() order and pagination. A cursor is the position of the last session of a page (its
// updatedAt and id, base64url JSON), not an offset: sessions created or touched between two pages
// sort before that position, so the following pages neither repeat nor skip the older sessions.

const ID = /^[A-Za-z0-9_-]{1,128}$/;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

type Position = { t: number; id: string };

function positionOf(meta: SessionMeta): Position {
  return { t: Date.parse(meta.updatedAt), id: meta.id };
}

/** Newest first; equal timestamps by id ascending, so the order is total and stable. */
function comparePositions(a: Position, b: Position): number {
  if (a.t !== b.t) return b.t - a.t;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function sortSessions(sessions: SessionMeta[]): SessionMeta[] {
  const keyed = sessions.map((meta) => ({ meta, at: positionOf(meta) }));
  keyed.sort((a, b) => comparePositions(a.at, b.at));
  return keyed.map((entry) => entry.meta);
}

export function encodeCursor(meta: SessionMeta): string {
  const { t, id } = positionOf(meta);
  return Buffer.from(JSON.stringify({ v: 1, t, id })).toString("base64url");
}

export function decodeCursor(cursor: string): Position {
  if (typeof cursor !== "string" || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw new InvalidCursorError(String(cursor));
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new InvalidCursorError(cursor);
  }
  const { v, t, id } = (value ?? {}) as { v?: unknown; t?: unknown; id?: unknown };
  if (v !== 1 || typeof t !== "number" || !Number.isFinite(t) || typeof id !== "string" || !ID.test(id)) {
    throw new InvalidCursorError(cursor);
  }
  return { t, id };
}

export function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

/** One page of `sorted` (already in list order) after `after`. */
export function paginate(sorted: SessionMeta[], after: Position | undefined, limit: number): ListPage {
  let start = 0;
  if (after) {
    // Binary search: the first session strictly after the cursor position.
    let high = sorted.length;
    while (start < high) {
      const mid = (start + high) >>> 1;
      if (comparePositions(positionOf(sorted[mid]!), after) <= 0) start = mid + 1;
      else high = mid;
    }
  }
  const sessions = sorted.slice(start, start + limit);
  const more = start + limit < sorted.length;
  const last = sessions[sessions.length - 1];
  return more && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
}
