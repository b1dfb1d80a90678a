import type { Message, UserContent } from "../../model/types.js";
import { isSummaryMessage, summaryText } from "./messages.js";

// Markdown rendering of conversation messages: appended to /conversation_history/<session>.md so
// the model can look details up after a compaction, and (with a smaller part cap) the text the
// summarizer reads.

export type TranscriptOptions = {
  /** Longest text, tool input or tool result kept per part; longer ones keep head and tail. Default 100,000. */
  maxPartChars?: number;
};

/** Readable markdown of `messages`, one `### Role` section per message. */
export function formatTranscript(messages: readonly Message[], options: TranscriptOptions = {}): string {
  return messages.map((m) => formatMessage(m, options)).join("\n\n");
}

export function formatMessage(message: Message, options: TranscriptOptions = {}): string {
  const max = options.maxPartChars ?? 100_000;
  switch (message.role) {
    case "user":
      if (isSummaryMessage(message))
        return `### Summary of the earlier conversation\n\n${clip(summaryText(message), max)}`;
      return `### User\n\n${userContent(message.content, max)}`;
    case "assistant": {
      const blocks: string[] = [];
      for (const part of message.content) {
        if (part.type === "text" && part.text.trim() !== "") blocks.push(clip(part.text, max));
        else if (part.type === "thinking" && part.text.trim() !== "")
          blocks.push(`_Thinking:_ ${clip(part.text, max)}`);
        else if (part.type === "tool_call")
          blocks.push(`Tool call \`${part.name}\` (id ${part.id}):\n${fence(clip(json(part.input), max), "json")}`);
      }
      return `### Assistant\n\n${blocks.length > 0 ? blocks.join("\n\n") : "(no text)"}`;
    }
    case "tool": {
      const label = message.isError ? "Tool error" : "Tool result";
      return `### ${label} \`${message.toolName}\` (id ${message.toolCallId})\n\n${fence(userContent(message.content, max, false))}`;
    }
  }
}

/** Keeps the head and tail of `text` within `max` characters, saying how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.max(0, Math.floor(max / 2));
  return `${text.slice(0, half)}\n... [${text.length - 2 * half} characters truncated] ...\n${text.slice(text.length - half)}`;
}

function userContent(content: readonly UserContent[], max: number, describeEmpty = true): string {
  const parts = content.map((part) => (part.type === "text" ? clip(part.text, max) : `[image: ${part.mimeType}]`));
  const text = parts.join("\n");
  return text === "" && describeEmpty ? "(empty)" : text;
}

/** A code fence longer than any backtick run inside, so tool output cannot end it early. */
function fence(text: string, info = ""): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const marks = "`".repeat(Math.max(3, longest + 1));
  return `${marks}${info}\n${text}\n${marks}`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value ?? null) ?? "null";
  } catch {
    return String(value);
  }
}
