import type { McpSource, McpTrustState } from "../../mcp/index.js";
import type { Diagnostic } from "../../util/diagnostics.js";

// The facts `deep-acp doctor` gathers. `--json` prints a DoctorReport as is, so field names here are
// part of the command's machine-readable output: add fields freely, rename only with a note.

/** `missing` is fine for optional files; `invalid` means the file exists but contributed nothing or less than it says. */
export type DoctorFileState = "found" | "missing" | "invalid";

export type DoctorFile = { path: string; state: DoctorFileState; detail?: string };

export type DoctorSectionId =
  "node" | "model" | "config" | "mcp" | "hooks" | "memory" | "skills" | "subagents" | "plugins" | "sandbox" | "remote";

export type DoctorProblem = { section: DoctorSectionId; source: string; message: string };

export type DoctorModelFacts = {
  ok: boolean;
  /** Canonical `provider:model` of the default model, when one could be chosen. */
  spec?: string;
  /** Where the choice came from: `--model flag`, `DEEP_ACP_MODEL`, config.toml, an env var, stored credentials. */
  source?: string;
  /** Where the provider's key (or server URL) comes from; never the value. */
  credential?: string;
  /** A non-default endpoint and the variable or file that set it. */
  endpoint?: string;
  /** Why no model can be used. */
  error?: string;
  /** `~/.deepagents/.state/credentials.json` (written by `deep-acp login`); `providers` lists what it stores. */
  credentialsFile: DoctorFile & { providers: string[] };
  /** Names of the model-related environment variables that are set (values are never reported). */
  env: string[];
  /** Every provider: the variables and files it reads, which variables are set, whether it could be picked without --model (`explicit`: only when named). */
  providers?: Array<{
    name: string;
    label: string;
    reads: string[];
    set: string[];
    stored: boolean;
    usable: boolean;
    explicit: boolean;
    files?: string[];
  }>;
  diagnostics: Diagnostic[];
};

export type DoctorConfigFacts = { file: DoctorFile; diagnostics: Diagnostic[] };

export type DoctorMcpServer = {
  name: string;
  source: McpSource;
  origin: string;
  transport: "stdio" | "http" | "sse" | "invalid";
  /** stdio: the command line as written; http/sse: the URL. Placeholders are left unexpanded. */
  target?: string;
  /** Project servers only: the approval state and why. */
  trust?: { state: McpTrustState; allowed: boolean; reason: string };
  /** Listed in config.toml `[mcp].disabled_servers`. */
  disabled: boolean;
  errors: string[];
  warnings: string[];
};

export type DoctorMcpFacts = {
  /** `--no-mcp`. */
  disabled: boolean;
  /** Lowest priority first: user, project (`.deepagents/.mcp.json`), project-root (`.mcp.json`), flag. */
  files: Array<DoctorFile & { level: McpSource; servers: string[] }>;
  servers: DoctorMcpServer[];
  diagnostics: Diagnostic[];
};

export type DoctorHookFile = DoctorFile & { scope: "user" | "project" | "plugin"; pluginId?: string; handlers: number };

export type DoctorHookTrust = {
  /** `none`: no project hooks to run; `changed`: trusted once, but the file was edited since. */
  status: "none" | "trusted" | "flag" | "untrusted" | "changed";
  file?: string;
  sha256?: string;
  /** What would run, as `Event[matcher]: command`. */
  commands: string[];
};

export type DoctorHooksFacts = { files: DoctorHookFile[]; projectTrust: DoctorHookTrust; diagnostics: Diagnostic[] };

export type DoctorMemoryFacts = {
  /** The AGENTS.md chain in load order: user, then `<root>/.deepagents/AGENTS.md`, then `<root>/AGENTS.md`. */
  files: Array<DoctorFile & { scope: "user" | "project"; bytes?: number }>;
  /** `~/.deepagents/<agent>/memories/` and how many files it holds. */
  memoriesDir: DoctorFile & { entries?: number };
  diagnostics: Diagnostic[];
};

export type DoctorSkillsFacts = {
  dirs: Array<DoctorFile & { scope: string; label: string }>;
  /** Shipped with deep-acp; always available. */
  builtin: string[];
  skills: Array<{ name: string; scope: string; path: string; overrides: string[] }>;
  /** Skills refused until the user approves their symlink target. */
  pendingSymlinks: Array<{ skill: string; link: string; target: string }>;
  diagnostics: Diagnostic[];
};

export type DoctorSubagentsFacts = {
  dirs: Array<DoctorFile & { scope: "user" | "project" }>;
  items: Array<{ name: string; source: "builtin" | "user" | "project"; path?: string; model?: string }>;
  diagnostics: Diagnostic[];
};

export type DoctorPluginsFacts = {
  dir: DoctorFile;
  installed: string[];
  enabled: Array<{
    id: string;
    loaded: boolean;
    version?: string;
    root?: string;
    skills: number;
    mcpServers: number;
    hookFiles: number;
  }>;
  diagnostics: Diagnostic[];
};

export type DoctorSandboxFacts = {
  kind: "none" | "bwrap";
  kindSource: "--sandbox" | "config.toml" | "default";
  bwrap: { ok: boolean; reason?: string };
  diagnostics: Diagnostic[];
};

export type DoctorRemoteFacts = {
  /** Local project roots mapped in config.toml [remote.projects]. */
  mappedProjects: number;
  /** The remote (ssh) or container workspace a session in cwd would use, when there is one. */
  workspace?: {
    /** The place kind's name (place-kinds.ts): "ssh", "container". */
    kind?: string;
    /** The heading of doctor's section ("Remote workspace", "Container workspace"). */
    title?: string;
    url: string;
    source: string;
    ok: boolean;
    summary: string;
  };
  diagnostics: Diagnostic[];
};

export type DoctorNodeFacts = { version: string; required: string; ok: boolean; diagnostics: Diagnostic[] };

export type DoctorReport = {
  /** False when something is broken (then `problems` is not empty and the exit code is 1). */
  ok: boolean;
  version: string;
  cwd: string;
  projectRoot: string;
  home: string;
  agent: string;
  node: DoctorNodeFacts;
  model: DoctorModelFacts;
  config: DoctorConfigFacts;
  mcp: DoctorMcpFacts;
  hooks: DoctorHooksFacts;
  memory: DoctorMemoryFacts;
  skills: DoctorSkillsFacts;
  subagents: DoctorSubagentsFacts;
  plugins: DoctorPluginsFacts;
  sandbox: DoctorSandboxFacts;
  remote: DoctorRemoteFacts;
  /** Every error-severity diagnostic, by section. */
  problems: DoctorProblem[];
  warnings: DoctorProblem[];
};
