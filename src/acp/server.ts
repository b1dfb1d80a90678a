import * as acp from "@agentclientprotocol/sdk/unstable";
import { isAbsolute } from "node:path";
import { isSessionMode, type SessionMode } from "../agent/modes.js";
import type { Session } from "../session/session.js";
import type { SessionServices } from "../session/services.js";
import type { Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import { buildInitializeResponse } from "./capabilities.js";
import { configOptions, modeState } from "./config-options.js";
import { createEditorBridge } from "./editor-bridge.js";
import { createPermissionDialog } from "./permission-dialog.js";
import { toPromptBlocks } from "./prompt-content.js";
import { coreCommands, parseSlashCommand, toAvailableCommands, type SlashCommand } from "./slash-commands.js";
import { createTranslator, type ClientFeatures } from "./translate.js";
import { createUpdateStream } from "./update-stream.js";

export type AcpServerOptions = {
  services: SessionServices;
  version: string;
  logger: Logger;
};

// The session layer (agent loop, tools, backends) loads after `initialize` has been answered, so the
// handshake only pays for the protocol library.
type SessionModule = typeof import("../session/session.js");
let sessionModule: Promise<SessionModule> | undefined;
const loadSessionModule = () => (sessionModule ??= import("../session/session.js"));

type LiveSession = {
  session: Session;
  stream: ReturnType<typeof createUpdateStream>;
  translate: ReturnType<typeof createTranslator>;
};

/** The ACP agent: protocol handlers over the session layer. One instance per connection. */
export function createAcpServer(options: AcpServerOptions) {
  const { services, logger } = options;
  const sessions = new Map<string, LiveSession>();
  let clientCapabilities: acp.ClientCapabilities = {};
  let features: ClientFeatures = { terminalOutput: false, notices: false, compaction: false };
  const commands: SlashCommand[] = coreCommands(() => commands);

  const live = (sessionId: string): LiveSession => {
    const entry = sessions.get(sessionId);
    if (!entry) throw acp.RequestError.sessionNotFound(sessionId);
    return entry;
  };

  const send = (client: acp.AgentContext, sessionId: string) => (update: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update });

  async function sessionConfig(session: Session) {
    const choices = await services.models.choices(session.modelSpec).catch(() => []);
    return { modes: modeState(session.mode), configOptions: configOptions(session.mode, session.modelSpec, choices) };
  }

  async function pushConfig(entry: LiveSession) {
    const { configOptions: options } = await sessionConfig(entry.session);
    entry.stream.push({ sessionUpdate: "current_mode_update", currentModeId: entry.session.mode });
    entry.stream.push({ sessionUpdate: "config_option_update", configOptions: options });
  }

  async function applyMode(entry: LiveSession, modeId: string) {
    if (!isSessionMode(modeId)) throw acp.RequestError.invalidParams({ modeId }, `unknown mode "${modeId}"`);
    await entry.session.setMode(modeId as SessionMode);
  }

  async function closeSession(sessionId: string) {
    const entry = sessions.get(sessionId);
    if (!entry) return;
    sessions.delete(sessionId);
    await entry.session.close();
    await entry.stream.flush();
  }

  const app = acp
    .agent({ name: "deep-acp" })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      const meta = (clientCapabilities._meta ?? {}) as Record<string, unknown>;
      features = {
        terminalOutput: meta.terminal_output === true,
        notices: clientCapabilities.session?.notices != null,
        compaction: clientCapabilities.session?.compaction != null,
      };
      // Warm what session/new needs once this answer is on its way.
      setTimeout(() => {
        void loadSessionModule();
        void services.config().then(() => services.models.choices()).catch(() => undefined);
      }, 0);
      return buildInitializeResponse({ version: options.version, clientCapabilities });
    })
    .onRequest(acp.methods.agent.authenticate, async () => {
      await services.models.reload();
      const resolved = await services.models.resolveDefault();
      if ("error" in resolved) throw acp.RequestError.authRequired(undefined, resolved.error);
      return {};
    })
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const cwd = params.cwd;
      const extra = params.additionalDirectories ?? [];
      for (const dir of [cwd, ...extra]) {
        if (!isAbsolute(dir)) throw acp.RequestError.invalidParams({ path: dir }, `paths must be absolute: "${dir}"`);
      }
      const resolved = await services.models.resolveDefault();
      if ("error" in resolved) throw acp.RequestError.authRequired(undefined, resolved.error);

      const { Session } = await loadSessionModule();
      const sessionId = crypto.randomUUID();
      const session = new Session({
        id: sessionId,
        cwd,
        additionalDirectories: extra,
        modelSpec: resolved.spec,
        services,
        approver: createPermissionDialog(
          sessionId,
          (request, signal) => client.request(acp.methods.client.session.requestPermission, request, { cancellationSignal: signal, stopWaitingOnCancel: true }),
          logger,
        ),
        editor: createEditorBridge(client, sessionId, clientCapabilities),
      });
      const entry: LiveSession = {
        session,
        stream: createUpdateStream({ send: send(client, sessionId), onError: (error) => logger.debug("session/update failed", error) }),
        translate: createTranslator(features),
      };
      sessions.set(sessionId, entry);
      session.warmUp();
      const config = await sessionConfig(session);
      // Zed registers the session only when it has this response, so updates wait for the next tick.
      setTimeout(() => entry.stream.push({ sessionUpdate: "available_commands_update", availableCommands: toAvailableCommands(commands) }), 0);
      return { sessionId, ...config };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const entry = live(params.sessionId);
      const { session, stream, translate } = entry;
      const blocks = toPromptBlocks(params.prompt, session.cwd);
      const parsed = parseSlashCommand(blocks);
      const command = parsed && commands.find((c) => c.name === parsed.name);
      let promptBlocks = blocks;
      if (command && parsed) {
        const result = await command.run(session, parsed.args);
        if (result.kind === "reply") {
          stream.push({ sessionUpdate: "agent_message_chunk", messageId: crypto.randomUUID(), content: { type: "text", text: result.text } });
          await stream.flush();
          return { stopReason: "end_turn" };
        }
        promptBlocks = result.blocks;
      }
      const result = await session.prompt(promptBlocks, (event) => {
        for (const update of translate(event)) stream.push(update);
      });
      await stream.flush();
      if (result.error && result.stopReason !== "cancelled") {
        throw acp.RequestError.internalError(undefined, result.error);
      }
      return { stopReason: result.stopReason };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.session.cancel();
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      const entry = live(params.sessionId);
      await applyMode(entry, params.modeId);
      const { configOptions: options } = await sessionConfig(entry.session);
      entry.stream.push({ sessionUpdate: "config_option_update", configOptions: options });
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const entry = live(params.sessionId);
      if (typeof params.value !== "string") throw acp.RequestError.invalidParams({ configId: params.configId }, "this option takes a string value");
      if (params.configId === "mode") {
        await applyMode(entry, params.value);
        entry.stream.push({ sessionUpdate: "current_mode_update", currentModeId: entry.session.mode });
      } else if (params.configId === "model") {
        try {
          await entry.session.setModel(params.value);
        } catch (error) {
          throw acp.RequestError.invalidParams({ configId: "model", value: params.value }, errorMessage(error));
        }
      } else {
        throw acp.RequestError.invalidParams({ configId: params.configId }, `unknown config option "${params.configId}"`);
      }
      const { configOptions: options } = await sessionConfig(entry.session);
      return { configOptions: options };
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      if (!sessions.has(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
      await closeSession(params.sessionId);
      return {};
    });

  return {
    app,
    /** Closes every session (cancelling turns and killing their processes). */
    async shutdown(): Promise<void> {
      await Promise.all([...sessions.keys()].map((id) => closeSession(id)));
    },
    /** For tests: the live session objects. */
    sessions: (): Session[] => [...sessions.values()].map((e) => e.session),
    pushConfig: (sessionId: string) => pushConfig(live(sessionId)),
  };
}
