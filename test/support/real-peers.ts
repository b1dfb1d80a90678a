// The real agents from npm (installed in test/clients/ by `npm run clients`, run with its Node >= 22)
// as [agents.NAME] of the parent's config, each pointed at the peers suite's fake model through its
// own base-URL setting.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { PeerSuite } from "./peer-suite.js";
import { clientNode } from "./test-clients.js";

const CLIENTS = resolve(import.meta.dirname, "..", "clients", "node_modules");
const toml = (value: unknown) => JSON.stringify(value);

/** The installed bin script of `pkg`, or undefined. */
export function bin(pkg: string, name: string): string | undefined {
  const manifest = join(CLIENTS, pkg, "package.json");
  if (!existsSync(manifest)) return undefined;
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: Record<string, string> };
  return bin?.[name] ? join(CLIENTS, pkg, bin[name]) : undefined;
}

/** Why a real agent's tests are skipped, or undefined when they can run. */
export function missing(pkg: string, name: string): string | undefined {
  if (!clientNode()) return `${pkg} needs Node >= 22: set DEEP_ACP_CLIENT_NODE`;
  if (!bin(pkg, name)) return `${pkg} is not installed: run npm run clients`;
  return undefined;
}

/** `[agents.NAME]` running `script` under the clients' Node. */
export function agentConfig(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  extra = "",
): string {
  const envToml = Object.entries(env)
    .map(([k, v]) => `${k} = ${toml(v)}`)
    .join(", ");
  return `[agents.${name}]\ncommand = ${toml(clientNode())}\nargs = ${toml([script, ...args])}\nenv = { ${envToml} }\ntimeout_seconds = 90\n${extra}`;
}

/** Gemini CLI (`--experimental-acp`) on the fake model through GOOGLE_GEMINI_BASE_URL, in a HOME of the test's own. */
export async function geminiAgent(suite: PeerSuite): Promise<string> {
  const home = join(suite.dir, "gemini-home");
  await mkdir(join(home, ".gemini"), { recursive: true });
  // API-key sign-in, no telemetry, no update checks: nothing leaves the machine but the fake model's requests.
  await writeFile(
    join(home, ".gemini", "settings.json"),
    JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  );
  const env = { HOME: home, GEMINI_API_KEY: "k", GOOGLE_GEMINI_BASE_URL: suite.childModel.origin };
  return agentConfig(
    "gemini",
    bin("@google/gemini-cli", "gemini")!,
    ["--experimental-acp"],
    env,
    'auth_method = "gemini-api-key"\n',
  );
}

/** claude-agent-acp on the fake model (its Anthropic API), in a HOME of the test's own. */
export async function claudeAgent(suite: PeerSuite, extra = ""): Promise<string> {
  const env = {
    HOME: join(suite.dir, "claude-home"),
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: suite.childModel.anthropicBaseUrl,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
  };
  await mkdir(env.HOME, { recursive: true });
  return agentConfig("claude", bin("@agentclientprotocol/claude-agent-acp", "claude-agent-acp")!, [], env, extra);
}

/**
 * codex-acp on the fake model: its base URL comes from a model provider of its config.toml
 * (OPENAI_BASE_URL is not read); `settings` are more lines of that config.toml.
 */
export async function codexAgent(suite: PeerSuite, settings: string[] = []): Promise<string> {
  const home = join(suite.dir, "codex-home");
  await mkdir(home, { recursive: true });
  await writeFile(
    join(home, "config.toml"),
    [
      'model_provider = "fake"',
      'model = "gpt-5"',
      ...settings,
      "[model_providers.fake]",
      'name = "fake"',
      `base_url = ${toml(suite.childModel.openaiBaseUrl)}`,
      'env_key = "OPENAI_API_KEY"',
      'wire_api = "responses"',
    ].join("\n"),
  );
  const env = { HOME: home, CODEX_HOME: home, OPENAI_API_KEY: "k" };
  return agentConfig(
    "codex",
    bin("@zed-industries/codex-acp", "codex-acp")!,
    [],
    env,
    'auth_method = "openai-api-key"\n',
  );
}
