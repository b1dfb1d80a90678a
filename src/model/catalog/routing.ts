import type { ProviderName } from "../types.js";
import { PROVIDERS } from "./providers.js";

// Where the editor sends a provider's requests for the life of this process (ACP providers/set and
// providers/disable): a gateway URL with the headers it needs, or off. Never written to disk (the
// custom-LLM-endpoint RFD: per process); environment variables and `deep-acp login` are untouched.

export type ProviderRoute = {
  /** The wire protocol the gateway speaks (ACP LlmProtocol); one of `routableProtocol(provider)`. */
  apiType: string;
  baseUrl: string;
  /** Sent with every request; may carry the credential (see authHeaderOf). */
  headers: Readonly<Record<string, string>>;
};

export type ProviderRouting = {
  readonly routes: ReadonlyMap<ProviderName, ProviderRoute>;
  readonly disabled: ReadonlySet<ProviderName>;
};

export const NO_ROUTING: ProviderRouting = { routes: new Map(), disabled: new Set() };

/** The protocol a provider's requests can be rerouted in, if any (ProviderInfo.reroutable). */
export function routableProtocol(provider: ProviderName): "anthropic" | "openai" | undefined {
  return PROVIDERS[provider].reroutable;
}

/** The header of `headers` that authenticates to a gateway of `protocol`, if the editor gave one. */
export function authHeaderOf(
  protocol: "anthropic" | "openai",
  headers: Readonly<Record<string, string>>,
): { name: string; value: string } | undefined {
  const names = protocol === "anthropic" ? ["x-api-key", "authorization"] : ["authorization", "api-key"];
  for (const [name, value] of Object.entries(headers)) {
    if (names.includes(name.toLowerCase()) && value.trim() !== "") return { name, value };
  }
  return undefined;
}
