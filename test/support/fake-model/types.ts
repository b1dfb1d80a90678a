// Scripted answers of the fake model server and what it records of each request.

export type FakePart =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; signature?: string }
  /** Anthropic only (`redacted_thinking`); the OpenAI stream skips it. */
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_call"; name: string; input: unknown; id?: string };

export type FakeTurn = {
  parts: FakePart[];
  /**
   * "end_turn" | "tool_use" | "max_tokens" | "refusal" are translated to each API's wording; any other
   * string is sent verbatim (e.g. "stop_sequence", "pause_turn", "function_call").
   * Default: "tool_use" when the turn has tool calls, else "end_turn".
   */
  stopReason?: string;
  /** Default: input ≈ request bytes / 4, output ≈ answer characters / 4. */
  usage?: { input: number; output: number; cacheRead?: number };
  /** Pause between stream events. Default 0 (events are written in large batches). */
  chunkDelayMs?: number;
  /** Words per text/thinking delta. Default 3. */
  wordsPerChunk?: number;
  /** Extra headers on the (successful) stream response, e.g. rate-limit headers (see limits.ts). */
  headers?: Record<string, string>;
  /** Answer with this HTTP status instead of a stream. `body` defaults to the API's error JSON. */
  httpError?: { status: number; body?: unknown; headers?: Record<string, string> };
  /** Stream the parts, then keep the connection open (no stop events) until the client goes away. */
  hangAfterParts?: boolean;
  /** Send this exact text as the `text/event-stream` body instead of rendering `parts`. */
  raw?: string;
};

/** Wire format: Anthropic Messages, Chat Completions (also Azure), Gemini, the Responses API, Bedrock ConverseStream. */
export type FakeApi = "anthropic" | "openai" | "gemini" | "responses" | "bedrock";

export type LooseMessage = {
  role: "system" | "user" | "assistant" | "tool";
  /** Text blocks joined with "\n" (thinking excluded). */
  text: string;
  images: number;
  toolCalls?: Array<{ id: string; name: string; input: unknown }>;
  /** For role "tool". */
  toolCallId?: string;
  isError?: boolean;
};

export type RecordedRequest = {
  api: FakeApi;
  path: string;
  /** The query string without "?", "" when none (Gemini's alt=sse, Azure's api-version). */
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, untyped so tests can read any wire field. */
  body: any;
  /** System prompt text (Anthropic `system`, or OpenAI system messages), joined with "\n". */
  system: string;
  /** Text of the last user-authored message (tool results excluded), "" if none. */
  lastUserText: string;
  toolNames: string[];
  /** Messages of either API in one loose shape; system messages are not included. */
  messages: LooseMessage[];
};

export type FakeTurnHandler = (request: RecordedRequest) => FakeTurn | Promise<FakeTurn>;
