import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";

// v2's `idempotencyKey` on session/prompt (RFD "v2 Idempotency Keys"; no capability: every v2 agent
// that serves sessions honours it): a prompt sent again with the same key in the same session is
// inserted at most once, and every retry is answered with the original's answer (its messageId),
// waiting for it while the original is still held or offered to the running turn.
// SDK 2.4.0's v2 schema has no such field and its parser drops it before a handler runs, so the key
// is read off the raw message as it arrives (by its JSON-RPC id) and taken by the handler.
// A prompt that was not inserted (cancelled while held, stopped by a hook, refused) leaves no key
// behind: a retry of it is a new attempt. Keys live as long as the connection, the last
// KEYS_PER_SESSION of each session.

export const KEYS_PER_SESSION = 256;
/** Keys read but not yet taken by a handler (a request the SDK refused before it ran). */
const MAX_UNTAKEN = 1024;
const MAX_KEY_LENGTH = 1024;

type RequestId = string | number;

export type IdempotencyKeys = {
  /** The stream the v2 agent reads, with each session/prompt's key noted on the way. */
  tap<S extends { readable: ReadableStream<unknown> }>(stream: S): S;
  /** The key the request `requestId` carried, if any (once). */
  take(requestId: unknown): string | undefined;
  /** The answer of the prompt inserted under `key` in the session, or of `insert()` when there is none. */
  once(
    sessionId: string,
    key: string | undefined,
    insert: () => Promise<v2.PromptResponse>,
  ): Promise<v2.PromptResponse>;
  /** Forgets a session's keys (deleted). */
  forget(sessionId: string): void;
};

const keyOf = (message: unknown): [RequestId, string] | undefined => {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== "session/prompt" || (typeof m.id !== "string" && typeof m.id !== "number")) return undefined;
  const key = (m.params as { idempotencyKey?: unknown } | null | undefined)?.idempotencyKey;
  if (typeof key !== "string" || key === "" || key.length > MAX_KEY_LENGTH) return undefined;
  return [m.id, key];
};

export function createIdempotencyKeys(): IdempotencyKeys {
  const untaken = new Map<RequestId, string>();
  const bySession = new Map<string, Map<string, Promise<v2.PromptResponse>>>();
  return {
    tap(stream) {
      const readable = stream.readable.pipeThrough(
        new TransformStream<unknown, unknown>({
          transform(message, controller) {
            const found = keyOf(message);
            if (found) {
              untaken.set(found[0], found[1]);
              if (untaken.size > MAX_UNTAKEN) untaken.delete(untaken.keys().next().value!);
            }
            controller.enqueue(message);
          },
        }),
      );
      return { ...stream, readable };
    },
    take(requestId) {
      if (typeof requestId !== "string" && typeof requestId !== "number") return undefined;
      const key = untaken.get(requestId);
      untaken.delete(requestId);
      return key;
    },
    once(sessionId, key, insert) {
      if (key === undefined) return insert();
      let keys = bySession.get(sessionId);
      if (!keys) bySession.set(sessionId, (keys = new Map()));
      const known = keys.get(key);
      if (known) return known;
      const answer = insert();
      keys.set(key, answer);
      if (keys.size > KEYS_PER_SESSION) keys.delete(keys.keys().next().value!);
      const remembered = keys;
      answer.catch(() => {
        if (remembered.get(key) === answer) remembered.delete(key);
      });
      return answer;
    },
    forget(sessionId) {
      bySession.delete(sessionId);
    },
  };
}

/** The app, its connections read through `keys.tap` (an in-process client connection has no stream). */
export function withIdempotencyKeys(app: v2.AgentApp, keys: IdempotencyKeys): v2.AgentApp {
  const connect = app.connect.bind(app) as (target: unknown, ...rest: unknown[]) => v2.AgentConnection;
  const tapped = (target: unknown, ...rest: unknown[]) =>
    connect(
      typeof target === "object" && target !== null && "readable" in target ? keys.tap(target as never) : target,
      ...rest,
    );
  app.connect = tapped as never;
  return app;
}
