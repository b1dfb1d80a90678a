import type * as acp from "@agentclientprotocol/sdk/unstable";

// An in-process JSON-RPC connection to our v1 agent app: the v2 agent is its client. Messages are
// plain objects handed over in memory (no encoding); the v1 app checks what it is sent as it checks
// an editor's requests. Requests the v1 agent makes of its client (permission dialogs, forms) go to
// `onRequest`, its notifications to `onNotification`, and its `$/cancel_request` for one of them
// aborts the signal that request was given.

type Message = {
  jsonrpc: "2.0";
  id?: string | number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
};
type WireError = { code: number; message: string; data?: unknown };

export class BridgedError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type V1BridgeHandlers = {
  onNotification(method: string, params: unknown): void;
  onRequest(method: string, params: unknown, signal: AbortSignal): Promise<unknown>;
};

export function connectV1(app: acp.AgentApp, handlers: V1BridgeHandlers) {
  const toAgent = new TransformStream<Message, Message>();
  const fromAgent = new TransformStream<Message, Message>();
  const connection = app.connect({
    readable: toAgent.readable,
    writable: fromAgent.writable,
  } as unknown as acp.Stream);
  const writer = toAgent.writable.getWriter();
  const pending = new Map<string | number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  const incoming = new Map<string | number, AbortController>();
  let nextId = 1;
  let closed = false;

  const send = (message: Message) => {
    if (!closed) void writer.write(message).catch(() => undefined);
  };
  const answer = (id: string | number, outcome: { result: unknown } | { error: WireError }) =>
    send({ jsonrpc: "2.0", id, ...outcome });

  const dispatch = (message: Message) => {
    if (message.method === undefined) {
      const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
      if (!waiter) return;
      pending.delete(message.id!);
      if (message.error) {
        const error = message.error as WireError;
        waiter.reject(new BridgedError(error.code, error.message, error.data));
      } else waiter.resolve(message.result);
      return;
    }
    if (message.id === undefined) {
      if (message.method === "$/cancel_request") {
        const requestId = (message.params as { requestId?: string | number } | undefined)?.requestId;
        if (requestId !== undefined) incoming.get(requestId)?.abort();
        return;
      }
      handlers.onNotification(message.method, message.params);
      return;
    }
    const id = message.id;
    const abort = new AbortController();
    incoming.set(id, abort);
    handlers
      .onRequest(message.method, message.params, abort.signal)
      .then(
        (result) => answer(id, { result }),
        (error: unknown) => {
          const e = error as Partial<WireError>;
          answer(id, {
            error: {
              code: typeof e.code === "number" ? e.code : -32603,
              message: e.message ?? String(error),
              ...(e.data !== undefined ? { data: e.data } : {}),
            },
          });
        },
      )
      .finally(() => incoming.delete(id));
  };

  void (async () => {
    const reader = fromAgent.readable.getReader();
    for (;;) {
      const next = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (next.done) break;
      dispatch(next.value as Message);
    }
  })();

  return {
    request<T = unknown>(method: string, params: unknown): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        send({ jsonrpc: "2.0", id, method, params });
      });
    },
    notify(method: string, params: unknown): void {
      send({ jsonrpc: "2.0", method, params });
    },
    close(): void {
      if (closed) return;
      closed = true;
      for (const waiter of pending.values()) waiter.reject(new BridgedError(-32603, "the connection closed"));
      pending.clear();
      void writer.close().catch(() => undefined);
      connection.close?.();
    },
  };
}

export type V1Bridge = ReturnType<typeof connectV1>;
