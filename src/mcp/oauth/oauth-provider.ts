// The SDK's OAuthClientProvider over our token file. The SDK's `auth()` does discovery (RFC 9728
// + RFC 8414), dynamic client registration, PKCE S256, code exchange and refresh; this object only
// stores what it produces and decides what "go to the browser" means:
// - login mode (`deep-acp mcp login`): open the authorization URL;
// - connect mode (sessions): never open anything; record that a login is needed, so the server
//   becomes `unauthenticated` instead of popping a browser in the middle of an editor session.

import { randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpTokenStore } from "./oauth-store.js";

export type OAuthProviderOptions = {
  store: McpTokenStore;
  mode: "login" | "connect";
  /** Loopback callback of `mcp login`; connect mode uses a fixed placeholder that is never served. */
  redirectUrl: string;
  /** login mode: shows the authorization URL to the user. */
  openUrl?: (url: string) => void | Promise<void>;
  /** Default: "deep-acp". */
  clientName?: string;
};

export interface DeepAcpOAuthProvider extends OAuthClientProvider {
  /** Set when the flow wanted a browser round trip (connect mode: the user must log in). */
  readonly loginRequired: boolean;
  /** The `state` sent with the last authorization request, checked on the callback. */
  readonly lastState: string | undefined;
}

export const CONNECT_MODE_REDIRECT = "http://127.0.0.1/deep-acp/oauth/callback";

export function createOAuthProvider(options: OAuthProviderOptions): DeepAcpOAuthProvider {
  let verifier: string | undefined;
  let lastState: string | undefined;
  let loginRequired = false;
  const metadata: OAuthClientMetadata = {
    client_name: options.clientName ?? "deep-acp",
    redirect_uris: [options.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };

  const provider: DeepAcpOAuthProvider = {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata() {
      return metadata;
    },
    get loginRequired() {
      return loginRequired;
    },
    get lastState() {
      return lastState;
    },
    state() {
      lastState = randomBytes(16).toString("base64url");
      return lastState;
    },
    async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
      const stored = await options.store.load();
      const client = stored?.client;
      if (!client) return undefined;
      // A registration made for another redirect URI (an earlier login's port) cannot complete a
      // new login; register again. Refresh does not use the redirect URI, so connect mode keeps it.
      const uris = (client as { redirect_uris?: string[] }).redirect_uris;
      if (options.mode === "login" && Array.isArray(uris) && !uris.includes(options.redirectUrl)) return undefined;
      return client;
    },
    async saveClientInformation(client: OAuthClientInformationMixed) {
      await options.store.update({ client });
    },
    async tokens(): Promise<OAuthTokens | undefined> {
      // A login starts from scratch: refreshing the stored tokens would skip the browser.
      if (options.mode === "login") return undefined;
      return (await options.store.load())?.tokens;
    },
    async saveTokens(tokens: OAuthTokens) {
      loginRequired = false;
      await options.store.update({ tokens });
    },
    async redirectToAuthorization(url: URL) {
      loginRequired = true;
      if (options.mode === "login") await options.openUrl?.(url.toString());
    },
    saveCodeVerifier(codeVerifier: string) {
      verifier = codeVerifier;
    },
    codeVerifier() {
      if (!verifier) throw new Error("no PKCE code verifier: the authorization was not started by this login");
      return verifier;
    },
    async invalidateCredentials(scope) {
      if (scope === "verifier") verifier = undefined;
      if (scope === "tokens" || scope === "all") await options.store.clearTokens();
      if (scope === "client" || scope === "all") await options.store.update({ client: undefined });
    },
  };
  return provider;
}
