import { parseArgs, type ParseArgsConfig } from "node:util";
import { parseRemoteUrl } from "../../backends/ssh/ssh-target.js";
import { isContainerUrl, parseContainerUrl } from "../../backends/container/container-url.js";

export type CliOptions = {
  command: string[];
  prompt?: string;
  model?: string;
  agent: string;
  mcpConfig?: string;
  noMcp: boolean;
  trustProjectMcp: boolean;
  trustProjectHooks: boolean;
  sandbox?: "none" | "bwrap";
  /** ssh://[user@]host[:port]/abs/path */
  remote?: string;
  trustRemoteHost: boolean;
  /** Build and start the project's dev container without asking (this run). */
  trustDevContainer: boolean;
  /** ssh://..., docker://IMAGE[?mount=bind], devcontainer[?mount=bind] */
  workspace?: string;
  /** Headless, container copy mode: apply the changes to the host project at the end. */
  apply: boolean;
  yes: boolean;
  /** `--resume` alone = the latest session for this directory (""), `--resume ID` = that one. */
  resume?: string;
  json: boolean;
  project: boolean;
  force: boolean;
  /** setup: print the entry instead of writing it. */
  print: boolean;
  /** setup: show what would be written, write nothing. */
  dryRun: boolean;
  help: boolean;
  version: boolean;
  /** Overrides config.toml [acp] max_message_bytes. */
  maxMessageBytes?: number;
  /** Overrides config.toml [acp] max_json_depth. */
  maxJsonDepth?: number;
};

export class UsageError extends Error {}

