// OAuth state of one remote server, in <stateDir>/mcp-tokens/<server>-<sha256(url)[:16]>.json.
// The URL hash keeps a dev and a prod server of the same name apart. Files are 0600 in a 0700
// directory and replaced atomically, so a crash mid-refresh never leaves a torn token file.

import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { ensurePrivateDir, writeFileAtomic } from "../../util/atomic-file.js";
import { sha256Hex } from "../config/fingerprint.js";

export type StoredOAuthState = {
  server: string;
  url: string;
  tokens?: OAuthTokens;
  /** When `tokens` were saved; with `expires_in` this tells when the access token expires. */
  savedAt?: string;
  /** Dynamic client registration result, reused for refresh and later logins. */
  client?: OAuthClientInformationMixed;
};

export interface McpTokenStore {
  readonly path: string;
  load(): Promise<StoredOAuthState | null>;
  /** Merges `patch` into the stored state (creating the file). */
  update(patch: Partial<Omit<StoredOAuthState, "server" | "url">>): Promise<void>;
  /** Drops the tokens but keeps the client registration. */
  clearTokens(): Promise<void>;
  /** Deletes the file; true when there was one. */
  remove(): Promise<boolean>;
}

export type McpTokenStoreOptions = {
  stateDir: string;
  server: string;
  /** The server URL after `${VAR}` expansion. */
  url: string;
  /** Default: () => new Date(). */
  now?: () => Date;
};

export function tokenDirectory(stateDir: string): string {
  return join(stateDir, "mcp-tokens");
}

export function tokenFilePath(stateDir: string, server: string, url: string): string {
  return join(tokenDirectory(stateDir), `${server}-${sha256Hex(url).slice(0, 16)}.json`);
}

export function createMcpTokenStore(options: McpTokenStoreOptions): McpTokenStore {
  const path = tokenFilePath(options.stateDir, options.server, options.url);
  const now = options.now ?? (() => new Date());
  let queue: Promise<unknown> = Promise.resolve();

  async function load(): Promise<StoredOAuthState | null> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as StoredOAuthState;
      return typeof parsed === "object" && parsed !== null ? parsed : null;
    } catch {
      // A corrupt token file is as good as none: the user logs in again.
      return null;
    }
  }

  function write(change: (state: StoredOAuthState) => StoredOAuthState): Promise<void> {
    const run = queue.then(async () => {
      const current = (await load()) ?? { server: options.server, url: options.url };
      const next = change({ ...current, server: options.server, url: options.url });
      await ensurePrivateDir(tokenDirectory(options.stateDir));
      await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
    });
    queue = run.catch(() => undefined);
    return run;
  }

  return {
    path,
    load,
    update: (patch) =>
      write((state) => {
        const next = { ...state, ...patch };
        if (patch.tokens) next.savedAt = now().toISOString();
        return next;
      }),
    clearTokens: () =>
      write((state) => {
        const { tokens: _tokens, savedAt: _savedAt, ...rest } = state;
        return rest;
      }),
    async remove() {
      try {
        await readFile(path);
      } catch {
        return false;
      }
      await rm(path, { force: true });
      return true;
    },
  };
}
