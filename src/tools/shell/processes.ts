import { z } from "zod";
import { describeExit } from "../../backends/processes/background-processes.js";
import { defineTool } from "../define-tool.js";
import type { ToolContext, ToolResult } from "../types.js";

const schema = z.object({ id: z.string().min(1).describe('Id of the background process ("p1")') });

/** `process_output {id}`: what a background process printed since the last read, and whether it still runs. */
export function createProcessOutputTool() {
  return defineTool({
    name: "process_output",
    hookName: "BashOutput",
    kind: "execute",
    effect: "none",
    schema,
    description:
      "Returns the new output of a background process started with execute {background: true} since the last read, and whether it is still running.",
    present: (input) => ({ title: `Output of ${input.id}` }),
    async execute(input, ctx): Promise<ToolResult> {
      const read = ctx.background?.read(input.id, ctx.limits.shellOutputChars);
      if (!read) return unknown(input.id, ctx);
      const status = read.info.exit ? describeExit(read.info.exit) : "[still running]";
      const skipped = read.skipped > 0 ? `[... ${read.skipped} earlier characters not shown ...]\n` : "";
      return {
        content: [
          { type: "text", text: `${skipped}${read.output === "" ? "<no new output>" : read.output}\n${status}` },
        ],
        rawOutput: { running: !read.info.exit, ...(read.info.exit ?? {}) },
      };
    },
  });
}

/** `process_stop {id}`: ends a background process and its children (SIGTERM, then SIGKILL). */
export function createProcessStopTool() {
  return defineTool({
    name: "process_stop",
    hookName: "KillShell",
    kind: "execute",
    effect: "none",
    schema,
    description:
      "Stops a background process started with execute {background: true}, with every process it started, and returns its last output.",
    present: (input) => ({ title: `Stop ${input.id}` }),
    async execute(input, ctx): Promise<ToolResult> {
      const host = ctx.background;
      if (!host?.list().some((p) => p.id === input.id)) return unknown(input.id, ctx);
      const exit = await host.stop(input.id);
      const read = host.read(input.id, ctx.limits.shellOutputChars);
      const output = read && read.output !== "" ? `${read.output}\n` : "";
      return { content: [{ type: "text", text: `${output}${input.id} ${exit ? describeExit(exit) : "[stopped]"}` }] };
    },
  });
}

function unknown(id: string, ctx: ToolContext): ToolResult {
  const known = ctx.background?.list().map((p) => p.id) ?? [];
  return {
    content: [
      {
        type: "text",
        text: `Error: no background process "${id}".${known.length ? ` Known: ${known.join(", ")}.` : " None was started in this session."}`,
      },
    ],
    isError: true,
  };
}
