import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { ExecuteResponse, SandboxBackendProtocol } from "../../backends/protocol.js";
import type { ToolContext, ToolResult } from "../types.js";
import { truncationMarker } from "../../backends/processes/output-buffer.js";
import { pick } from "../hook-input.js";

const MAX_TIMEOUT_SECONDS = 600;

const schema = z.object({
  command: z.string().min(1).describe("Shell command line to run"),
  timeout: z
    .number()
    .positive()
    .max(MAX_TIMEOUT_SECONDS)
    .optional()
    .describe("Timeout in seconds (default 120, max 600)"),
  background: z
    .boolean()
    .optional()
    .describe(
      "Start a long-running process (dev server, watcher, long test run) and return at once with its id; read it with process_output, stop it with process_stop",
    ),
});

/** Whether output reaches us chunk by chunk (local or sandboxed shell) rather than living in an editor terminal. */
export function streamsOutput(executor: SandboxBackendProtocol | undefined): boolean {
  return executor !== undefined && executor.outputMode !== "editor-terminal";
}

export function createExecuteTool() {
  return defineTool({
    name: "execute",
    hookName: "Bash",
    // Claude's Bash timeout is in milliseconds, ours in seconds.
    hookInput: (i) =>
      pick({
        command: i.command,
        timeout: typeof i.timeout === "number" ? i.timeout * 1000 : undefined,
        run_in_background: i.background,
      }),
    kind: "execute",
    effect: "execute",
    streamsOutput: true,
    schema,
    description: [
      "Runs a shell command in the working directory and returns its output (stdout and stderr interleaved) and exit code.",
      "Each call starts a fresh shell: `cd` does not persist; chain with && instead. Avoid interactive commands.",
      "Prefer read_file/grep/glob for reading and searching files.",
    ].join("\n"),
    present(input, ctx) {
      // No location: editors label a call by its single location (Zed shows its file name, CodeCompanion
      // its path), so the working directory would hide the command line (docs/editors.md).
      return { title: input.command, locations: [] };
    },
    async execute(input, ctx): Promise<ToolResult> {
      if (input.background) return startBackground(input.command, ctx);
      if (!ctx.executor) {
        return {
          content: [{ type: "text", text: "Error: Execution not available. This session cannot run commands." }],
          isError: true,
        };
      }
      const timeoutMs = (input.timeout ?? ctx.limits.shellTimeoutMs / 1000) * 1000;
      const response = await ctx.executor.execute(input.command, {
        cwd: ctx.cwd,
        timeoutMs,
        signal: ctx.signal,
        onOutput: (data) => ctx.progress({ type: "output", data }),
        onTerminal: (terminalId) => ctx.progress({ type: "terminal", terminalId }),
      });
      return executeResult(response, timeoutMs, ctx.limits.shellOutputChars);
    },
  });
}

export function formatExecuteOutput(response: ExecuteResponse, timeoutMs: number): string {
  const parts = [response.output === "" ? "<no output>" : response.output];
  if (response.timedOut)
    parts.push(`[Command timed out after ${(timeoutMs / 1000).toFixed(1)} seconds and was killed]`);
  else if (response.exitCode !== null) {
    parts.push(
      response.exitCode === 0
        ? "[Command succeeded with exit code 0]"
        : `[Command failed with exit code ${response.exitCode}]`,
    );
  } else if (response.signal) parts.push(`[Command was killed by ${response.signal}]`);
  if (response.truncated) parts.push("[Output was truncated due to size limits]");
  return parts.join("\n");
}

/**
 * The model gets all the captured output (the turn's offloader saves a large one whole to
 * /large_tool_results/ and sends head, tail and path); the editor's text view keeps showing at most
 * `displayChars`, head and tail, as it always has.
 */
function executeResult(response: ExecuteResponse, timeoutMs: number, displayChars: number): ToolResult {
  const text = formatExecuteOutput(response, timeoutMs);
  const failed =
    response.notStarted !== undefined ||
    response.timedOut === true ||
    (response.exitCode !== null && response.exitCode !== 0) ||
    (response.exitCode === null && !!response.signal);
  return {
    content: [{ type: "text", text }],
    isError: failed,
    display: response.terminalId
      ? [{ type: "terminal", terminalId: response.terminalId }]
      : [{ type: "text", text: "```\n" + headAndTail(text, displayChars) + "\n```" }],
    rawOutput: {
      exitCode: response.exitCode,
      signal: response.signal ?? null,
      timedOut: response.timedOut ?? false,
      truncated: response.truncated,
    },
  };
}

function headAndTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars / 2);
  const tail = maxChars - head;
  return text.slice(0, head) + truncationMarker(text.length - head - tail) + text.slice(text.length - tail);
}

function startBackground(command: string, ctx: ToolContext): ToolResult {
  const started =
    ctx.background?.launch(command, ctx.cwd, ctx.toolCallId, ctx.signal) ??
    "background processes are not available in this session";
  if (typeof started === "string") return { content: [{ type: "text", text: `Error: ${started}` }], isError: true };
  const text = [
    `Started background process ${started.id} (pid ${started.pid ?? "?"}). It keeps running after this call; the session owns it.`,
    `Read its new output with process_output {"id": "${started.id}"}; stop it with process_stop {"id": "${started.id}"}.`,
  ].join("\n");
  return {
    content: [{ type: "text", text }],
    background: true,
    rawOutput: { id: started.id, pid: started.pid ?? null },
  };
}
