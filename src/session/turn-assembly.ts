import { arch, platform } from "node:os";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import type { TurnOptions } from "../agent/loop.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import type { ModelClient } from "../model/types.js";
import type { SessionMode } from "../agent/modes.js";
import { builtinTools, toolsForMode } from "./tool-set.js";
import type { Workspace } from "./workspace.js";

/** The parts of a session a turn is assembled from. */
export type SessionView = { id: string; cwd: string; roots: readonly string[]; mode: SessionMode };

export type TurnAssemblyInput = {
  session: SessionView;
  workspace: Workspace;
  model: ModelClient;
  config: DeepAcpConfig;
  now: Date;
};

/** What a turn offers the model: its tools for the session's mode and the system prompt describing them. */
export function assembleTurn({ session, workspace, model, now }: TurnAssemblyInput): Pick<TurnOptions, "system" | "tools"> {
  const tools = toolsForMode(builtinTools({ supportsImages: model.supportsImages, canExecute: workspace.executor !== undefined }), session.mode);
  const system = buildSystemPrompt({
    cwd: session.cwd,
    roots: session.roots,
    platform: `${platform()} (${arch()})`,
    date: now.toISOString().slice(0, 10),
    tools,
    mode: session.mode,
  });
  return { system, tools };
}
