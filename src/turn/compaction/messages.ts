import type { Message, ToolCallPart, UserMessage } from "../../model/types.js";

// Pure helpers over the conversation: how big it is, where it may be cut, and the summary message
// that replaces the older part (reference/system-inventory.md §12).

/** Rough characters per token, as the reference estimator uses. */
export const CHARS_PER_TOKEN = 4;
/** Flat cost of one image: about what a ~1 megapixel screenshot costs with Anthropic. */
export const IMAGE_TOKENS = 1600;
/** Trigger when the model's context window is unknown. */
export const DEFAULT_TRIGGER_TOKENS = 170_000;

const SUMMARY_PREFIX = "You are in the middle of a conversation that has been summarized.";

/** Approximate tokens of a message list: text, thinking and tool inputs (as JSON) at 4 chars a token, images at a flat cost. */
export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  let images = 0;
  for (const message of messages) {
    if (message.role === "tool") chars += message.toolName.length;
    for (const part of message.content) {
      switch (part.type) {
        case "text":
        case "thinking":
          chars += part.text.length;
          break;
        case "image":
          images++;
          break;
        case "tool_call":
          chars += part.name.length + jsonLength(part.input);
          break;
      }
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

/** Token count at which the conversation is compacted: `fraction` of the window, or 170,000 when the window is unknown. */
export function contextTrigger(contextWindow: number | undefined, fraction = 0.85): number {
  if (!contextWindow || !Number.isFinite(contextWindow) || contextWindow <= 0) return DEFAULT_TRIGGER_TOKENS;
  return Math.floor(contextWindow * fraction);
}

/**
 * Index splitting the conversation into `[0, cut)` (summarized) and `[cut, end)` (kept verbatim),
 * keeping at least `keepMessages` recent messages. A tool call and its results always stay on the
 * same side: the cut moves earlier until the kept part starts at a user message or at the assistant
 * message whose results follow it. Undefined when there is nothing worth summarizing (too few
 * messages, or only an earlier summary before the cut).
 */
export function selectCutoff(messages: readonly Message[], keepMessages = 6): number | undefined {
  let cut = messages.length - Math.max(0, Math.floor(keepMessages));
  if (cut <= 0) return undefined;
  while (cut > 0 && messages[cut]?.role === "tool") cut--;
  const summarizable = messages.slice(0, cut).filter((m) => !isSummaryMessage(m));
  return summarizable.length > 0 ? cut : undefined;
}

/** The user message that stands in for the summarized part (reference wording). */
export function summaryMessage(summary: string, historyPath: string): UserMessage {
  const text =
    `${SUMMARY_PREFIX}\n\n` +
    `The full conversation history has been saved to ${historyPath} should you need to refer back to it for details.\n\n` +
    `A condensed summary follows:\n\n<summary>\n${summary}\n</summary>`;
  return { role: "user", content: [{ type: "text", text }] };
}

/** True for a message made by `summaryMessage` (also after a session was saved and reloaded). */
export function isSummaryMessage(message: Message): boolean {
  const first = message.content[0];
  return message.role === "user" && first?.type === "text" && first.text.startsWith(SUMMARY_PREFIX);
}

/** The summary text inside a summary message. */
export function summaryText(message: Message): string {
  const first = message.content[0];
  const text = first?.type === "text" ? first.text : "";
  const match = /<summary>\n([\s\S]*)\n<\/summary>$/.exec(text);
  return match ? match[1]! : text;
}

export type ArgTruncation = {
  /** String arguments longer than this are cut. Default 2000. */
  maxLength?: number;
  /** Tools whose arguments are cut. Default write_file and edit_file (their content is on disk anyway). */
  tools?: readonly string[];
  /** Characters of the argument kept. Default 20. */
  keepChars?: number;
  /** Appended to the kept start. Default "...(argument truncated)". */
  marker?: string;
};

/**
 * Cuts long string arguments of file-writing tool calls (first 20 chars + marker). Applied to the
 * summarized part only: the model wrote those files, so the summary and the history file need not
 * repeat them. Messages without such arguments are returned as the same objects.
 */
export function truncateToolCallArgs(messages: readonly Message[], options: ArgTruncation = {}): Message[] {
  const maxLength = options.maxLength ?? 2000;
  const tools = new Set(options.tools ?? ["write_file", "edit_file"]);
  const keep = options.keepChars ?? 20;
  const marker = options.marker ?? "...(argument truncated)";
  const cutCall = (call: ToolCallPart): ToolCallPart => {
    if (!tools.has(call.name) || !isRecord(call.input)) return call;
    const entries = Object.entries(call.input);
    if (!entries.some(([, v]) => typeof v === "string" && v.length > maxLength)) return call;
    const input = Object.fromEntries(
      entries.map(([k, v]) => [k, typeof v === "string" && v.length > maxLength ? v.slice(0, keep) + marker : v]),
    );
    return { ...call, input };
  };
  return messages.map((message) => {
    if (message.role !== "assistant") return message;
    const content = message.content.map((part) => (part.type === "tool_call" ? cutCall(part) : part));
    return content.every((part, i) => part === message.content[i]) ? message : { ...message, content };
  });
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value ?? null)?.length ?? 0;
  } catch {
    return 0;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
