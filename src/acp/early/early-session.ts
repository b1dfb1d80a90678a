import type { SessionServices } from "../../session/index.js";
import { checkNewSession } from "../../session/new-session-check.js";
import { sessionConfigState } from "../config-options.js";
import type { EarlySessionParams } from "./early-params.js";

// Answers the editor's first `session/new` before the ACP SDK and the session layer are loaded:
// what an editor waits for before the user can type is initialize + session/new, and loading the
// SDK (hundreds of zod schemas) and the session layer takes several times a bare Node start. The
// answer needs only the config and the model list; the session itself is built by the SDK path
// under the id given here, before any later request reaches it (see wire/stdio.ts, handlers/session-lifecycle.ts).
// Only a request the SDK path would certainly accept is answered here: every field is one the SDK's
// schema accepts as is, and the handler's own check (absolute paths, a directory, a usable
// model: session/new-session-check.ts) has passed; anything else is left to the SDK, which answers it as always.

export type EarlySessionContext = {
  services: Pick<SessionServices, "config" | "models">;
  /** --remote or --workspace: every session works elsewhere. */
  remote?: string;
  /** --max-message-bytes, over the config's limit. */
  maxMessageBytes?: number;
};

/**
 * The result the SDK path gives for this `session/new`, under `sessionId`, or undefined when the
 * SDK path might answer differently (an error, a remote workspace, an over-limit line).
 */
export async function earlySessionNewResult(
  context: EarlySessionContext,
  params: EarlySessionParams,
  sessionId: string,
  lineBytes: number,
): Promise<Record<string, unknown> | undefined> {
  const { services } = context;
  const { config } = await services.config();
  if (lineBytes > (context.maxMessageBytes ?? config.acp.max_message_bytes)) return undefined;
  // A remote workspace connects while the session is built, which may fail: the SDK path decides.
  if (context.remote || Object.keys(config.remote.projects).length > 0) return undefined;
  if (config.workspace.default || Object.keys(config.workspace.projects).length > 0) return undefined;
  // The SDK handler's own check (session/new-session-check.ts): a request it fails is the SDK's to answer.
  const check = await checkNewSession(services, params);
  if (!check.ok) return undefined;
  // A fresh session starts in the default mode with the model's default thought level.
  return { sessionId, ...(await sessionConfigState(services.models, "default", check.modelSpec, undefined)) };
}
