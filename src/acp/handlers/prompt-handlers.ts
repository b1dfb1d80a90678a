import { isThoughtLevel } from "../../model/catalog/thought-level.js";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { randomUUID } from "node:crypto";
import { isSessionMode, type SessionMode } from "../../gate/decide/modes.js";
import { errorMessage } from "../../util/errors.js";
import type { ConnectionState, LiveSession } from "../connection-state.js";
import { toPromptBlocks } from "../prompt-content.js";
import { dispatchPrompt } from "../../commands/index.js";
import { META_KEY } from "../updates/translate.js";
import { createTurnOwners, steerPrompt } from "./steering.js";
import type { Usage } from "../../model/types.js";
import { promptQuota } from "../quota/editor-shapes.js";
import { wireError } from "../errors.js";

async function applyMode(entry: LiveSession, modeId: string) {
  if (!isSessionMode(modeId)) throw wireError.invalidParams({ modeId }, `unknown mode "${modeId}"`);
  await entry.session.setMode(modeId as SessionMode);
}

/** session/prompt, cancel, set_mode and set_config_option. */
export function registerPromptHandlers(app: acp.AgentApp, state: ConnectionState): acp.AgentApp {
  const owners = createTurnOwners();
  return app
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const entry = await state.live(params.sessionId);
      const { session, stream, translate } = entry;
      const blocks = toPromptBlocks(params.prompt, session.cwd);
      const context = {
        events: (event: Parameters<typeof translate>[0]) => {
          for (const update of translate(event)) stream.push(update);
        },
        refreshCommands: () => state.refreshCommands(entry),
      };
      const dispatched = await dispatchPrompt(session, blocks, state.commands, context);
      if (dispatched.kind === "reply") {
        if (dispatched.text)
          stream.push({
            sessionUpdate: "agent_message_chunk",
            messageId: randomUUID(),
            content: { type: "text", text: dispatched.text },
          });
        await stream.flush();
        return { stopReason: dispatched.stopReason };
      }
      // The v2 agent names the message it already acknowledged (v2-agent.ts); editors leave it to us.
      const given = (params._meta?.[META_KEY] as { userMessageId?: unknown } | undefined)?.userMessageId;
      const userMessageId = typeof given === "string" && given ? given : randomUUID();
      const usage = createTurnUsage();
      // JetBrains' shared `_meta.quota`: the turn's token counts (quota/editor-shapes.ts).
      const jetbrains = () =>
        state.features.quotaShapes?.promptQuota
          ? { quota: promptQuota(usage.response().usage, session.modelSpec) }
          : {};
      const meta = { _meta: { [META_KEY]: { userMessageId } } };
      const withQuota = () => ({ _meta: { ...meta._meta, ...jetbrains() } });
      // Steering (steering.ts): a plain prompt joins the running turn, for clients that opted in.
      let turn =
        state.features.steering && dispatched.plain
          ? await steerPrompt(owners, entry, blocks, userMessageId)
          : undefined;
      if (turn === "blocked") return { stopReason: "end_turn", ...meta };
      turn ??= await owners.own(
        userMessageId,
        session.prompt(
          dispatched.blocks,
          (event) => {
            if (event.type === "usage") usage.add(event.usage);
            for (const update of translate(event)) stream.push(update);
          },
          userMessageId,
        ),
      );
      if (turn === "handed-off") {
        // A steered prompt took the turn over: all this one streamed is out, the rest is the new one's.
        await stream.flush();
        return { stopReason: "end_turn", ...usage.response(), ...withQuota() };
      }
      // A cancelled turn goes quiet at the cancel; its calls still end (updates/tool-call-updates.ts).
      if (turn.stopReason === "cancelled") for (const update of translate.endOpenToolCalls()) stream.push(update);
      // A skill approved during the turn (a symlink dialog) becomes a /skill: command now.
      await state.refreshCommands(entry);
      await stream.flush();
      if (turn.error && turn.stopReason !== "cancelled") throw wireError.internalError(turn.error);
      // The id lets an editor rewind to this message (_deep-acp/session/rewind).
      return { stopReason: turn.stopReason, ...usage.response(), ...withQuota() };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      state.cancel(params.sessionId);
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      const entry = await state.live(params.sessionId);
      await applyMode(entry, params.modeId);
      const { configOptions } = await state.config(entry.session);
      entry.stream.push({ sessionUpdate: "config_option_update", configOptions });
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const entry = await state.live(params.sessionId);
      if (typeof params.value !== "string")
        throw wireError.invalidParams({ configId: params.configId }, "this option takes a string value");
      if (params.configId === "mode") {
        await applyMode(entry, params.value);
        entry.stream.push({ sessionUpdate: "current_mode_update", currentModeId: entry.session.mode });
      } else if (params.configId === "model") {
        try {
          await entry.session.setModel(params.value);
        } catch (error) {
          throw wireError.invalidParams({ configId: "model", value: params.value }, errorMessage(error));
        }
      } else if (params.configId === "thought_level" && isThoughtLevel(params.value)) {
        try {
          await entry.session.setThoughtLevel(params.value);
        } catch (error) {
          throw wireError.invalidParams({ configId: "thought_level", value: params.value }, errorMessage(error));
        }
      } else if (params.configId === "thought_level") {
        throw wireError.invalidParams(
          { configId: "thought_level", value: params.value },
          `"${params.value}" is not a thought level (off, low, medium, high)`,
        );
      } else {
        throw wireError.invalidParams({ configId: params.configId }, `unknown config option "${params.configId}"`);
      }
      return { configOptions: (await state.config(entry.session)).configOptions };
    });
}

/** The turn's token use, every model request added up (PromptResponse.usage, unstable). */
function createTurnUsage() {
  let total: acp.Usage | undefined;
  return {
    add(usage: Usage): void {
      const cachedRead = usage.cacheReadTokens ?? 0;
      const cachedWrite = usage.cacheWriteTokens ?? 0;
      const previous = total ?? {
        totalTokens: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedReadTokens: 0,
        cachedWriteTokens: 0,
      };
      total = {
        inputTokens: previous.inputTokens + usage.inputTokens,
        outputTokens: previous.outputTokens + usage.outputTokens,
        cachedReadTokens: (previous.cachedReadTokens ?? 0) + cachedRead,
        cachedWriteTokens: (previous.cachedWriteTokens ?? 0) + cachedWrite,
        totalTokens: previous.totalTokens + usage.inputTokens + usage.outputTokens + cachedRead + cachedWrite,
      };
    },
    response: (): { usage?: acp.Usage } => (total ? { usage: total } : {}),
  };
}
