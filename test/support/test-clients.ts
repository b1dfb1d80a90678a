// The ACP clients of test/clients/ (acpx), which need Node >= 22.13: they are installed and run with
// such a Node, whichever Node runs deep-acp and the tests. `npm run clients` installs them; .ci/run
// does it and names the Node in DEEP_ACP_CLIENT_NODE. Tests that drive them skip, saying why, when
// either is missing.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const CLIENTS = resolve(import.meta.dirname, "..", "clients");

const atLeast = (version: string, major: number, minor: number) => {
  const [a = 0, b = 0] = version.replace(/^v/, "").split(".").map(Number);
  return a > major || (a === major && b >= minor);
};

/** A Node that runs the clients: DEEP_ACP_CLIENT_NODE, else this Node when it is new enough. */
export function clientNode(): string | undefined {
  const named = process.env.DEEP_ACP_CLIENT_NODE;
  if (named) return named;
  return atLeast(process.version, 22, 13) ? process.execPath : undefined;
}

/** The script of an installed client's bin (run it with clientNode()), or undefined. */
export function clientBin(name: string): string | undefined {
  const dir = join(CLIENTS, "node_modules", name);
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return undefined;
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: string | Record<string, string> };
  const script = typeof bin === "string" ? bin : bin?.[name];
  return script ? join(dir, script) : undefined;
}

/** Why a test of `name` cannot run here, or undefined when it can. */
export function clientMissing(name: string): string | undefined {
  if (!clientNode()) return `${name} needs Node >= 22.13: set DEEP_ACP_CLIENT_NODE to one`;
  if (!clientBin(name)) return `${name} is not installed: run npm run clients`;
  return undefined;
}
