import { isThoughtLevel } from "../model/thought-level.js";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { randomUUID } from "node:crypto";
import { isSessionMode, type SessionMode } from "../agent/modes.js";
import { errorMessage } from "../util/errors.js";
import type { ConnectionState, LiveSession } from "./connection-state.js";
import { toPromptBlocks } from "./prompt-content.js";
import { parseSlashCommand, skillPrompt, type CommandResult } from "../commands/index.js";
import { META_KEY } from "./translate.js";

async function applyMode(entry: LiveSession, modeId: string) {
  if (!isSessionMode(modeId)) throw acp.RequestError.invalidParams({ modeId }, `unknown mode "${modeId}"`);
  await entry.session.setMode(modeId as SessionMode);
}

/** session/prompt, cancel, set_mode and set_config_option. */
export function registerPromptHandlers(app: acp.AgentApp, state: ConnectionState): acp.AgentApp {
  return app
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const entry = await state.live(params.sessionId);
      const { session, stream, translate } = entry;
      const blocks = toPromptBlocks(params.prompt, session.cwd);
      const parsed = parseSlashCommand(blocks);
      const command = parsed && state.commands.find((c) => c.name === parsed.name);
      const context = {
        events: (event: Parameters<typeof translate>[0]) => {
          for (const update of translate(event)) stream.push(update);
        },
        refreshCommands: () => state.refreshCommands(entry),
      };
      let promptBlocks = blocks;
      let result: CommandResult | undefined;
      if (parsed?.name.startsWith("skill:"))
        result = await skillPrompt(session, parsed.name.slice("skill:".length), parsed.args);
      else if (command && parsed) result = await command.run(session, parsed.args, context);
      if (result) {
        if (result.kind === "reply") {
          if (result.text)
            stream.push({
              sessionUpdate: "agent_message_chunk",
              messageId: randomUUID(),
              content: { type: "text", text: result.text },
            });
          await stream.flush();
          return { stopReason: result.stopReason ?? "end_turn" };
        }
        // Text after the command's own line (attachments, mentions) still goes to the model.
        promptBlocks = [...result.blocks, ...blocks.slice(1)];
      }
      // The v2 agent names the message it already acknowledged (v2-agent.ts); editors leave it to us.
      const given = (params._meta?.[META_KEY] as { userMessageId?: unknown } | undefined)?.userMessageId;
      const userMessageId = typeof given === "string" && given ? given : randomUUID();
      const turn = await session.prompt(
        promptBlocks,
        (event) => {
          for (const update of translate(event)) stream.push(update);
        },
        userMessageId,
      );
      // A skill approved during the turn (a symlink dialog) becomes a /skill: command now.
      await state.refreshCommands(entry);
      await stream.flush();
      if (turn.error && turn.stopReason !== "cancelled") throw acp.RequestError.internalError(undefined, turn.error);
      // The id lets an editor rewind to this message (_deep-acp/session/rewind).
      return { stopReason: turn.stopReason, _meta: { [META_KEY]: { userMessageId } } };
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
        throw acp.RequestError.invalidParams({ configId: params.configId }, "this option takes a string value");
      if (params.configId === "mode") {
        await applyMode(entry, params.value);
        entry.stream.push({ sessionUpdate: "current_mode_update", currentModeId: entry.session.mode });
      } else if (params.configId === "model") {
        try {
          await entry.session.setModel(params.value);
        } catch (error) {
          throw acp.RequestError.invalidParams({ configId: "model", value: params.value }, errorMessage(error));
        }
      } else if (params.configId === "thought_level" && isThoughtLevel(params.value)) {
        try {
          await entry.session.setThoughtLevel(params.value);
        } catch (error) {
          throw acp.RequestError.invalidParams({ configId: "thought_level", value: params.value }, errorMessage(error));
        }
      } else if (params.configId === "thought_level") {
        throw acp.RequestError.invalidParams(
          { configId: "thought_level", value: params.value },
          `"${params.value}" is not a thought level (off, low, medium, high)`,
        );
      } else {
        throw acp.RequestError.invalidParams(
          { configId: params.configId },
          `unknown config option "${params.configId}"`,
        );
      }
      return { configOptions: (await state.config(entry.session)).configOptions };
    });
}
