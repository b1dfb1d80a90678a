import type { Message, ModelClient } from "../../model/types.js";
import { errorMessage } from "../../util/errors.js";
import { CHARS_PER_TOKEN } from "./messages.js";
import { clip, formatMessage } from "./markdown.js";

// Asks the model for a summary of the older messages. The summarizer reads a markdown transcript
// in one user message, not the raw messages: no tool definitions are needed (providers reject
// tool_use blocks without them) and images become placeholders.
//
// Too large for one request: the transcript is packed into chunks that fit the input budget and
// summarized in order, each request also carrying the summary so far (a rolling summary). Each
// part is clipped first, so one huge tool result cannot crowd out the rest.

export const SUMMARY_SYSTEM_PROMPT = [
  "You summarize a conversation between a user and an AI coding agent.",
  "The agent continues the work from your summary plus the few most recent messages, which it keeps verbatim,",
  "so write everything it needs to carry on without asking the user to repeat themselves.",
].join(" ");

const INSTRUCTIONS = `Summarize the conversation below. Cover:
1. The user's requests and goals, and every constraint or preference they stated.
2. Key decisions and conclusions, with their reasons.
3. Files read, created or changed (absolute paths) and what changed in them.
4. Commands run and their important results; errors and how they were resolved.
5. The current state of the work and what remains to be done next.
Be concise but keep the specifics the work depends on (names, paths, numbers, error messages). Write only the summary, with no preamble.`;

export type SummarizeRequest = {
  model: ModelClient;
  /** The messages to summarize, oldest first. */
  messages: readonly Message[];
  signal: AbortSignal;
  /** Extra guidance from the user (`/compact focus on the API changes`). */
  instructions?: string;
  /** Input tokens one summarizer request may use. */
  inputBudgetTokens: number;
  /** Characters kept of each text, tool input or tool result in the transcript. */
  partChars: number;
};

export type SummarizeOutcome =
  { kind: "ok"; summary: string; requests: number } | { kind: "failed"; error: string } | { kind: "cancelled" };

export async function summarizeMessages(request: SummarizeRequest): Promise<SummarizeOutcome> {
  const budgetChars = Math.max(1000, request.inputBudgetTokens * CHARS_PER_TOKEN);
  // A quarter of each request stays free for the instructions and the summary so far.
  const chunks = packChunks(
    request.messages.map((m) => formatMessage(m, { maxPartChars: request.partChars })),
    Math.floor(budgetChars * 0.75),
  );
  let summary: string | undefined;
  for (const [index, chunk] of chunks.entries()) {
    const prompt = buildPrompt(chunk, summary, request.instructions, index, chunks.length);
    const answer = await ask(request.model, prompt, request.signal);
    if (answer.kind !== "ok") return answer;
    summary = answer.summary;
  }
  return summary === undefined
    ? { kind: "failed", error: "there was nothing to summarize" }
    : { kind: "ok", summary, requests: chunks.length };
}

function packChunks(pieces: readonly string[], chunkChars: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const raw of pieces) {
    const piece = clip(raw, chunkChars - 200);
    if (current.length > 0 && size + piece.length + 2 > chunkChars) {
      chunks.push(current.join("\n\n"));
      current = [];
      size = 0;
    }
    current.push(piece);
    size += piece.length + 2;
  }
  if (current.length > 0) chunks.push(current.join("\n\n"));
  return chunks;
}

function buildPrompt(
  transcript: string,
  previous: string | undefined,
  instructions: string | undefined,
  index: number,
  total: number,
): string {
  const sections = [INSTRUCTIONS];
  if (previous !== undefined) {
    sections.push(
      `The conversation is long, so it is summarized in ${total} parts; this is part ${index + 1}. ` +
        `Here is the summary of the parts before it; fold it into your summary so nothing it records is lost.\n\n<previous_summary>\n${previous}\n</previous_summary>`,
    );
  }
  if (instructions?.trim())
    sections.push(`Additional instructions from the user:\n<instructions>\n${instructions.trim()}\n</instructions>`);
  sections.push(`<conversation>\n${transcript}\n</conversation>`);
  return sections.join("\n\n");
}

async function ask(model: ModelClient, prompt: string, signal: AbortSignal): Promise<SummarizeOutcome> {
  let streamed = "";
  try {
    const events = model.stream({
      system: SUMMARY_SYSTEM_PROMPT,
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      tools: [],
      signal,
    });
    for await (const event of events) {
      if (event.type === "text_delta") streamed += event.text;
      else if (event.type === "error")
        return event.aborted || signal.aborted ? { kind: "cancelled" } : { kind: "failed", error: event.message };
      else if (event.type === "done") {
        const text = event.message.content.map((p) => (p.type === "text" ? p.text : "")).join("") || streamed;
        return text.trim() === ""
          ? { kind: "failed", error: "the model returned an empty summary" }
          : { kind: "ok", summary: text.trim(), requests: 1 };
      }
    }
  } catch (error) {
    return signal.aborted ? { kind: "cancelled" } : { kind: "failed", error: errorMessage(error) };
  }
  return signal.aborted ? { kind: "cancelled" } : { kind: "failed", error: "the model stream ended without a result" };
}
