import * as acp from "@agentclientprotocol/sdk/unstable";
import { providerSettings } from "../../model/catalog/credentials.js";
import { PROVIDERS } from "../../model/catalog/providers.js";
import { routableProtocol } from "../../model/catalog/routing.js";
import type { ModelService } from "../../model/client/service.js";
import { PROVIDER_NAMES, type ProviderName } from "../../model/types.js";
import { wireError } from "../errors.js";

// providers/list, providers/set, providers/disable (agentCapabilities.providers) and auth/status
// (+ the client's auth/status_update), over our provider table (model/providers.ts). Provider ids
// are our provider names. An editor may send a provider's requests to its own gateway (a base URL
// and headers, which may carry the credential) or turn a provider off, for the life of this process;
// nothing is written to disk, and environment variables and `deep-acp login` keep working as before.
// Each method is a function of its params and the model service, so a v2 handler set can call them.

type Env = Readonly<Record<string, string | undefined>>;
export type ProviderServices = { models: ModelService; env: Env };

/** The ACP protocol name of each provider's wire API (`_`-prefixed where ACP has none). */
function apiTypeOf(provider: ProviderName): string {
  const routable = routableProtocol(provider);
  if (routable) return routable;
  switch (provider) {
    case "azure":
      return "azure";
    case "vertex":
      return "vertex";
    case "bedrock":
      return "bedrock";
    case "openai-responses":
      return "_openai-responses";
    default:
      return "_gemini";
  }
}

const isProvider = (id: string): id is ProviderName => (PROVIDER_NAMES as readonly string[]).includes(id);

export async function listProviders(services: ProviderServices): Promise<acp.ListProvidersResponse> {
  const { models } = services;
  const [stored, resolved] = await Promise.all([models.storedCredentials(), models.resolveDefault()]);
  const defaultProvider = "error" in resolved ? undefined : resolved.provider;
  const providers = PROVIDER_NAMES.map((provider): acp.ProviderInfo => {
    const routable = routableProtocol(provider);
    const route = models.routing.routes.get(provider);
    const settings = providerSettings(provider, services.env, stored, route);
    const baseUrl = settings.baseUrl ?? PROVIDERS[provider].defaultBaseUrl;
    const configured = settings.usable || provider === defaultProvider;
    const current =
      models.routing.disabled.has(provider) || !configured || baseUrl === undefined
        ? null
        : { apiType: route?.apiType ?? apiTypeOf(provider), baseUrl };
    return { providerId: provider, supported: routable ? [routable] : [], required: false, current };
  });
  return { providers };
}

export function setProvider(services: ProviderServices, params: acp.SetProviderRequest): acp.SetProviderResponse {
  const { providerId, apiType, baseUrl } = params;
  if (!isProvider(providerId))
    throw wireError.invalidParams({ providerId }, `unknown provider "${providerId}" (see providers/list)`);
  const protocol = routableProtocol(providerId);
  if (!protocol)
    throw wireError.invalidParams(
      { providerId },
      `${providerId} cannot be sent to another endpoint (it supports no apiType)`,
    );
  if (apiType !== protocol)
    throw wireError.invalidParams({ apiType }, `${providerId} speaks "${protocol}", not "${apiType}"`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw wireError.invalidParams({ baseUrl }, `baseUrl is not a URL: "${baseUrl.slice(0, 200)}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw wireError.invalidParams({ baseUrl }, "baseUrl must be an http(s) URL");
  services.models.route(providerId, { apiType, baseUrl, headers: { ...params.headers } });
  return {};
}

/** Turning off a provider we do not know succeeds: there is nothing left to use. */
export function disableProvider(
  services: ProviderServices,
  params: acp.DisableProviderRequest,
): acp.DisableProviderResponse {
  if (isProvider(params.providerId)) services.models.disable(params.providerId);
  return {};
}

/**
 * Whether a session can start without signing in, and the credentials configured, for display:
 * which provider and where its credential comes from, never the credential itself.
 */
export async function authStatus(services: ProviderServices): Promise<acp.AuthStatusResponse> {
  const { models } = services;
  const [stored, resolved] = await Promise.all([models.storedCredentials(), models.resolveDefault()]);
  const active = "error" in resolved ? undefined : resolved.provider;
  const accounts: acp.AuthAccount[] = [];
  for (const provider of PROVIDER_NAMES) {
    if (models.routing.disabled.has(provider)) continue;
    const settings = providerSettings(provider, services.env, stored, models.routing.routes.get(provider));
    if (!settings.usable && provider !== active) continue;
    accounts.push({ label: accountLabel(provider, settings.sources), active: provider === active });
  }
  if (active === undefined) return { state: "unauthenticated", accounts };
  const keyless = !PROVIDERS[active].keyRequired || active === "vertex" || active === "bedrock";
  return { state: keyless ? "not_required" : "authenticated", accounts };
}

function accountLabel(provider: ProviderName, sources: { apiKey?: string; baseUrl?: string }): string {
  const { label } = PROVIDERS[provider];
  if (sources.baseUrl === "editor") return `${label} through the editor's gateway`;
  if (sources.apiKey === "stored") return `${label} API key (deep-acp login)`;
  if (sources.apiKey) return `${label} API key (${sources.apiKey})`;
  if (sources.baseUrl) return `${label} server (${sources.baseUrl})`;
  return label;
}

/**
 * The v1 wiring. `notifyAuthStatus` sends auth/status_update when the status differs from the last
 * one sent on this connection (after providers/set and /disable here; after authenticate and
 * logout from auth-handlers.ts).
 */
export function registerProviderHandlers(app: acp.AgentApp, services: ProviderServices) {
  let lastSent: string | undefined;
  const notifyAuthStatus = async (client: acp.AgentContext): Promise<void> => {
    const status = await authStatus(services);
    const key = JSON.stringify(status);
    if (key === lastSent) return;
    lastSent = key;
    await client.notify(acp.methods.client.auth.statusUpdate, status);
  };
  const registered = app
    .onRequest(acp.methods.agent.auth.status, async () => {
      const status = await authStatus(services);
      lastSent = JSON.stringify(status);
      return status;
    })
    .onRequest(acp.methods.agent.providers.list, () => listProviders(services))
    .onRequest(acp.methods.agent.providers.set, ({ params, client }) => {
      const response = setProvider(services, params);
      void notifyAuthStatus(client).catch(() => undefined);
      return response;
    })
    .onRequest(acp.methods.agent.providers.disable, ({ params, client }) => {
      const response = disableProvider(services, params);
      void notifyAuthStatus(client).catch(() => undefined);
      return response;
    });
  return { app: registered, notifyAuthStatus };
}
