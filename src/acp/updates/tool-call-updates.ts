import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { SessionEvent } from "../../session/index.js";
import type { ToolDisplay } from "../../tools/types.js";

// Tool calls as ACP updates (translate.ts hands them here). The state is which tool calls stream
// into a display-only terminal (Zed's `_meta.terminal_*`, for clients that ask for live output), so
// their final update can point at it and report the exit.

type ToolCallEvent = Extract<SessionEvent, { type: "tool_call" | "tool_output" | "tool_call_update" }>;

export function toToolCallContent(display: readonly ToolDisplay[]): acp.ToolCallContent[] {
  return display.map((item): acp.ToolCallContent => {
    switch (item.type) {
      case "text":
        return { type: "content", content: { type: "text", text: item.text } };
      case "image":
        return { type: "content", content: { type: "image", data: item.data, mimeType: item.mimeType } };
      case "diff":
        // A new file's diff leaves oldText out rather than sending null (both mean "no file" in the
        // schema): CodeCompanion reads a JSON null as vim.NIL, which is truthy, and its verbose label
        // of the call broke on it.
        return {
          type: "diff",
          path: item.path,
          ...(item.oldText !== null && { oldText: item.oldText }),
          newText: item.newText,
        };
      case "terminal":
        return { type: "terminal", terminalId: item.terminalId };
    }
  });
}

// A subagent's (or eval's) own tool calls name the call they belong to twice: under our key, and as
// `claudeCode.parentToolUseId`, the convention claude-agent-acp set and that clients which nest
// subagent activity (Tidewave and others) already read.
function parentMeta(metaKey: string, parentToolCallId: string | undefined): { _meta?: Record<string, unknown> } {
  return parentToolCallId
    ? { _meta: { [metaKey]: { parentToolCallId }, claudeCode: { parentToolUseId: parentToolCallId } } }
    : {};
}

const OUTPUT_TEXT_LIMIT = 8_000;

/**
 * A finished call's structured `rawOutput` with the text it showed as `output`: clients that print
 * only `rawOutput` (acpx reads `stdout`/`output`/`text`... first, else prints the JSON) showed
 * `{ "exitCode": 0, ... }` for every command and `{ "subagentType": ... }` for every subagent.
 */
function withOutputText(event: Extract<ToolCallEvent, { type: "tool_call_update" }>, finished: boolean): unknown {
  const raw = event.rawOutput;
  if (!finished || typeof raw !== "object" || raw === null || Array.isArray(raw) || "output" in raw) return raw;
  const text = (event.transcript ?? event.content ?? [])
    .flatMap((item) => (item.type === "text" ? [item.text] : []))
    .join("\n");
  if (!text) return raw;
  const output =
    text.length > OUTPUT_TEXT_LIMIT
      ? `${text.slice(0, OUTPUT_TEXT_LIMIT)}\n… (${text.length - OUTPUT_TEXT_LIMIT} more characters)`
      : text;
  return { ...raw, output };
}

function mergeMeta(...parts: Array<Record<string, unknown> | undefined>): { _meta?: Record<string, unknown> } {
  const merged = Object.assign({}, ...parts.filter(Boolean)) as Record<string, unknown>;
  return Object.keys(merged).length > 0 ? { _meta: merged } : {};
}

export function createToolCallUpdates(terminalOutput: boolean, metaKey: string) {
  const liveTerminals = new Set<string>();
  // Calls announced and not yet ended (nor handed to the background), for endOpenCalls.
  const open = new Set<string>();
  const toolCallUpdates = (event: ToolCallEvent): acp.SessionUpdate[] => {
    if (event.type === "tool_call") open.add(event.toolCallId);
    if (event.type === "tool_call_update") {
      const ended = event.status === "completed" || event.status === "failed";
      if (ended || (event.liveTerminal && !event.status)) open.delete(event.toolCallId);
    }
    return updatesFor(event);
  };
  /**
   * A cancelled turn's calls that never ended, ended `failed`: the agent loop goes quiet at the
   * cancel, and a dialog answered after the editor's session/cancel (Zed's order) left its call
   * pending forever in agent-shell.
   */
  const endOpenCalls = (): acp.SessionUpdate[] => {
    const ended = [...open].map((toolCallId): acp.SessionUpdate => ({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "failed",
      // A live terminal keeps its output in the card.
      ...(liveTerminals.has(toolCallId)
        ? {}
        : { content: [{ type: "content", content: { type: "text", text: "Cancelled by the user." } }] }),
    }));
    open.clear();
    liveTerminals.clear();
    return ended;
  };
  return Object.assign(toolCallUpdates, { endOpenCalls });

  function updatesFor(event: ToolCallEvent): acp.SessionUpdate[] {
    switch (event.type) {
      case "tool_call": {
        const live = event.liveTerminal && terminalOutput ? event.liveTerminal : undefined;
        if (live) liveTerminals.add(event.toolCallId);
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: event.toolCallId,
            title: event.title,
            kind: event.kind,
            status: event.status,
            locations: event.locations,
            rawInput: event.rawInput,
            ...(live ? { content: [{ type: "terminal", terminalId: live.terminalId }] } : {}),
            ...mergeMeta(
              live ? { terminal_info: { terminal_id: live.terminalId, cwd: live.cwd } } : undefined,
              event.parentToolCallId
                ? {
                    [metaKey]: { parentToolCallId: event.parentToolCallId, toolName: event.name },
                    claudeCode: { parentToolUseId: event.parentToolCallId, toolName: event.name },
                  }
                : { [metaKey]: { toolName: event.name } },
            ),
          },
        ];
      }
      case "tool_output":
        if (!liveTerminals.has(event.toolCallId)) return [];
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.toolCallId,
            ...mergeMeta(
              { terminal_output: { terminal_id: event.terminalId, data: event.data } },
              parentMeta(metaKey, event.parentToolCallId)._meta,
            ),
          },
        ];
      case "tool_call_update": {
        const finished = event.status === "completed" || event.status === "failed";
        const starting =
          event.liveTerminal && terminalOutput && !liveTerminals.has(event.toolCallId) ? event.liveTerminal : undefined;
        if (starting) liveTerminals.add(event.toolCallId);
        const live = liveTerminals.has(event.toolCallId);
        if (event.fallbackOnly && live) return [];
        const update: acp.SessionUpdate = {
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          ...(event.status ? { status: event.status } : {}),
          ...(event.title !== undefined ? { title: event.title } : {}),
          ...(event.locations ? { locations: event.locations } : {}),
          ...(event.rawInput !== undefined ? { rawInput: event.rawInput } : {}),
          ...(event.rawOutput !== undefined ? { rawOutput: withOutputText(event, finished) } : {}),
          ...(event.content && !(live && (finished || event.liveTerminal))
            ? { content: toToolCallContent(event.content) }
            : {}),
          ...parentMeta(metaKey, event.parentToolCallId),
        };
        if (starting) {
          update.content = [{ type: "terminal", terminalId: starting.terminalId }];
          update._meta = { ...update._meta, terminal_info: { terminal_id: starting.terminalId, cwd: starting.cwd } };
        }
        if (live && finished) {
          liveTerminals.delete(event.toolCallId);
          const raw = (event.rawOutput ?? {}) as { exitCode?: number | null; signal?: string | null };
          update.content = [{ type: "terminal", terminalId: event.toolCallId }];
          update._meta = {
            ...update._meta,
            terminal_exit: {
              terminal_id: event.toolCallId,
              exit_code: raw.exitCode ?? null,
              signal: raw.signal ?? null,
            },
          };
        }
        return [update];
      }
    }
  }
}