// The flags parseArgs accepts (strict: anything else is a usage error).
const CLI_FLAGS = {
  "non-interactive": { type: "string", short: "n" },
  model: { type: "string", short: "m" },
  agent: { type: "string" },
  "mcp-config": { type: "string" },
  "no-mcp": { type: "boolean" },
  "trust-project-mcp": { type: "boolean" },
  "trust-project-hooks": { type: "boolean" },
  sandbox: { type: "string" },
  remote: { type: "string" },
  "trust-remote-host": { type: "boolean" },
  "trust-devcontainer": { type: "boolean" },
  workspace: { type: "string" },
  apply: { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  resume: { type: "string" },
  json: { type: "boolean" },
  project: { type: "boolean" },
  force: { type: "boolean" },
  print: { type: "boolean" },
  "dry-run": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "max-message-bytes": { type: "string" },
  "max-json-depth": { type: "string" },
  version: { type: "boolean", short: "v" },
} as const satisfies ParseArgsConfig["options"];

/** Parses argv (without node and script). Throws UsageError with a message meant for the user. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const parsed = readFlags(argv);
  const v = parsed.values;
  checkFlags(v);
  const agent = v.agent ?? "agent";
  const maxMessageBytes = positiveInteger(v["max-message-bytes"], "--max-message-bytes", 1024);
  const maxJsonDepth = positiveInteger(v["max-json-depth"], "--max-json-depth", 8);
  return {
    command: parsed.positionals,
    prompt: v["non-interactive"],
    model: v.model,
    agent,
    mcpConfig: v["mcp-config"],
    noMcp: v["no-mcp"] ?? false,
    trustProjectMcp: v["trust-project-mcp"] ?? false,
    trustProjectHooks: v["trust-project-hooks"] ?? false,
    sandbox: v.sandbox as CliOptions["sandbox"],
    ...(v.remote !== undefined ? { remote: v.remote } : {}),
    trustRemoteHost: v["trust-remote-host"] ?? false,
    trustDevContainer: v["trust-devcontainer"] ?? false,
    ...(v.workspace !== undefined ? { workspace: v.workspace } : {}),
    apply: v.apply ?? false,
    yes: v.yes ?? false,
    resume: v.resume,
    json: v.json ?? false,
    project: v.project ?? false,
    force: v.force ?? false,
    print: v.print ?? false,
    dryRun: v["dry-run"] ?? false,
    help: v.help ?? false,
    version: v.version ?? false,
    ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
    ...(maxJsonDepth !== undefined ? { maxJsonDepth } : {}),
  };
}

function readFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: normalizeOptionalValues(argv), allowPositionals: true, strict: true, options: CLI_FLAGS });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The checks between flags: values that must parse, flags that exclude or need each other. */
function checkFlags(v: ReturnType<typeof readFlags>["values"]): void {
  if (v["mcp-config"] !== undefined && v["no-mcp"])
    throw new UsageError("--mcp-config and --no-mcp cannot be used together");
  if (v.sandbox !== undefined && v.sandbox !== "none" && v.sandbox !== "bwrap")
    throw new UsageError(`--sandbox must be "none" or "bwrap" (got "${v.sandbox}")`);
  if (v.remote !== undefined) {
    try {
      parseRemoteUrl(v.remote);
    } catch (error) {
      throw new UsageError(`--remote: ${(error as Error).message}`);
    }
  }
  if (v.workspace !== undefined) {
    try {
      if (isContainerUrl(v.workspace)) parseContainerUrl(v.workspace);
      else parseRemoteUrl(v.workspace);
    } catch (error) {
      throw new UsageError(`--workspace: ${(error as Error).message}`);
    }
    if (v.remote !== undefined) throw new UsageError("--workspace and --remote cannot be used together");
  }
  if (v.apply && v["non-interactive"] === undefined) throw new UsageError("--apply is for -n (headless) runs");
  const agent = v.agent ?? "agent";
  if (!/^[A-Za-z0-9_-]+$/.test(agent))
    throw new UsageError(`--agent must be letters, digits, "-" or "_" (got "${agent}")`);
  if (v["non-interactive"] !== undefined && v["non-interactive"].trim() === "")
    throw new UsageError("-n needs a prompt");
}

function positiveInteger(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${flag} must be a whole number of at least ${min} (got "${value}")`);
  return n;
}

/** `--resume` may stand alone; give it an explicit empty value so parseArgs accepts it. */
function normalizeOptionalValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (arg === "--resume" && (next === undefined || next.startsWith("-"))) out.push("--resume=");
    else out.push(arg);
  }
  return out;
}

export const HELP = `deep-acp — a coding agent for editors, over the Agent Client Protocol (ACP v1) on stdio

Usage:
  deep-acp                         serve ACP on stdio (what editors launch)
  deep-acp -n "PROMPT" [--yes]     run one turn in the current directory; answer on stdout
           [--resume [ID]]         ...continuing the latest (or the given) session of this directory
  deep-acp sessions list [--json] [--project] | show ID | delete ID
  deep-acp workspaces list [--json] | rm ID
                                   the session containers, with their unapplied changes, and the
                                   images built from dev containers (rm takes either)
  deep-acp login                   store a model API key (~/.deepagents/.state/credentials.json)
  deep-acp logout                  delete the stored key
  deep-acp doctor [--json]         what was found, what loaded, what is broken (exit 1 if anything is)
  deep-acp setup zed|jetbrains|vscode|neovim|emacs [--print] [--dry-run]
                                   add this installation to an editor's settings (backup kept)
  deep-acp mcp list | login NAME | logout NAME
  deep-acp skills list | info NAME | create NAME [--project] | delete NAME --force
  deep-acp plugins add SOURCE | list | enable ID --force | disable ID | remove ID
  deep-acp --version | --help

Options:
  --model PROVIDER:MODEL    anthropic:, openai:, openai-compatible:, ollama: (default: DEEP_ACP_MODEL,
                            then config.toml [model].default, then the first provider with a key)
  --agent NAME              agent name for memory, skills and subagents (default "agent")
  --mcp-config PATH         highest-priority MCP config file (not with --no-mcp)
  --no-mcp                  disable every MCP server
  --trust-project-mcp       run the project's MCP servers without asking (this run only)
  --trust-project-hooks     run the project's hooks without asking (this run only)
  --sandbox none|bwrap      run shell commands inside bubblewrap
  --remote ssh://[user@]host[:port]/abs/path
                            work on a remote workspace: files over SFTP, commands over SSH
                            (~/.ssh/config aliases, ssh-agent and identity files are used)
  --trust-remote-host       accept the remote's host key when known_hosts does not have it (this run)
  --workspace URL           where sessions work: ssh://..., docker://IMAGE (a copy of the project in a
                            container; ?mount=bind mounts it instead), devcontainer[?mount=bind]
                            (.devcontainer/devcontainer.json); DOCKER_HOST names the engine
  --trust-devcontainer      build and start the project's dev container without asking (this run;
                            headless runs need it unless an editor's "Always" approved it)
  --apply                   with -n and a copy-mode container: apply its changes to the project at the end
  -y, --yes                 headless: approve everything that would ask
  --max-message-bytes N     longest ACP line accepted (default 33554432; config [acp] max_message_bytes)
  --max-json-depth N        deepest JSON nesting accepted (default 256; config [acp] max_json_depth)

Environment:
  DEEP_ACP_MODEL; ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL; OPENAI_API_KEY, OPENAI_BASE_URL;
  OPENAI_COMPATIBLE_BASE_URL, OPENAI_COMPATIBLE_API_KEY, OPENAI_COMPATIBLE_MODEL; OLLAMA_BASE_URL;
  GOOGLE_API_KEY or GEMINI_API_KEY, GOOGLE_BASE_URL; vertex: GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION,
  GOOGLE_APPLICATION_CREDENTIALS; bedrock: the AWS credential chain, AWS_REGION,
  AWS_ENDPOINT_URL_BEDROCK_RUNTIME; AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY or AZURE_OPENAI_AD_TOKEN,
  AZURE_OPENAI_DEPLOYMENT, AZURE_OPENAI_API_VERSION; OPENROUTER_API_KEY, GROQ_API_KEY, MISTRAL_API_KEY,
  DEEPSEEK_API_KEY, TOGETHER_API_KEY, LMSTUDIO_BASE_URL, VLLM_BASE_URL (deep-acp doctor lists them all),
  DEEP_ACP_LOG=debug|info|warn|error (logs go to stderr)
`;
