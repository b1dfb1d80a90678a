// Default `openUrl` for `deep-acp mcp login`: always print the URL (the browser may be on another
// machine, or no opener is installed), then try the platform's opener without waiting for it.

import { spawn as nodeSpawn } from "node:child_process";
import { withoutSecrets } from "../util/secret-env.js";
import type { SpawnFunction } from "./servers/stdio-transport.js";

export type OpenUrlOptions = {
  /** Default: process.stderr.write (stdout may carry protocol or machine-readable output). */
  write?: (text: string) => void;
  /** Default: child_process.spawn. */
  spawn?: SpawnFunction;
  /** Default: process.platform. */
  platform?: NodeJS.Platform;
};

export function createUrlOpener(options: OpenUrlOptions = {}): (url: string) => void {
  const write = options.write ?? ((text: string) => void process.stderr.write(text));
  const spawn = options.spawn ?? (nodeSpawn as SpawnFunction);
  const platform = options.platform ?? process.platform;
  return (url) => {
    write(`Open this URL in your browser to log in:\n\n  ${url}\n\n`);
    const [command, args] =
      platform === "darwin"
        ? ["open", [url]]
        : platform === "win32"
          ? ["cmd", ["/c", "start", "", url]]
          : ["xdg-open", [url]];
    try {
      // A browser started for the user: their environment, minus secrets.
      const child = spawn(command, args as string[], {
        stdio: "ignore",
        detached: true,
        env: withoutSecrets(process.env),
      });
      child.on("error", () => undefined);
      child.unref();
    } catch {
      // The printed URL is enough.
    }
  };
}
