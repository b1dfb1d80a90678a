// Incremental Server-Sent Events parser (WHATWG "event stream interpretation"). Chunks may split
// anywhere, including inside a UTF-8 sequence or between the CR and LF of a CRLF.

export type ByteReadResult = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };

/** The part of a web stream reader the parser uses; both transports (see http.ts) provide it. */
export type ByteReader = {
  read(): Promise<ByteReadResult>;
  cancel(): Promise<void>;
  releaseLock(): void;
};

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
  for await (const batch of parseSseBatches(body.getReader())) yield* batch;
}

/**
 * Like parseSse, but yields the events of each network read together: a fast stream carries
 * thousands of small events, and one async step per read instead of per event is much cheaper.
 * Takes the body's reader, not the body: in Node 20 every ReadableStream has a hidden class of its
 * own, so touching the stream here threw this loop's optimised code away at the start of every
 * answer. The reader is taken where code runs once per request (postForStream in http.ts).
 */
export async function* parseSseBatches(reader: ByteReader): AsyncGenerator<SseEvent[]> {
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
  // The event's data lines: the first one alone (the usual case, no array), the rest in `moreData`.
  let data: string | undefined;
  let moreData: string[] | undefined;
  let lastId: string | undefined;

  const dispatch = (out: SseEvent[]) => {
    if (data !== undefined) {
      const event: SseEvent = {
        event: eventName || "message",
        data: moreData === undefined ? data : `${data}\n${moreData.join("\n")}`,
      };
      if (lastId !== undefined) event.id = lastId;
      out.push(event);
    }
    eventName = "";
    data = undefined;
    moreData = undefined;
  };

  // Reads the line text[start, end) in place: a stream carries thousands of lines, and slicing each
  // line and then its field and value tripled the garbage per event.
  // `colon` is the first ":" at or after `start` in `text` (-1 for none), maybe past the line's end.
  const processLine = (text: string, start: number, end: number, colon: number, out: SseEvent[]) => {
    if (start === end) return dispatch(out);
    if (colon >= end) colon = -1;
    if (colon === start) return;
    const fieldEnd = colon === -1 ? end : colon;
    const field = fieldEnd - start;
    let from = colon === -1 ? end : colon + 1;
    if (from < end && text.charCodeAt(from) === 32 /* " " */) from++;
    if (field === 4 && text.startsWith("data", start)) {
      const value = text.slice(from, end);
      if (data === undefined) data = value;
      else (moreData ??= []).push(value);
    } else if (field === 5 && text.startsWith("event", start)) eventName = text.slice(from, end);
    else if (field === 2 && text.startsWith("id", start)) {
      const value = text.slice(from, end);
      if (!value.includes("\0")) lastId = value;
    }
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
      // Like lf and cr, searched again only once passed, so lines without one cost no rescans.
      let colon = text.indexOf(":", start);
      for (;;) {
        if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
        if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
        if (colon !== -1 && colon < start) colon = text.indexOf(":", start);
        const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        if (end === -1) break;
        if (partial.length === 0) processLine(text, start, end, colon, out);
        else {
          partial.push(text.slice(start, end));
          const line = partial.join("");
          partial = [];
          processLine(line, 0, line.length, line.indexOf(":"), out);
        }
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
