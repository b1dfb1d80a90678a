import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { PeerAgentConfig } from "../config/config-file.js";
import type { PeerConnection } from "./peer-connection.js";

// `[agents.NAME] mode` and `model` on a fresh child session: a mode through session/set_mode (or a
// config option of category "mode"), a model through the config option of category "model". What the
// child does not offer is said (a warning in the child session), never silently dropped.

/** Applies the configured mode and model; returns what could not be applied. */
export async function configureSession(
  connection: Pick<PeerConnection, "name" | "setMode" | "setConfigOption">,
  session: acp.NewSessionResponse,
  config: Pick<PeerAgentConfig, "mode" | "model">,
): Promise<string[]> {
  const warnings: string[] = [];
  const options = session.configOptions ?? [];
  const option = (category: string) => options.find((o) => o.category === category && o.type === "select");
  const offers = (o: acp.SessionConfigOption | undefined, value: string) =>
    o !== undefined && o.type === "select" && JSON.stringify(o.options).includes(JSON.stringify(value));
  const apply = async (what: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      warnings.push(`${connection.name}: could not set ${what}: ${(error as Error).message}`);
    }
  };
  if (config.mode) {
    const modeOption = option("mode");
    if (session.modes?.availableModes.some((m) => m.id === config.mode))
      await apply(`mode ${config.mode}`, () =>
        connection.setMode({ sessionId: session.sessionId, modeId: config.mode! }),
      );
    else if (offers(modeOption, config.mode))
      await apply(`mode ${config.mode}`, () =>
        connection.setConfigOption({ sessionId: session.sessionId, configId: modeOption!.id, value: config.mode! }),
      );
    else warnings.push(`${connection.name} offers no mode "${config.mode}"; it runs in its default mode`);
  }
  if (config.model) {
    const modelOption = option("model");
    if (offers(modelOption, config.model))
      await apply(`model ${config.model}`, () =>
        connection.setConfigOption({ sessionId: session.sessionId, configId: modelOption!.id, value: config.model! }),
      );
    else warnings.push(`${connection.name} offers no model "${config.model}"; it uses its default model`);
  }
  return warnings;
}
