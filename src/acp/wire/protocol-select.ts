import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { Logger } from "../../util/logger.js";

// Which protocol a connection speaks. A plain v1 `initialize` (protocolVersion 1) goes straight to
// the v1 app, as it always did: a v1 editor loads nothing more and sees no change. Anything else (a
// v2 client, a newer or older version, a request before initialize) goes through the SDK's protocol
// router with the v1 app and the v2 agent behind it; only then are the v2 SDK and the router loaded
// (zod schemas costing about a third of the v1 SDK's own import again, which no v1 start pays).

type Message = { method?: unknown; id?: unknown; params?: unknown };

export type VersionedConnectOptions = {
  v1App: acp.AgentApp;
  /** Builds the v2 agent (loads the v2 SDK); called only for a connection that is not plain v1. */
  loadV2: () => Promise<{ connect(stream: acp.Stream, options?: { deferConnectHandlers?: boolean }): unknown }>;
  logger: Logger;
};

const isPlainV1Initialize = (message: Message) =>
  message.method === "initialize" &&
  message.id !== undefined &&
  typeof message.params === "object" &&
  message.params !== null &&
  (message.params as { protocolVersion?: unknown }).protocolVersion === 1;

/** A readable that yields `first`, then the rest of `reader`. */
function prepend(first: unknown, reader: ReadableStreamDefaultReader<unknown>): ReadableStream<unknown> {
  let head: unknown = first;
  return new ReadableStream({
    async pull(controller) {
      if (head !== undefined) {
        controller.enqueue(head);
        head = undefined;
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export function connectVersioned(stream: acp.Stream, options: VersionedConnectOptions): { closed: Promise<void> } {
  const closed = (async () => {
    const reader = (stream.readable as ReadableStream<unknown>).getReader();
    const first = await reader.read();
    if (first.done) return;
    const readable = prepend(first.value, reader) as acp.Stream["readable"];
    const routed = { readable, writable: stream.writable };
    if (isPlainV1Initialize(first.value as Message)) return options.v1App.connect(routed).closed;
    const [{ agentProtocolRouter }, v2] = await Promise.all([
      import("@agentclientprotocol/sdk/experimental/v2/unstable"),
      options.loadV2(),
    ]);
    const router = agentProtocolRouter()
      .withV1(options.v1App as never)
      .withV2(v2 as never);
    return router.connect(routed as never).closed;
  })();
  closed.catch((error) => options.logger.error("the connection failed", error));
  return { closed: closed.catch(() => undefined) };
}
