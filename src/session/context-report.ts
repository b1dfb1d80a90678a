import type { SessionMode } from "../gate/decide/modes.js";
import type { ExtensionHost } from "../extensions/index.js";
import type { Message, ModelClient } from "../model/types.js";
import { assembleTurn, renderContextReport, type ClientSystemPrompt } from "../turn/index.js";
import type { SessionServices } from "./services.js";
import type { Workspace } from "./workspace/workspace.js";

export type ContextReportInput = {
  id: string;
  mode: SessionMode;
  systemPrompt: ClientSystemPrompt | undefined;
  history: Message[];
  /** The context size the model last reported, if any. */
  lastUsed: number | undefined;
  services: SessionServices;
  extensions: ExtensionHost;
  workspace: Promise<Workspace>;
  model: Promise<ModelClient>;
};

/** Markdown for /context: what fills the context window, by part. */
export async function sessionContextReport(input: ContextReportInput): Promise<string> {
  const [workspace, model, { config }, extensions] = await Promise.all([
    input.workspace,
    input.model,
    input.services.config(),
    input.extensions.start(),
  ]);
  const session = {
    id: input.id,
    cwd: workspace.cwd,
    roots: workspace.roots,
    mode: input.mode,
    ...(input.systemPrompt ? { systemPrompt: input.systemPrompt } : {}),
  };
  const turn = assembleTurn({
    session,
    workspace,
    model,
    config,
    now: input.services.now(),
    env: input.services.env,
    extensions,
    interpreterSandboxes: input.extensions.sandboxes,
  });
  return renderContextReport({
    turn,
    history: input.history,
    contextWindow: model.contextWindow,
    ...(input.lastUsed !== undefined ? { lastReported: input.lastUsed } : {}),
  });
}
