import { thoughtOptions, type ThoughtLevel } from "../catalog/thought-level.js";
import { readJsonObjectFile } from "../../util/json-file.js";
import {
  createModelClient,
  listModelChoices,
  resolveModelSpec,
  type ModelChoice,
  type ResolvedModelSpec,
  type StoredCredentials,
} from "./resolve.js";
import { providerSettings } from "../catalog/credentials.js";
import { createFallbackClient } from "./fallback.js";
import { parseModelSpec } from "../catalog/spec.js";
import { PROVIDER_NAMES, type ModelClient, type ProviderName } from "../types.js";
import type { ProviderRoute, ProviderRouting } from "../catalog/routing.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { Logger } from "../../util/logger.js";

/** Model selection for sessions: which model is the default, what the picker offers, and clients. */
export interface ModelService {
  /** The default `provider:model` and where it came from, or why there is none. */
  resolveDefault(): Promise<ResolvedModelSpec | { error: string }>;
  choices(current?: string): Promise<ModelChoice[]>;
  /** A client for `spec` (thinking at `thoughtLevel` where the model has levels); throws ModelConfigError when it cannot be used. */
  create(spec: string, thoughtLevel?: ThoughtLevel): Promise<ModelClient>;
  /** Re-reads stored credentials (after `deep-acp login` / ACP authenticate). */
  reload(): Promise<void>;
  /**
   * Providers the user set up: a key, token or base URL in the environment or stored by `deep-acp
   * login`, routed by the editor (providers/set), or named by --model, DEEP_ACP_MODEL or config.toml ([model] default, options, fallbacks); never one the editor disabled.
   */
  configuredProviders(): Promise<ReadonlySet<ProviderName>>;
  /** Where the editor routes providers for this process (providers/set, providers/disable). */
  readonly routing: ProviderRouting;
  /** Sends `provider`'s requests to the editor's gateway (or, with undefined, back to its own endpoint). */
  route(provider: ProviderName, route: ProviderRoute | undefined): void;
  /** Turns `provider` off for this process: not picked, not listed, not usable. */
  disable(provider: ProviderName): void;
  /** Stored credentials as last read (for the editor's views of providers and accounts). */
  storedCredentials(): Promise<StoredCredentials>;
}

export type ModelServiceOptions = {
  env: NodeJS.ProcessEnv;
  /** `--model` flag. */
  flag?: string;
  /** `deep-acp login`'s credentials file (UserPaths.credentialsFile). */
  credentialsFile: string;
  config: () => Promise<{ config: DeepAcpConfig }>;
  logger: Logger;
  /** Injectable for tests; default reads `credentialsFile`. */
  readCredentials?: () => Promise<StoredCredentials>;
};

export function createModelService(options: ModelServiceOptions): ModelService {
  const readCredentials = options.readCredentials ?? (() => readCredentialsFile(options.credentialsFile));
  let credentials: Promise<StoredCredentials> | undefined;
  const clients = new Map<string, Promise<ModelClient>>();
  const loadCredentials = () => (credentials ??= readCredentials().catch(() => ({})));
  const routes = new Map<ProviderName, ProviderRoute>();
  const disabled = new Set<ProviderName>();
  const routing: ProviderRouting = { routes, disabled };

  return {
    async resolveDefault() {
      const [{ config }, stored] = await Promise.all([options.config(), loadCredentials()]);
      return resolveModelSpec({
        flag: options.flag,
        env: options.env,
        configDefault: config.model.default,
        credentials: stored,
        routing,
      });
    },
    async choices(current) {
      const [{ config }, stored] = await Promise.all([options.config(), loadCredentials()]);
      return listModelChoices({
        env: options.env,
        credentials: stored,
        configOptions: config.model.options,
        current,
        catalog: config.model.catalog,
        routing,
      });
    },
    create(spec, thoughtLevel) {
      const key = thoughtLevel ? `${spec}#${thoughtLevel}` : spec;
      let client = clients.get(key);
      if (!client) {
        client = (async () => {
          const [{ config }, stored] = await Promise.all([options.config(), loadCredentials()]);
          const clientOptions = {
            env: options.env,
            credentials: stored,
            logger: options.logger.child("model"),
            maxOutputTokens: config.model.max_output_tokens,
            contextWindow: config.model.context_window,
            catalog: config.model.catalog,
            routing,
            ...thoughtOptions(thoughtLevel),
          };
          const primary = await createModelClient(spec, clientOptions);
          const fallbacks = config.model.fallbacks.filter(
            (fallback) => fallback.trim() !== spec && fallback.trim() !== primary.id,
          );
          return createFallbackClient(
            primary,
            fallbacks.map((fallback) => ({
              spec: fallback,
              create: memoSuccess(() => createModelClient(fallback, clientOptions)),
            })),
          );
        })();
        // A failure (missing key) must not stick: the user may log in and retry.
        client.catch(() => clients.delete(key));
        clients.set(key, client);
      }
      return client;
    },
    async reload() {
      credentials = undefined;
      clients.clear();
    },
    async configuredProviders() {
      const [{ config }, stored] = (await Promise.all([options.config(), loadCredentials()])) as [
        { config: DeepAcpConfig },
        StoredCredentials,
      ];
      const out = new Set<ProviderName>();
      for (const provider of PROVIDER_NAMES) {
        const settings = providerSettings(provider, options.env, {});
        if (stored[provider] || settings.fromEnv || settings.token) out.add(provider);
      }
      // The Responses API is the OpenAI account's.
      if (out.has("openai")) out.add("openai-responses");
      const named = [
        options.flag,
        options.env.DEEP_ACP_MODEL,
        config.model.default,
        ...config.model.options,
        ...config.model.fallbacks,
      ];
      for (const spec of named) {
        if (!spec) continue;
        try {
          out.add(parseModelSpec(spec).provider);
        } catch {
          // An invalid spec names no provider.
        }
      }
      for (const provider of routes.keys()) out.add(provider);
      for (const provider of disabled) out.delete(provider);
      return out;
    },
    routing,
    route(provider, route) {
      disabled.delete(provider);
      if (route) routes.set(provider, route);
      else routes.delete(provider);
      // Sessions already open keep the client they have; new clients see the route.
      clients.clear();
    },
    disable(provider) {
      routes.delete(provider);
      disabled.add(provider);
      clients.clear();
    },
    storedCredentials: () => loadCredentials(),
  };
}

/** Remembers a built client; a failed build is tried again next time (the user may have logged in since). */
function memoSuccess(create: () => Promise<ModelClient>): () => Promise<ModelClient> {
  let built: ModelClient | undefined;
  return async () => (built ??= await create());
}

/** A missing or broken file means no stored keys here; `deep-acp doctor` says why. */
async function readCredentialsFile(path: string): Promise<StoredCredentials> {
  const found = await readJsonObjectFile(path);
  return found.state === "ok" ? (found.value as StoredCredentials) : {};
}
