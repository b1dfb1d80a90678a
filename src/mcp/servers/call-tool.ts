// One tools/call with the turn's AbortSignal (the SDK sends notifications/cancelled when it
// fires) and a timeout that progress notifications extend. Failures become error results the
// model can read, never exceptions.

import type { ToolContext, ToolResult } from "../../tools/types.js";
import { errorMessage } from "../../util/errors.js";
import type { McpConnection } from "./connection.js";
import { convertCallResult } from "./result-content.js";

/** JSON-RPC codes the SDK uses for its own failures. */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

export type CallOutcome =
  | { kind: "result"; result: ToolResult }
  /** The connection is gone or unusable; the server's status must change. */
  | { kind: "lost"; result: ToolResult; status: "error" | "unauthenticated"; reason: string };

export async function callMcpTool(
  connection: McpConnection,
  server: string,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  timeoutMs: number,
): Promise<CallOutcome> {
  const label = `${server}: ${tool}`;
  try {
    const result = await connection.client.callTool({ name: tool, arguments: args }, undefined, {
      signal: ctx.signal,
      timeout: timeoutMs,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => {
        const total = progress.total !== undefined ? `/${progress.total}` : "";
        const message = progress.message ? ` ${progress.message}` : "";
        ctx.progress({ type: "output", data: `[${label}] progress ${progress.progress}${total}${message}\n` });
      },
    });
    return { kind: "result", result: convertCallResult(result, label) };
  } catch (error) {
    if (ctx.signal.aborted) return { kind: "result", result: failure(`${label} was cancelled`) };
    const code = (error as { code?: unknown }).code;
    if (code === REQUEST_TIMEOUT) {
      return {
        kind: "result",
        result: failure(
          `${label} timed out after ${Math.round(timeoutMs / 1000)}s (the server was asked to cancel it)`,
        ),
      };
    }
    const message = errorMessage(error);
    const name = error instanceof Error ? error.name : "";
    if (name === "UnauthorizedError" || /unauthorized|invalid_grant/i.test(message)) {
      const reason = `login expired or refresh failed: run \`deep-acp mcp login ${server}\`, then /reload`;
      return {
        kind: "lost",
        status: "unauthenticated",
        reason,
        result: failure(`${label} failed: MCP server "${server}" needs a new login (${reason})`),
      };
    }
    if (code === CONNECTION_CLOSED || isTransportFailure(error)) {
      const reason = code === CONNECTION_CLOSED ? connection.lostReason() : message;
      return {
        kind: "lost",
        status: "error",
        reason,
        result: failure(
          `${label} failed: MCP server "${server}" ${code === CONNECTION_CLOSED ? `stopped during the call (${reason})` : `is unreachable (${reason})`}`,
        ),
      };
    }
    return { kind: "result", result: failure(`${label} failed: ${message}`) };
  }
}

/** Errors that are not protocol answers: network failures and HTTP-level errors. */
function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "McpError") return false;
  return (
    error instanceof TypeError ||
    /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|not running|Streamable HTTP error|SSE error|Not connected/i.test(
      error.message,
    )
  );
}

function failure(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
