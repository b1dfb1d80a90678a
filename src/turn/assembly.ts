import { arch, platform } from "node:os";
import { offeredInMode } from "../gate/decide/offer.js";
import { buildSystemPrompt } from "./system-prompt.js";
import type { TurnContext } from "./context.js";
import { createTaskTool } from "./task-tool.js";
import {
  createEvalTool,
  interpreterPromptSection,
  limitsFromConfig,
  resolveInterpreterTools,
} from "../interpreter/index.js";
import { renderMcpPromptSection } from "../mcp/index.js";
import { memoryPromptSection } from "../memory/index.js";
import { skillsPromptSection } from "../skills/index.js";
import type { SubagentDefinition } from "../subagents/index.js";
import type { AnyTool } from "../tools/types.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { builtinTools, webFetchTool } from "../tools/registry.js";

/** What a turn is assembled from: these parts of the turn's context (context.ts). */
export type TurnAssemblyInput = Pick<TurnContext, "session" | "model" | "config" | "now"> &
  Partial<Pick<TurnContext, "extensions" | "env" | "interpreterSandboxes">> & {
    /** The session's files and, when it can run commands, its shell. */
    workspace: Pick<TurnContext["workspace"], "backend" | "executor">;
  };

export type AssembledTurn = {
  system: string;
  tools: AnyTool[];
  /** Tools a subagent gets (no `task`). */
  subagentTools: AnyTool[];
  subagentSystem: (subagent: SubagentDefinition) => string;
  diagnostics: Diagnostic[];
  /** The system prompt's extension sections and the MCP tools, for /context. */
  parts: { memory: string; skills: string; interpreter: string; mcp: string; mcpToolNames: ReadonlySet<string> };
};

/**
 * What a turn offers the model: built-in tools for the session's mode, `task` for subagents, MCP
 * tools, `eval` over an allowlist of those, and a system prompt with memory, skills, interpreter and
 * MCP sections.
 */
export function assembleTurn(input: TurnAssemblyInput): AssembledTurn {
  const { session, workspace, model, config, extensions } = input;
  const diagnostics: Diagnostic[] = [];
  const builtin = builtinTools({ supportsImages: model.supportsImages, canExecute: workspace.executor !== undefined });
  if (config.web_fetch.enabled) builtin.push(webFetchTool(config, input.env ?? {}));
  const mcpTools = extensions?.mcp.tools() ?? [];
  const available = [...builtin, ...mcpTools];
  const subagents = extensions?.subagents ?? [];
  const task = subagents.length > 0 ? [createTaskTool(subagents)] : [];

  const sections: string[] = [];
  const parts = {
    memory: "",
    skills: "",
    interpreter: "",
    mcp: "",
    mcpToolNames: new Set(mcpTools.map((t) => t.name)),
  };
  if (extensions) {
    parts.memory = memoryPromptSection(extensions.memory.items, extensions.memory.locations);
    sections.push(parts.memory);
    if (extensions.skills.items.length > 0)
      sections.push((parts.skills = skillsPromptSection(extensions.skills.items, extensions.skills.sources)));
  }
  const evalTools: AnyTool[] = [];
  if (config.interpreter.enabled && input.interpreterSandboxes) {
    const sandboxes = input.interpreterSandboxes;
    const limits = limitsFromConfig(config.interpreter);
    const allowlist = resolveInterpreterTools(config.interpreter.tools, available);
    diagnostics.push(...allowlist.diagnostics);
    evalTools.push(
      createEvalTool({
        limits,
        allowlist: allowlist.items,
        mode: session.mode,
        hasSubagents: subagents.length > 0,
        createSandbox: input.interpreterSandboxes.create,
        prewarm: () => void sandboxes.prewarm(limits).catch(() => undefined),
      }),
    );
    sections.push(
      (parts.interpreter = interpreterPromptSection({
        limits,
        allowlist: allowlist.items,
        hasSubagents: subagents.length > 0,
        mode: session.mode,
        subagentTypes: subagents.map((s) => ({ name: s.name, description: s.description })),
      })),
    );
  }
  if (extensions) {
    const mcpSection = renderMcpPromptSection(extensions.mcp.describe());
    if (mcpSection) sections.push((parts.mcp = mcpSection));
  }

  const tools = offeredInMode([...builtin, ...task, ...evalTools, ...mcpTools], session.mode);
  const environment = {
    cwd: session.cwd,
    roots: session.roots,
    platform: `${platform()} (${arch()})`,
    date: input.now.toISOString().slice(0, 10),
    mode: session.mode,
  };
  const subagentTools = tools.filter((t) => t.name !== "task");
  return {
    system: buildSystemPrompt({
      ...environment,
      tools,
      sections,
      ...(session.systemPrompt ? { client: session.systemPrompt } : {}),
    }),
    tools,
    subagentTools,
    subagentSystem: (subagent) =>
      buildSystemPrompt({ ...environment, tools: subagentTools, intro: subagent.systemPrompt }),
    diagnostics,
    parts,
  };
}
