// The names of the built-in tools made outside the tool table (registry.ts), which needs them to
// reserve every built-in name: each is used by the file that builds its tool.

/** turn/task-tool.ts, over the session's subagents. */
export const TASK_TOOL_NAME = "task";
/** interpreter/eval-tool.ts, over the turn's tools. */
export const EVAL_TOOL_NAME = "eval";
