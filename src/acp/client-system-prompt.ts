import * as acp from "@agentclientprotocol/sdk/unstable";
import type { ClientSystemPrompt } from "../turn/index.js";
import { wireError } from "./errors.js";

// The editor's instructions for a session: the unstable `systemPrompt` field of session/new, load,
// resume and fork (sessionCapabilities.systemPrompt, modes `append` and `override`), and the
// `_meta.systemPrompt` claude-agent-acp reads (a string replaces, `{append}` adds; acpx sends it).
// The standard field wins when both are there. What cannot be applied is refused with -32602
// before any session is created, loaded or forked, as the schema requires.

type WithSystemPrompt = { systemPrompt?: acp.SystemPrompt | null; _meta?: Record<string, unknown> | null };

const MAX_CHARS = 100_000;

/** The request's system prompt, undefined when it has none; throws -32602 for one that cannot be applied. */
export function clientSystemPrompt(params: WithSystemPrompt): ClientSystemPrompt | undefined {
  const standard = params.systemPrompt;
  if (standard != null) return fromStandard(standard);
  const legacy = params._meta?.systemPrompt;
  if (typeof legacy === "string") return checked("override", legacy);
  if (typeof legacy === "object" && legacy !== null && typeof (legacy as { append?: unknown }).append === "string")
    return checked("append", (legacy as { append: string }).append);
  return undefined;
}

function fromStandard(prompt: acp.SystemPrompt): ClientSystemPrompt {
  if (prompt.mode !== "append" && prompt.mode !== "override")
    throw wireError.invalidParams(
      { mode: prompt.mode },
      `systemPrompt mode "${String(prompt.mode)}" is not supported (append, override)`,
    );
  if (!Array.isArray(prompt.content) || prompt.content.length === 0)
    throw wireError.invalidParams({ field: "systemPrompt.content" }, "systemPrompt.content is empty");
  const texts: string[] = [];
  for (const block of prompt.content) {
    if (block.type !== "text")
      throw wireError.invalidParams(
        { type: block.type },
        `systemPrompt.content may hold only text blocks, not "${block.type}"`,
      );
    texts.push(block.text);
  }
  return checked(prompt.mode, texts.join("\n\n"));
}

function checked(mode: ClientSystemPrompt["mode"], text: string): ClientSystemPrompt {
  const trimmed = text.trim();
  if (trimmed === "") throw wireError.invalidParams({ field: "systemPrompt" }, "the system prompt is empty");
  if (trimmed.length > MAX_CHARS)
    throw wireError.invalidParams(
      { field: "systemPrompt", length: trimmed.length },
      `the system prompt is longer than ${MAX_CHARS} characters`,
    );
  return { mode, text: trimmed };
}
