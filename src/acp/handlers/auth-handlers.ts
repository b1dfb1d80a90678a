import * as acp from "@agentclientprotocol/sdk/unstable";
import { rm } from "node:fs/promises";
import { AUTH_METHOD_IDS } from "../capabilities.js";
import type { ConnectionState } from "../connection-state.js";
import { wireError } from "../errors.js";

/** Written by `deep-acp login`, read by the model service. */

/**
 * `authenticate` and `logout`. Keys live outside the protocol (environment, or the file `deep-acp login`
 * writes), so authenticating means re-reading them: a login finished in another process takes effect
 * without restarting the agent. Sessions already open keep the model client they have.
 */
export function registerAuthHandlers(
  app: acp.AgentApp,
  state: ConnectionState,
  /** Tells the editor when the auth status changed (auth/status_update, see provider-handlers.ts). */
  changed: (client: acp.AgentContext) => Promise<void> = async () => undefined,
): acp.AgentApp {
  const { services, logger } = state;
  const known = new Set<string>(Object.values(AUTH_METHOD_IDS));
  return app
    .onRequest(acp.methods.agent.authenticate, async ({ params, client }) => {
      if (!known.has(params.methodId))
        throw wireError.invalidParams({ methodId: params.methodId }, `unknown auth method "${params.methodId}"`);
      await services.models.reload();
      const resolved = await services.models.resolveDefault();
      if ("error" in resolved) throw wireError.authRequired(resolved.error);
      logger.info(`authenticated: ${resolved.spec} (${resolved.source})`);
      void changed(client).catch(() => undefined);
      return {};
    })
    .onRequest(acp.methods.agent.logout, async ({ client }) => {
      // Only the stored keys: environment variables belong to whoever launched us and still win.
      await rm(services.paths.credentialsFile, { force: true });
      await services.models.reload();
      logger.info("logged out: stored credentials deleted");
      void changed(client).catch(() => undefined);
      return {};
    });
}
