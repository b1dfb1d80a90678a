import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { ApprovalOutcome } from "../gate/door/approver.js";
import type { SessionMode } from "../gate/decide/modes.js";
import type { Door } from "../gate/door/door.js";
import type { ToolDisplay, ToolKind } from "../tools/types.js";

// The one way a child's own question reaches the human: its session/request_permission becomes our
// permission dialog, asked at the session's door (gate/door: one dialog at a time with the parent's
// own, drawn like our tool calls' dialogs, under the child session for editors that show them, else
// under the parent's task call), titled with the child's name. The
// answer goes back as the child's option of the same kind. In plan mode what would change something
// is refused without asking: the parent's mode bounds the child. So is a change to a path our file
// rules deny: claude-agent-acp and codex-acp edit with their own tools (they never send fs/*), so
// their question is the one moment our rules can still say no; the child reads the refusal.

export type PeerDoor = (params: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>;

/** What changes the machine: refused in plan mode without a dialog. */
const CHANGING_KINDS = new Set<string>(["edit", "delete", "move", "execute"]);
/** What writes files the call names (a command's files cannot be told from its line: not path-checked). */
const WRITING_KINDS = new Set<string>(["edit", "delete", "move"]);

export function createPeerDoor(options: {
  name: string;
  mode: SessionMode;
  door: Pick<Door, "permission">;
  /** The run's id in our editor (the child session) and the parent's task call. */
  runId: string;
  parentToolCallId: string;
  signal: AbortSignal;
  /** Why our file rules refuse writing one of `paths` (the child's), or undefined when they do not. */
  deniedWrite?: (paths: readonly string[]) => Promise<string | undefined>;
  /** A change refused by the rules (the child may end its turn on it: codex-acp's patch "No" aborts). */
  refused?: (reason: string) => void;
}): PeerDoor {
  const { name, runId } = options;
  return async (params) => {
    const call = params.toolCall;
    const kind = (call.kind ?? "other") as ToolKind;
    const pick = (wanted: ApprovalOutcome): acp.RequestPermissionResponse => {
      const option =
        params.options.find((o) => o.kind === wanted) ??
        params.options.find((o) => o.kind === (wanted.startsWith("allow") ? "allow_once" : "reject_once")) ??
        params.options.find((o) => o.kind.startsWith(wanted.startsWith("allow") ? "allow" : "reject"));
      return option
        ? { outcome: { outcome: "selected", optionId: option.optionId } }
        : { outcome: { outcome: "cancelled" } };
    };
    if (options.mode === "plan" && CHANGING_KINDS.has(kind)) return pick("reject_once");
    const denied =
      options.deniedWrite && WRITING_KINDS.has(kind) ? await options.deniedWrite(changedPaths(call)) : undefined;
    if (denied) {
      options.refused?.(denied);
      return pick("reject_once");
    }
    if (options.signal.aborted) return { outcome: { outcome: "cancelled" } };
    const always = params.options.find((o) => o.kind === "allow_always");
    const title = call.title ?? "a tool call";
    const answer = await options.door.permission({
      signal: options.signal,
      request: async () => ({
        toolCallId: `${runId}/${call.toolCallId}`,
        toolName: name,
        title: `${name}: ${title}`,
        kind,
        rawInput: call.rawInput ?? {},
        locations: (call.locations ?? []).map((l) =>
          typeof l.line === "number" ? { path: l.path, line: l.line } : { path: l.path },
        ),
        preview: preview(call.content),
        reason: WRITING_KINDS.has(kind)
          ? `${name} asks before it does this with its own tools; your file rules allow the paths it names`
          : `${name} asks before it does this with its own tools, outside deep-acp's file rules`,
        alwaysLabel: always ? always.name : null,
        parentToolCallId: options.parentToolCallId,
        subagentSessionId: runId,
      }),
    });
    if (answer === "cancelled") return { outcome: { outcome: "cancelled" } };
    // Only what we pass can settle it first (no remembered answer, no hook): the user's own answer.
    if (typeof answer === "object")
      return pick(answer.settled === "remembered" || answer.decision === "allow" ? "allow_once" : "reject_once");
    return pick(answer === "unattended" ? "reject_once" : answer);
  };
}

/**
 * Every path the child's question names: its locations, its diffs' paths and the path fields of its
 * input (claude-agent-acp's Write/Edit `file_path`, `notebook_path`; `path`), so a question that
 * shows one file and writes another is not let through by what it shows.
 */
export function changedPaths(call: acp.ToolCallUpdate): string[] {
  const paths = new Set<string>();
  for (const l of call.locations ?? []) paths.add(l.path);
  for (const item of call.content ?? []) if (item.type === "diff") paths.add(item.path);
  const input = call.rawInput;
  if (input && typeof input === "object")
    for (const key of ["file_path", "notebook_path", "path"])
      if (typeof (input as Record<string, unknown>)[key] === "string")
        paths.add((input as Record<string, string>)[key]!);
  return [...paths];
}

function preview(content: readonly acp.ToolCallContent[] | null | undefined): ToolDisplay[] | undefined {
  const shown: ToolDisplay[] = [];
  for (const item of content ?? []) {
    if (item.type === "diff")
      shown.push({ type: "diff", path: item.path, oldText: item.oldText ?? null, newText: item.newText });
    else if (item.type === "content" && item.content.type === "text")
      shown.push({ type: "text", text: item.content.text });
  }
  return shown.length ? shown : undefined;
}
