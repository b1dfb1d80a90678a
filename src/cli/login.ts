import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { userPaths } from "../config/paths.js";
import type { StoredCredentials } from "../model/credentials.js";
import { writeFileAtomic } from "../util/atomic-file.js";
import { errorMessage } from "../util/errors.js";
import type { CliOptions } from "./args.js";

type Provider = "anthropic" | "openai" | "openai-compatible";

export type LoginIo = {
  /** Reads one line; `secret` lines are not echoed on a terminal. */
  ask(question: string, secret?: boolean): Promise<string>;
  say(text: string): void;
  fetch: typeof fetch;
};

export function credentialsPath(home?: string): string {
  return join(userPaths("agent", home).stateDir, "credentials.json");
}

/** `deep-acp login`: pick a provider, enter a key (not echoed), check it, store it 0600. */
export async function runLogin(_cli: CliOptions, io: LoginIo = terminalIo(), home?: string): Promise<number> {
  const choice = (await io.ask("Provider [anthropic | openai | openai-compatible] (anthropic): ")).trim() || "anthropic";
  if (choice !== "anthropic" && choice !== "openai" && choice !== "openai-compatible") {
    io.say(`Unknown provider "${choice}".\n`);
    return 1;
  }
  const provider: Provider = choice;
  let baseUrl: string | undefined;
  let model: string | undefined;
  if (provider === "openai-compatible") {
    baseUrl = (await io.ask("Server URL (e.g. http://127.0.0.1:8000/v1): ")).trim();
    model = (await io.ask("Model name: ")).trim() || undefined;
    if (!baseUrl) {
      io.say("A server URL is required.\n");
      return 1;
    }
  }
  const apiKey = (await io.ask(provider === "openai-compatible" ? "API key (empty for none): " : "API key: ", true)).trim();
  if (!apiKey && provider !== "openai-compatible") {
    io.say("No key entered; nothing stored.\n");
    return 1;
  }
  const check = await checkKey(provider, apiKey, baseUrl, io.fetch);
  if (check === "rejected") {
    io.say("The provider rejected this key; nothing stored.\n");
    return 1;
  }
  if (check !== "ok") io.say(`Could not verify the key (${check}); storing it anyway.\n`);

  const path = credentialsPath(home);
  const current = await readCredentials(path);
  const next: StoredCredentials = { ...current };
  if (provider === "openai-compatible") next["openai-compatible"] = { baseUrl: baseUrl!, ...(apiKey ? { apiKey } : {}), ...(model ? { model } : {}) };
  else next[provider] = { apiKey };
  await writeFileAtomic(path, JSON.stringify(next, null, 2) + "\n");
  io.say(`Stored the ${provider} key in ${path}. Environment variables still take precedence.\n`);
  return 0;
}

export async function runLogout(_cli: CliOptions, io: Pick<LoginIo, "say"> = terminalIo(), home?: string): Promise<number> {
  const path = credentialsPath(home);
  await rm(path, { force: true });
  io.say(`Removed ${path}.\n`);
  return 0;
}

async function readCredentials(path: string): Promise<StoredCredentials> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as StoredCredentials;
  } catch {
    return {};
  }
}

/** One cheap authenticated request (list models). */
async function checkKey(provider: Provider, apiKey: string, baseUrl: string | undefined, fetchImpl: typeof fetch): Promise<"ok" | "rejected" | string> {
  const url =
    provider === "anthropic"
      ? `${(process.env.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com").replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/models`
      : provider === "openai"
        ? `${(process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/models`
        : `${baseUrl!.replace(/\/+$/, "")}/models`;
  const headers: Record<string, string> =
    provider === "anthropic" ? { "x-api-key": apiKey, "anthropic-version": "2023-06-01" } : apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  try {
    const response = await fetchImpl(url, { headers, signal: AbortSignal.timeout(10_000) });
    if (response.status === 401 || response.status === 403) return "rejected";
    return response.ok ? "ok" : `HTTP ${response.status}`;
  } catch (error) {
    return errorMessage(error);
  }
}

function terminalIo(): LoginIo {
  return {
    say: (text) => void process.stderr.write(text),
    fetch: globalThis.fetch,
    ask: (question, secret = false) => askLine(question, secret),
  };
}

function askLine(question: string, secret: boolean): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true });
    if (secret && process.stdin.isTTY) {
      // Mute the echo of the typed key; readline still handles editing keys.
      const writable = rl as unknown as { _writeToOutput: (s: string) => void };
      writable._writeToOutput = (s: string) => {
        if (s.startsWith(question)) process.stderr.write(question);
      };
    }
    rl.question(question, (answer) => {
      if (secret && process.stdin.isTTY) process.stderr.write("\n");
      rl.close();
      resolve(answer);
    });
  });
}
