// The loopback redirect target of `deep-acp mcp login` (RFC 8252 §7.3): an HTTP server on
// 127.0.0.1 with a random port that waits for the authorization server to send the browser back.

import { createServer, type Server } from "node:http";

export type AuthorizationCallback = { code: string; state: string | null };

export interface RedirectListener {
  /** `http://127.0.0.1:<port>/callback` */
  readonly url: string;
  /** Resolves with the first callback carrying a code; rejects on an `error` callback, timeout or abort. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<AuthorizationCallback>;
  close(): Promise<void>;
}

export class OAuthCallbackError extends Error {
  override name = "OAuthCallbackError";
}

const PAGE = (title: string, body: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${body}</p></body>`;

export async function startRedirectListener(): Promise<RedirectListener> {
  let settle: { resolve(value: AuthorizationCallback): void; reject(error: Error): void } | undefined;
  let early: AuthorizationCallback | Error | undefined;
  const deliver = (outcome: AuthorizationCallback | Error) => {
    if (!settle) {
      early ??= outcome;
      return;
    }
    if (outcome instanceof Error) settle.reject(outcome);
    else settle.resolve(outcome);
    settle = undefined;
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const error = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    res.setHeader("content-type", "text/html; charset=utf-8");
    if (error) {
      const description = url.searchParams.get("error_description");
      res.writeHead(400).end(PAGE("Login failed", escapeHtml(description ?? error)));
      deliver(new OAuthCallbackError(`authorization failed: ${error}${description ? ` (${description})` : ""}`));
      return;
    }
    if (!code) {
      res.writeHead(400).end(PAGE("Login failed", "The authorization server sent no code."));
      return;
    }
    res.writeHead(200).end(PAGE("Logged in", "deep-acp received the authorization. You can close this tab."));
    deliver({ code, state: url.searchParams.get("state") });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}/callback`,
    wait(timeoutMs, signal) {
      return new Promise<AuthorizationCallback>((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new OAuthCallbackError(`no authorization received within ${Math.round(timeoutMs / 1000)}s`)),
          timeoutMs,
        );
        const onAbort = () => finish(new OAuthCallbackError("login cancelled"));
        const finish = (outcome: AuthorizationCallback | Error) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          settle = undefined;
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        if (early) return finish(early);
        settle = { resolve: finish, reject: finish };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
