import * as acp from "@agentclientprotocol/sdk/unstable";
import { randomUUID } from "node:crypto";
import type { TrustPrompter } from "../../extensions/index.js";
import type { Logger } from "../../util/logger.js";
import { META_KEY } from "../updates/translate.js";

/**
 * Trust questions (project MCP servers, project hooks, skill links) as editor permission dialogs.
 * A tool call entry carries each question so editors that attach dialogs to tool calls (Zed) show
 * it in the thread, and it records the answer afterwards.
 */
export function createTrustDialog(
  client: acp.AgentContext,
  sessionId: string,
  push: (update: acp.SessionUpdate) => void,
  logger: Logger,
): TrustPrompter {
  return {
    async ask(question, signal) {
      const toolCallId = `${question.key}-${randomUUID().slice(0, 8)}`;
      const content: acp.ToolCallContent[] = [{ type: "content", content: { type: "text", text: question.body } }];
      push({
        sessionUpdate: "tool_call",
        toolCallId,
        title: question.title,
        kind: "other",
        status: "pending",
        content,
        _meta: { [META_KEY]: { trust: question.key } },
      });
      let answer = "cancelled";
      try {
        const params: acp.RequestPermissionRequest = {
          sessionId,
          toolCall: { toolCallId, title: question.title, kind: "other", status: "pending", content },
          options: question.options.map((o) => ({ optionId: o.id, name: o.name, kind: o.kind })),
        };
        const response = await client.request(acp.methods.client.session.requestPermission, params, {
          cancellationSignal: signal,
          stopWaitingOnCancel: true,
        });
        if (response.outcome.outcome === "selected") answer = response.outcome.optionId;
      } catch (error) {
        if (!signal.aborted) logger.warn("trust dialog failed; treating it as a rejection", error);
      }
      if (!signal.aborted) {
        const chosen = question.options.find((o) => o.id === answer);
        const allowed = chosen?.kind === "allow_once" || chosen?.kind === "allow_always";
        push({
          sessionUpdate: "tool_call_update",
          toolCallId,
          status: allowed ? "completed" : "failed",
          content: [
            {
              type: "content",
              content: {
                type: "text",
                text: chosen ? `${question.title} — ${chosen.name}` : `${question.title} — not answered`,
              },
            },
          ],
        });
      }
      return answer;
    },
  };
}
