import * as acp from "@agentclientprotocol/sdk/unstable";
import type { SessionServices } from "../../session/index.js";
import type { SessionMeta } from "../../transcript/index.js";
import { mapErrors, wireError } from "../errors.js";
import type { LiveSession } from "../connection-state.js";

// The session methods of the unstable v1 schema that change or report a session's standing rather
// than its conversation: session/set_title, session/archive, session/unarchive, session/status
// (sessionCapabilities.title, .archive, .status), and the `archived` filter of session/list. Each is
// a function of its params and the sessions a connection holds, so a v2 handler set can call the
// same ones; registerSessionMetaHandlers wires them into the v1 app.

/** What these methods need of a connection: ConnectionState is one. */
export type SessionDirectory = {
  readonly services: Pick<SessionServices, "sessions">;
  /** Sessions this process has in memory, by id (never opened here). */
  readonly sessions: Pick<ReadonlyMap<string, LiveSession>, "get" | "has">;
  /** Cancels and frees a loaded session, as session/close does. */
  close(sessionId: string): Promise<void>;
  /** Forgets a session unloaded to save memory (stored: it can be opened again). */
  forget(sessionId: string): boolean;
};

/** Kept in the store's meta `extra`. */
const ARCHIVED = "archived";
const MAX_TITLE_CHARS = 200;

/** The stored listing of a session, undefined when there is none. Reads the in-memory index only. */
async function storedMeta(directory: SessionDirectory, sessionId: string): Promise<SessionMeta | undefined> {
  const page = await directory.services.sessions.list({ where: (meta) => meta.id === sessionId, limit: 1 });
  return page.sessions[0];
}

export function isArchived(meta: SessionMeta): boolean {
  return meta.extra?.[ARCHIVED] === true;
}

/** session/list's `archived` filter: `exclude` (the default), `include` or `only`; anything else is -32602. */
export function archiveFilter(value: string | null | undefined): ((meta: SessionMeta) => boolean) | undefined {
  switch (value ?? "exclude") {
    case "exclude":
      return (meta) => !isArchived(meta);
    case "include":
      return undefined;
    case "only":
      return isArchived;
    default:
      throw wireError.invalidParams({ archived: value }, `unknown archived filter "${value}" (exclude, include, only)`);
  }
}

/** Whitespace runs become one space; an overlong title is cut at a word with an ellipsis. */
export function normalizeTitle(title: string): string {
  const flat = title.replace(/\s+/g, " ").trim();
  if (flat.length <= MAX_TITLE_CHARS) return flat;
  const cut = flat.slice(0, MAX_TITLE_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** session/set_title: stores the title (the session need not be loaded); answers with what was stored. */
export async function setSessionTitle(
  directory: SessionDirectory,
  params: acp.SetSessionTitleRequest,
): Promise<acp.SetSessionTitleResponse> {
  const title = normalizeTitle(params.title);
  if (title === "") throw wireError.invalidParams({ title: params.title }, "the title is empty");
  const live = directory.sessions.get(params.sessionId);
  if (live) {
    await live.session.rename(title);
    return { title };
  }
  const meta = await storedMeta(directory, params.sessionId);
  if (!meta) throw wireError.sessionNotFound(params.sessionId);
  // Renaming is not activity: the session keeps its place in the list.
  await mapErrors({ sessionId: params.sessionId }, () =>
    directory.services.sessions.updateMeta(params.sessionId, { title, updatedAt: meta.updatedAt }),
  );
  return { title };
}

/** session/archive: closes the session if it is loaded (as session/close), then hides it from the default list. */
export async function archiveSession(
  directory: SessionDirectory,
  params: acp.ArchiveSessionRequest,
): Promise<acp.ArchiveSessionResponse> {
  const live = directory.sessions.get(params.sessionId);
  // A session that was never prompted is not stored: closing it is all there is to do.
  const stored = live ? live.session.isStored : true;
  if (live) await directory.close(params.sessionId);
  else directory.forget(params.sessionId);
  if (!stored) return {};
  await setArchived(directory, params.sessionId, true);
  return {};
}

/** session/unarchive: back in the default list, with the same id and history; nothing is loaded. */
export async function unarchiveSession(
  directory: SessionDirectory,
  params: acp.UnarchiveSessionRequest,
): Promise<acp.UnarchiveSessionResponse> {
  const live = directory.sessions.get(params.sessionId);
  if (live && !live.session.isStored) return {};
  await setArchived(directory, params.sessionId, false);
  return {};
}

async function setArchived(directory: SessionDirectory, sessionId: string, archived: boolean): Promise<void> {
  const meta = await storedMeta(directory, sessionId);
  if (!meta) throw wireError.sessionNotFound(sessionId);
  if (isArchived(meta) === archived) return;
  await mapErrors({ sessionId }, () =>
    directory.services.sessions.updateMeta(sessionId, {
      updatedAt: meta.updatedAt,
      extra: { [ARCHIVED]: archived ? true : null },
    }),
  );
}

/** session/status: `open` when this process has the session in memory, `saved` when only stored. No side effects. */
export async function sessionStatus(
  directory: SessionDirectory,
  params: acp.SessionStatusRequest,
): Promise<acp.SessionStatusResponse> {
  if (directory.sessions.has(params.sessionId)) return { status: "open" };
  if (await storedMeta(directory, params.sessionId)) return { status: "saved" };
  throw wireError.sessionNotFound(params.sessionId);
}

/** The v1 wiring: a retitled loaded session also tells its editor (`session_info_update`). */
export function registerSessionMetaHandlers(app: acp.AgentApp, directory: SessionDirectory): acp.AgentApp {
  return app
    .onRequest(acp.methods.agent.session.setTitle, async ({ params }) => {
      const response = await setSessionTitle(directory, params);
      directory.sessions.get(params.sessionId)?.stream.push({
        sessionUpdate: "session_info_update",
        title: response.title,
      });
      return response;
    })
    .onRequest(acp.methods.agent.session.archive, ({ params }) => archiveSession(directory, params))
    .onRequest(acp.methods.agent.session.unarchive, ({ params }) => unarchiveSession(directory, params))
    .onRequest(acp.methods.agent.session.status, ({ params }) => sessionStatus(directory, params));
}
