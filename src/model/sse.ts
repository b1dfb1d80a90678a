// Incremental Server-Sent Events parser (WHATWG "event stream interpretation"). Chunks may split
// anywhere, including inside a UTF-8 sequence or between the CR and LF of a CRLF.

export type SseEvent = {
  /** The `event:` field, or "message" when the event had none. */
  event: string;
  /** `data:` lines joined with "\n". */
  data: string;
  /** The last `id:` seen so far, if any. */
  id?: string;
};

/** Parses `body` lazily; stopping the iteration early cancels the body. */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  for await (const batch of parseSseBatches(body)) yield* batch;
}

/**
 * Like parseSse, but yields the events of each network read together: a fast stream carries
 * thousands of small events, and one async step per read instead of per event is much cheaper.
 */
export async function* parseSseBatches(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent[]> {
  const reader = body.getReader();
  const parser = createSseLineParser();
  const decoder = new TextDecoder();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const events = parser.push(decoder.decode(value, { stream: true }));
      if (events.length > 0) yield events;
    }
    finished = true;
    // Per spec an event not terminated by a blank line at end of stream is discarded.
    const rest = parser.push(decoder.decode());
    if (rest.length > 0) yield rest;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

export type SseLineParser = {
  /** Feeds decoded text; returns the events completed by it. */
  push(text: string): SseEvent[];
};

export function createSseLineParser(): SseLineParser {
  // The unterminated tail of the current line, kept as pieces so a huge line costs O(n).
  let partial: string[] = [];
  let skipLeadingLf = false;
  let eventName = "";
  let data: string[] = [];
  let lastId: string | undefined;

  const dispatch = (out: SseEvent[]) => {
    if (data.length > 0) {
      const event: SseEvent = { event: eventName || "message", data: data.join("\n") };
      if (lastId !== undefined) event.id = lastId;
      out.push(event);
    }
    eventName = "";
    data = [];
  };

  const processLine = (line: string, out: SseEvent[]) => {
    if (line === "") return dispatch(out);
    if (line.charCodeAt(0) === 58 /* ":" */) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") eventName = value;
    else if (field === "id" && !value.includes("\0")) lastId = value;
    // "retry" and unknown fields are ignored: reconnection is not ours to do.
  };

  return {
    push(text) {
      const out: SseEvent[] = [];
      let start = 0;
      if (skipLeadingLf && text.length > 0) {
        if (text.charCodeAt(0) === 10) start = 1;
        skipLeadingLf = false;
      }
      // indexOf scans natively; SSE streams are mostly long lines, so this beats a char loop.
      let lf = text.indexOf("\n", start);
      let cr = text.indexOf("\r", start);
      for (;;) {
        if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
        if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
        const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        if (end === -1) break;
        partial.push(text.slice(start, end));
        const line = partial.length === 1 ? partial[0]! : partial.join("");
        partial = [];
        processLine(line, out);
        start = end + 1;
        if (end === cr) {
          if (end + 1 === text.length) skipLeadingLf = true;
          else if (end + 1 === lf) start = end + 2;
        }
      }
      if (start < text.length) partial.push(text.slice(start));
      return out;
    },
  };
}
