import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { pick } from "./hook-input.js";

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
      return { title: active ? `Plan: ${active.content}` : `Update plan (${input.todos.length} items)` };
    },
    async execute(input, ctx) {
      ctx.progress({
        type: "plan",
        entries: input.todos.map((t) => ({ content: t.content, status: t.status, priority: "medium" })),
      });
      return { content: [{ type: "text", text: `Updated todo list to ${JSON.stringify(input.todos)}` }] };
    },
  });
}
