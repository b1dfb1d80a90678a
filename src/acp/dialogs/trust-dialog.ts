import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { TrustDialog } from "../../gate/door/trust.js";
import type { Logger } from "../../util/logger.js";

/**
 * Draws the door's trust questions (project MCP servers, hooks, skill links, plugins, SSH host keys,
 * dev containers) as the editor's permission dialog, on the thread entry the door opened for it
 * (editors that attach dialogs to tool calls, like Zed, show it there).
 */
export function createTrustDialog(
  sessionId: string,
  ask: (request: acp.RequestPermissionRequest, signal: AbortSignal) => Promise<acp.RequestPermissionResponse>,
  logger: Logger,
): TrustDialog {
  return {
    async ask(question, toolCallId, signal) {
      const content: acp.ToolCallContent[] = [{ type: "content", content: { type: "text", text: question.body } }];
      try {
        const response = await ask(
          {
            sessionId,
            toolCall: { toolCallId, title: question.title, kind: "other", status: "pending", content },
            options: question.options.map((o) => ({ optionId: o.id, name: o.name, kind: o.kind })),
          },
          signal,
        );
        return response.outcome.outcome === "selected" ? response.outcome.optionId : "cancelled";
      } catch (error) {
        if (!signal.aborted) logger.warn("trust dialog failed; treating it as a rejection", error);
        return "cancelled";
      }
    },
  };
}
