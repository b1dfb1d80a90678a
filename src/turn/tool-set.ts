import type { SessionMode } from "../agent/modes.js";
import { createDeleteTool } from "../tools/delete.js";
import { createEditFileTool } from "../tools/edit-file.js";
import { createExecuteTool } from "../tools/execute.js";
import { createGlobTool } from "../tools/glob.js";
import { createGrepTool } from "../tools/grep.js";
import { createLsTool } from "../tools/ls.js";
import { createReadFileTool } from "../tools/read-file.js";
import type { AnyTool } from "../tools/types.js";
import { createWriteFileTool } from "../tools/write-file.js";
import { createWriteTodosTool } from "../tools/write-todos.js";

export type BuiltinToolOptions = {
  supportsImages: boolean;
  /** Whether the session can run commands at all. */
  canExecute: boolean;
};

/** The built-in file, shell and planning tools, in the order the model sees them. */
export function builtinTools(options: BuiltinToolOptions): AnyTool[] {
  const tools: AnyTool[] = [
    createLsTool(),
    createReadFileTool({ supportsImages: options.supportsImages }),
    createWriteFileTool(),
    createEditFileTool(),
    createDeleteTool(),
    createGlobTool(),
    createGrepTool(),
  ];
  if (options.canExecute) tools.push(createExecuteTool());
  tools.push(createWriteTodosTool());
  return tools;
}

const READ_ONLY_EFFECTS = new Set(["read", "none"]);

/** `plan` mode offers only tools that cannot change anything. */
export function toolsForMode(tools: readonly AnyTool[], mode: SessionMode): AnyTool[] {
  return mode === "plan" ? tools.filter((t) => READ_ONLY_EFFECTS.has(t.effect)) : [...tools];
}
