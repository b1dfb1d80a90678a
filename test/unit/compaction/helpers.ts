import { createCompositeBackend } from "../../../src/backends/routes/composite-backend.js";
import { createStateBackend, type StateBackend } from "../../../src/backends/state/state-backend.js";
import { createAnthropicClient } from "../../../src/model/providers/anthropic.js";
import type {
  AssistantMessage,
  Message,
  ModelClient,
  ToolResultMessage,
  UserMessage,
} from "../../../src/model/types.js";
import type { AgentEvent } from "../../../src/agent/events.js";
import type { FakeModelServer } from "../../support/fake-model/index.js";

/** The real Anthropic client against the fake server, with a small window so small conversations trigger compaction. */
export function fakeAnthropic(server: FakeModelServer, contextWindow: number): ModelClient {
  return createAnthropicClient({
    model: "claude-sonnet-4-5",
    apiKey: "test-key",
    baseUrl: server.anthropicBaseUrl,
    contextWindow,
    retry: { maxRetries: 0 },
  });
}

/** The session layout: the user's files by default, agent storage routed to state backends. */
export function sessionBackends() {
  const files = createStateBackend();
  const results: StateBackend = createStateBackend();
  const history: StateBackend = createStateBackend();
  const backend = createCompositeBackend(files, { "/large_tool_results/": results, "/conversation_history/": history });
  return { backend, files, results, history };
}

export function user(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }] };
}

export function assistant(
  text: string,
  ...calls: Array<{ id: string; name: string; input?: unknown }>
): AssistantMessage {
  return {
    role: "assistant",
    content: [
      ...(text ? [{ type: "text" as const, text }] : []),
      ...calls.map((c) => ({ type: "tool_call" as const, id: c.id, name: c.name, input: c.input ?? {} })),
    ],
  };
}

export function toolResult(toolCallId: string, toolName: string, text: string, isError = false): ToolResultMessage {
  return { role: "tool", toolCallId, toolName, content: [{ type: "text", text }], isError };
}

/** Every tool result follows the assistant message that made its call, and every call has its result. */
export function pairingProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (message.role === "assistant") {
      if (open.size > 0) problems.push(`calls ${[...open].join(",")} have no result before message ${i}`);
      open.clear();
      for (const part of message.content) if (part.type === "tool_call") open.add(part.id);
    } else if (message.role === "tool") {
      if (!open.delete(message.toolCallId)) problems.push(`orphaned result ${message.toolCallId} at ${i}`);
    } else if (open.size > 0) {
      problems.push(`calls ${[...open].join(",")} have no result before message ${i}`);
      open.clear();
    }
  }
  if (open.size > 0) problems.push(`calls ${[...open].join(",")} have no result`);
  return problems;
}

export function collectEvents() {
  const events: AgentEvent[] = [];
  return { events, emit: (event: AgentEvent) => void events.push(event) };
}

export async function readText(
  backend: { readRaw(path: string): Promise<{ data?: { content: string | Uint8Array }; error?: string }> },
  path: string,
): Promise<string | undefined> {
  const raw = await backend.readRaw(path);
  if (!raw.data) return undefined;
  return typeof raw.data.content === "string" ? raw.data.content : Buffer.from(raw.data.content).toString("utf8");
}

/** Text of about `chars` characters that names itself, so tests can tell which message reached the model. */
export function filler(tag: string, chars: number): string {
  const unit = `${tag} `;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}
