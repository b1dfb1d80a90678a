import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { pick } from "../hook-input.js";

const todo = z.object({
  content: z.string().min(1),
  status: z.enum(["pending", "in_progress", "completed"]),
});
const schema = z.object({
  todos: z.array(todo).describe("The complete, updated todo list (replaces the previous one)"),
});

export function createWriteTodosTool() {
  return defineTool({
    name: "write_todos",
    hookName: "TodoWrite",
    hookInput: (i) => pick({ todos: i.todos }),
    kind: "think",
    effect: "none",
    singletonPerMessage: true,
    schema,
    description: [
      "Maintains a todo list for multi-step work; the user sees it as the plan in the editor.",
      "Use it for tasks with 3 or more steps. Send the whole list each time; keep exactly one item in_progress",
      "while working, and mark items completed as soon as they are done. Skip it for simple one-step requests.",
    ].join("\n"),
    present(input) {
      const active = input.todos.find((t) => t.status === "in_progress");
      // No colon in the title: CodeCompanion keeps only what comes before one (`Plan: x` showed `Think: Plan`).
      return { title: active ? `Working on ${active.content}` : `Update plan (${input.todos.length} items)` };
    },
    async execute(input, ctx) {
      ctx.progress({
        type: "plan",
        entries: input.todos.map((t) => ({ content: t.content, status: t.status, priority: "medium" })),
      });
      // The model reads the list back as JSON; the editor already renders the plan, so the call shows a count.
      const done = input.todos.filter((t) => t.status === "completed").length;
      return {
        content: [{ type: "text", text: `Updated todo list to ${JSON.stringify(input.todos)}` }],
        display: [{ type: "text", text: `${done} of ${input.todos.length} done` }],
      };
    },
  });
}
