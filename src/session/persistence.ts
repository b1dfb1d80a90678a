import type { TurnResult } from "../agent/events.js";
import type { SessionMode } from "../gate/decide/modes.js";
import type { ThoughtLevel } from "../model/catalog/thought-level.js";
import type { Message } from "../model/types.js";
import type { Journal, SessionRecord } from "../transcript/index.js";
import type { ClientSystemPrompt } from "../turn/index.js";
import type { WorkspaceSlot } from "./workspace/workspace-slot.js";

/** The settings of a session its transcript records. */
export type PersistedSettings = {
  cwd: string;
  additionalDirectories: string[];
  mode: SessionMode;
  modelSpec: string;
  thoughtLevel: ThoughtLevel | undefined;
  title: string | undefined;
  systemPrompt: ClientSystemPrompt | undefined;
};

/**
 * The session-layer fields of the store's meta (`extra`), read back by the factory. An update
 * (merged into what is stored) sets a missing system prompt to null, which removes it.
 */
function metaExtra(settings: PersistedSettings, update: boolean) {
  const systemPrompt = settings.systemPrompt ?? (update ? null : undefined);
  return { mode: settings.mode, model: settings.modelSpec, ...(systemPrompt !== undefined && { systemPrompt }) };
}

/** New sessions reach the disk at their first prompt, so empty sessions never clutter the list. */
export async function persistSession(journal: Journal, settings: PersistedSettings): Promise<void> {
  const first: SessionRecord[] = [
    { t: "mode", mode: settings.mode },
    { t: "model", model: settings.modelSpec },
  ];
  if (settings.thoughtLevel) first.push({ t: "thought_level", level: settings.thoughtLevel });
  const meta = {
    cwd: settings.cwd,
    additionalDirectories: settings.additionalDirectories,
    ...(settings.title ? { title: settings.title } : {}),
    extra: metaExtra(settings, false),
  };
  await journal.create(meta, first);
}

/** Saves the end of a turn, with the files of the session-scoped routes. */
export async function saveTurnEnd(
  journal: Journal,
  workspace: WorkspaceSlot,
  result: TurnResult,
  settings: PersistedSettings,
): Promise<void> {
  const states = [...((await workspace.built())?.stateBackends ?? [])];
  const snapshots =
    states.length > 0 ? Object.fromEntries(states.map(([prefix, state]) => [prefix, state.snapshot()])) : undefined;
  await journal.endTurn(
    result,
    {
      ...(settings.title ? { title: settings.title } : {}),
      extra: metaExtra(settings, true),
    },
    snapshots,
  );
}

/** Records a compacted conversation (its first message is the summary); returns the new history. */
export function recordCompaction(journal: Journal, messages: Message[]): Message[] {
  const history = [...messages];
  const first = messages[0];
  const summary =
    first && first.role === "user" ? first.content.map((c) => (c.type === "text" ? c.text : "")).join("") : "";
  journal.record({ t: "compacted", history, summary });
  return history;
}
