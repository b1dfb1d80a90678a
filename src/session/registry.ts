import type { Logger } from "../util/logger.js";
import type { Session } from "./session.js";

// The sessions one connection (or one `-n` run) has open, free of any protocol: most recently used
// last, the least recently used idle stored ones unloaded over a cap and opened again on their next
// request, cancel by session or child id, close. A light entry of the session room: it imports only
// types, so acp/ loads it before the session layer (which it loads after `initialize`).

/** Loaded sessions kept by default; the least recently used idle ones beyond it are unloaded. */
export const DEFAULT_MAX_LOADED_SESSIONS = 32;

export type SessionRegistryOptions<Entry, Origin> = {
  /** Opens an unloaded session again, as it was first attached (its entry is `add`ed by then). */
  reopen: (sessionId: string, origin: Origin) => Promise<Entry>;
  /** Runs when an entry leaves the registry, before its session closes. */
  dropped?: (sessionId: string) => void;
  /** Runs after an entry's session has closed (the editor's stream flushed). */
  closed?: (entry: Entry) => Promise<void>;
  logger: Logger;
};

export class SessionRegistry<Entry extends { session: Session }, Origin> {
  private readonly loaded = new Map<string, Entry>();
  private readonly origins = new Map<string, Origin>();
  /** Sessions closed to save memory: the next request for one opens it again, without replay. */
  private readonly unloaded = new Map<string, Origin>();
  private readonly reopening = new Map<string, Promise<Entry>>();
  maxLoaded = DEFAULT_MAX_LOADED_SESSIONS;

  constructor(private readonly options: SessionRegistryOptions<Entry, Origin>) {}

  get(sessionId: string): Entry | undefined {
    return this.loaded.get(sessionId);
  }

  has(sessionId: string): boolean {
    return this.loaded.has(sessionId);
  }

  values(): IterableIterator<Entry> {
    return this.loaded.values();
  }

  keys(): IterableIterator<string> {
    return this.loaded.keys();
  }

  /** A session, opened again if it was unloaded, made the most recently used; undefined if unknown. */
  async live(sessionId: string): Promise<Entry | undefined> {
    const entry = this.loaded.get(sessionId);
    if (entry) {
      this.loaded.delete(sessionId);
      this.loaded.set(sessionId, entry);
      return entry;
    }
    const origin = this.unloaded.get(sessionId);
    if (!origin) return undefined;
    let reopened = this.reopening.get(sessionId);
    if (!reopened) {
      reopened = this.options
        .reopen(sessionId, origin)
        .then((entry) => {
          this.options.logger.debug(`reopened session ${sessionId}`);
          return entry;
        })
        .finally(() => this.reopening.delete(sessionId));
      this.reopening.set(sessionId, reopened);
    }
    return reopened;
  }

  /** Registers a session just created (new, opened again or forked), and unloads over the cap. */
  add(entry: Entry, origin: Origin): void {
    const { id } = entry.session;
    this.unloaded.delete(id);
    this.loaded.set(id, entry);
    this.origins.set(id, origin);
    if (this.loaded.size > this.maxLoaded) void this.unloadOverCap(id);
  }

  /** Forgets an unloaded session (deleted or closed by the editor). */
  forget(sessionId: string): boolean {
    return this.unloaded.delete(sessionId);
  }

  /** Unloads the least recently used idle stored sessions over the cap (all but `keep`). */
  private async unloadOverCap(keep: string): Promise<void> {
    for (const [id, entry] of this.loaded) {
      if (this.loaded.size <= this.maxLoaded) return;
      const origin = this.origins.get(id);
      if (id === keep || !origin || entry.session.isRunning || !entry.session.isStored) continue;
      const closing = this.close(id);
      // After close() has let go of it (synchronously), before its flush: a request now reopens it.
      this.unloaded.set(id, origin);
      await closing.catch((error) => this.options.logger.warn(`unloading session ${id} failed`, error));
      this.options.logger.debug(`unloaded idle session ${id} (over ${this.maxLoaded} loaded)`);
    }
  }

  /** A session's turn, or one running subagent of a session (a child session id), which ends only it. */
  cancel(sessionId: string): void {
    const entry = this.loaded.get(sessionId);
    if (entry) return entry.session.cancel();
    for (const { session } of this.loaded.values()) if (session.cancelSubagent(sessionId)) return;
  }

  async close(sessionId: string): Promise<void> {
    const entry = this.loaded.get(sessionId);
    if (!entry) return;
    this.loaded.delete(sessionId);
    this.origins.delete(sessionId);
    this.unloaded.delete(sessionId);
    this.options.dropped?.(sessionId);
    await entry.session.close();
    await this.options.closed?.(entry);
  }
}
