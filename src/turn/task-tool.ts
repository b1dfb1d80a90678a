import { z } from "zod";
import type { SubagentDefinition } from "../subagents/types.js";
import { subagentTypeDescription, taskToolDescription, unknownSubagentMessage } from "../subagents/task-description.js";
import { defineTool } from "../tools/define-tool.js";
import { pick } from "../tools/hook-input.js";
import { TASK_TOOL_NAME } from "../tools/registry.js";

/**
 * `task {description, subagent_type}`: runs a subagent in its own context. The run itself is the
 * turn's business (ctx.runSubagent): it shares the parent's tools, file rules and approval pipeline,
 * and its tool calls appear in the editor under this call.
 */
export function createTaskTool(subagents: readonly SubagentDefinition[]) {
  let tool = built.get(subagents);
  if (!tool) built.set(subagents, (tool = buildTaskTool(subagents)));
  return tool;
}

// Turns are assembled per prompt, and converting this tool's schema (which names the subagents, so
// it cannot be a module constant) was most of that: ~2 ms a prompt. The list is the same array until
// extensions reload, and the tool depends on nothing else.
const built = new WeakMap<readonly SubagentDefinition[], ReturnType<typeof buildTaskTool>>();

function buildTaskTool(subagents: readonly SubagentDefinition[]) {
  const schema = z.object({
    description: z.string().min(1).describe("The complete task for the subagent, with every detail it needs"),
    subagent_type: z.string().min(1).describe(subagentTypeDescription(subagents)),
  });
  return defineTool({
    name: TASK_TOOL_NAME,
    hookName: "Task",
    hookInput: (i) => pick({ description: i.description, subagent_type: i.subagent_type }),
    kind: "think",
    // The subagent's own calls are checked one by one; launching it changes nothing by itself.
    effect: "none",
    schema,
    description: taskToolDescription(subagents),
    present(input) {
      // The description itself, whole when it fits one line: agent-shell appends `rawInput.description`
      // unless it equals the title (a `type: ` prefix showed it twice), CodeCompanion cuts at a colon.
      const text = input.description.trim();
      const firstLine = text.split("\n")[0]!;
      return { title: firstLine === text && text.length <= 120 ? text : `${firstLine.slice(0, 80)}…` };
    },
    async execute(input, ctx) {
      if (!subagents.some((s) => s.name === input.subagent_type)) {
        return {
          content: [{ type: "text", text: `Error: ${unknownSubagentMessage(input.subagent_type, subagents)}` }],
          isError: true,
        };
      }
      if (!ctx.runSubagent)
        return { content: [{ type: "text", text: "Error: subagents are not available here" }], isError: true };
      return ctx.runSubagent({ description: input.description, subagentType: input.subagent_type });
    },
  });
}
