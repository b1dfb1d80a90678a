import { z } from "zod";
import type { Diagnostic } from "../util/diagnostics.js";
import { parseCidr } from "../util/cidr.js";

// The schema of ~/.deepagents/config.toml. Every section has defaults, so a missing or broken file
// still yields a usable config; problems (wrong types, unknown keys) become diagnostics. Loaded only
// when there is a file to check (config-file.ts): zod is a third of the code a cold start would load.

const WORKSPACE_URL = /^(ssh:\/\/|docker:\/\/.|devcontainer(\?|$))/;
const WORKSPACE_URL_HINT = "must be ssh://..., docker://IMAGE[?mount=bind] or devcontainer[?mount=bind]";

const permissionRule = z.strictObject({
  operations: z.array(z.enum(["read", "write"])).min(1),
  paths: z.array(z.string().min(1)).min(1),
  mode: z.enum(["allow", "deny", "ask"]).default("allow"),
});
export type FilePermissionRule = z.infer<typeof permissionRule>;

/** `[agents.NAME]`: another ACP agent deep-acp may run as a subagent (src/peers/). User config only. */
const peerAgent = z.strictObject({
  /** The program that speaks ACP on stdio (`gemini`, `claude-agent-acp`, `codex-acp`, `deep-acp`). */
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Laid over deep-acp's own environment for the child process. */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * Variables of deep-acp's own environment the child may have although they look like secrets (its
   * own key, e.g. "GEMINI_API_KEY"): the rest of our keys and tokens never reach it, as with commands.
   */
  pass_env: z.array(z.string().min(1)).default([]),
  /** Shown to the main agent beside the name when it picks a subagent. */
  description: z.string().min(1).optional(),
  /** The child's model: a value of its model config option (session/set_config_option). */
  model: z.string().min(1).optional(),
  /** The child's session mode id (session/set_mode), e.g. "acceptEdits". */
  mode: z.string().min(1).optional(),
  /** An id of the child's `authMethods` to authenticate with after initialize (e.g. "gemini-api-key"). */
  auth_method: z.string().min(1).optional(),
  /** A task that runs longer without the child answering ends with an error (the child is cancelled). */
  timeout_seconds: z.number().positive().default(600),
  /** Pass this session's MCP servers to the child in session/new (it then reaches them itself, not through our gate). */
  pass_mcp_servers: z.boolean().default(false),
  /**
   * Serve the child deep-acp's own write_file, edit_file, read_file and execute (an MCP server) and turn
   * off its built-in change tools, so its edits and commands pass our gate. Unset: on for claude-agent-acp.
   */
  gate_tools: z.boolean().optional(),
});
export type PeerAgentConfig = z.infer<typeof peerAgent>;
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const sections = {
  model: z.strictObject({
    default: z.string().optional(),
    /** Extra `provider:model` entries for the editor's model picker. */
    options: z.array(z.string()).default([]),
    /** `provider:model` entries tried in order when the model is down or rate-limited past its retries. */
    fallbacks: z.array(z.string().min(1)).default([]),
    max_output_tokens: z.number().int().positive().optional(),
    context_window: z.number().int().positive().optional(),
    /** Per-model limits and prices (USD per million tokens), keyed by `provider:model`; override the built-in catalog. */
    catalog: z
      .record(
        z.string(),
        z.strictObject({
          name: z.string().min(1).optional(),
          context_window: z.number().int().positive().optional(),
          max_output_tokens: z.number().int().positive().optional(),
          supports_images: z.boolean().optional(),
          input_price: z.number().nonnegative().optional(),
          output_price: z.number().nonnegative().optional(),
          cache_read_price: z.number().nonnegative().optional(),
          cache_write_price: z.number().nonnegative().optional(),
        }),
      )
      .default({}),
  }),
  agent: z.strictObject({
    /** Model requests per prompt turn before the turn stops with `max_turn_requests`. */
    max_turn_requests: z.number().int().positive().default(200),
  }),
  shell: z.strictObject({
    timeout_seconds: z.number().positive().default(120),
    /** What the editor's tool view shows of a command's output (head and tail) when it has no terminal. */
    output_chars: z.number().int().positive().default(30_000),
    /**
     * Output kept for the model, whole up to this size (head and tail beyond it, to bound memory).
     * Results over [offload] tool_result_chars go to /large_tool_results/, so the model can read all of it.
     */
    capture_chars: z.number().int().positive().default(2_000_000),
    /** Background processes (execute with background: true) running at once per session. */
    max_background_processes: z.number().int().positive().default(8),
    /** Output kept per background process; process_output returns the newest. */
    background_output_chars: z.number().int().positive().default(200_000),
    /** Cloud credentials commands receive (AWS_SECRET_ACCESS_KEY, GOOGLE_APPLICATION_CREDENTIALS, ...); model keys never. */
    pass_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name")).default([]),
  }),
  sandbox: z.strictObject({
    kind: z.enum(["none", "bwrap"]).default("none"),
    network: z.boolean().default(false),
    /** Extra host paths visible read-only inside the sandbox. */
    read_only_paths: z.array(z.string()).default([]),
    /** Extra host paths writable inside the sandbox. */
    writable_paths: z.array(z.string()).default([]),
  }),
  protected: z.strictObject({
    /** Replaces the built-in list of protected paths (globs relative to a root; see docs/configuration.md). */
    paths: z.array(z.string().min(1)).optional(),
    /** Added to the protected paths. */
    extra_paths: z.array(z.string().min(1)).default([]),
  }),
  skills: z.strictObject({
    extra_allowed_dirs: z.array(z.string()).default([]),
  }),
  interpreter: z.strictObject({
    enabled: z.boolean().default(true),
    memory_limit_mb: z.number().positive().default(64),
    max_stack_kb: z.number().positive().default(256),
    timeout_ms: z.number().int().positive().default(5000),
    max_output_chars: z.number().int().positive().default(4000),
    max_tool_calls: z.number().int().positive().default(256),
    /** Tools callable from code as `tools.<name>()`. */
    tools: z.array(z.string()).default(["read_file", "ls", "glob", "grep"]),
    /** Expose Date.now()/new Date() inside the sandbox. */
    allow_clock: z.boolean().default(false),
  }),
  backends: z.strictObject({
    /** Route prefix -> "state" | "store" | "filesystem:<abs dir>". */
    routes: z.record(z.string(), z.string()).default({
      "/large_tool_results/": "state",
      "/conversation_history/": "state",
      "/memories/": "store",
    }),
  }),
  compaction: z.strictObject({
    /** Fraction of the context window that triggers summarization. */
    trigger_fraction: z.number().gt(0).lte(1).default(0.85),
    /** Messages kept verbatim after a summary. */
    keep_messages: z.number().int().nonnegative().default(6),
  }),
  offload: z.strictObject({
    /** Tool results longer than this many characters are saved to /large_tool_results/. */
    tool_result_chars: z.number().int().positive().default(80_000),
  }),
  acp: z.strictObject({
    /** Longest line accepted from the editor; longer ones are refused with -32600 (the connection stays up). */
    max_message_bytes: z
      .number()
      .int()
      .min(1024)
      .default(32 * 1024 * 1024),
    /** Deepest nesting of objects/arrays accepted in one message. */
    max_json_depth: z.number().int().min(8).max(10_000).default(256),
    /** Most JSON values (objects, arrays, array elements and members) in one message; parsing grows with them. */
    max_json_values: z.number().int().min(1000).default(200_000),
    /** Sessions kept loaded; beyond it the least recently used idle ones are unloaded (and reopened on use). */
    max_loaded_sessions: z.number().int().min(1).default(32),
  }),
  cost: z.strictObject({
    /** USD a session may spend on model requests; the turn that reaches it stops. Unset: no limit. */
    max_session_usd: z.number().positive().optional(),
  }),
  plan: z.strictObject({
    /** Save the plan a `plan`-mode turn ends with to ~/.deepagents/plans/<session>.md, for the editor to open. */
    save_file: z.boolean().default(true),
  }),
  web_fetch: z.strictObject({
    enabled: z.boolean().default(true),
    timeout_seconds: z.number().positive().default(30),
    /** Bytes of (decompressed) body read; the rest of a page is cut. */
    max_bytes: z.number().int().positive().default(5_000_000),
    max_redirects: z.number().int().nonnegative().default(5),
    /** CIDRs ("127.0.0.1/32") that may be fetched although loopback, link-local or private. */
    allow_private_networks: z
      .array(z.string().refine((entry) => parseCidr(entry) !== undefined, "must be an IP address or CIDR"))
      .default([]),
  }),
  remote: z.strictObject({
    /** Local project root -> `ssh://[user@]host[:port]/abs/path`: sessions under it work on that remote path. */
    projects: z
      .record(
        z.string().refine((p) => p.startsWith("/"), "must be an absolute local path"),
        z.string().regex(/^ssh:\/\//i, "must be ssh://[user@]host[:port]/abs/path"),
      )
      .default({}),
    connect_timeout_seconds: z.number().positive().default(15),
  }),
  workspace: z.strictObject({
    /** Where sessions work when nothing else says: ssh://..., docker://IMAGE[?mount=bind], devcontainer[?mount=bind]. */
    default: z.string().regex(WORKSPACE_URL, WORKSPACE_URL_HINT).optional(),
    /** Local project root -> workspace URL; the longest matching root wins. */
    projects: z
      .record(
        z.string().refine((p) => p.startsWith("/"), "must be an absolute local path"),
        z.string().regex(WORKSPACE_URL, WORKSPACE_URL_HINT),
      )
      .default({}),
    /** Containers: "none" (default) or "bridge". */
    network: z.enum(["none", "bridge"]).default("none"),
    /** Containers: a memory limit such as "2g" or "512m". */
    memory: z
      .string()
      .regex(/^\d+(\.\d+)?\s*[kmgKMG]?[bB]?$/, 'must look like "2g", "512m" or a number of bytes')
      .optional(),
    /** Containers: CPUs, e.g. 1.5. */
    cpus: z.number().positive().optional(),
  }),
  mcp: z.strictObject({
    disabled_servers: z.array(z.string()).default([]),
    call_timeout_seconds: z.number().positive().default(120),
    connect_timeout_seconds: z.number().positive().default(30),
    /** Variables project MCP servers may read through `${VAR}` (model keys never). */
    project_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name")).default([]),
  }),
  hooks: z.strictObject({
    /** Variables hooks receive beyond the base allowlist (model keys never). */
    pass_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name")).default([]),
  }),
};

const configSchema = z.object({
  model: sections.model.default(sections.model.parse({})),
  agent: sections.agent.default(sections.agent.parse({})),
  shell: sections.shell.default(sections.shell.parse({})),
  permissions: z.array(permissionRule).default([]),
  sandbox: sections.sandbox.default(sections.sandbox.parse({})),
  protected: sections.protected.default(sections.protected.parse({})),
  skills: sections.skills.default(sections.skills.parse({})),
  interpreter: sections.interpreter.default(sections.interpreter.parse({})),
  backends: sections.backends.default(sections.backends.parse({})),
  compaction: sections.compaction.default(sections.compaction.parse({})),
  offload: sections.offload.default(sections.offload.parse({})),
  mcp: sections.mcp.default(sections.mcp.parse({})),
  hooks: sections.hooks.default(sections.hooks.parse({})),
  remote: sections.remote.default(sections.remote.parse({})),
  workspace: sections.workspace.default(sections.workspace.parse({})),
  acp: sections.acp.default(sections.acp.parse({})),
  web_fetch: sections.web_fetch.default(sections.web_fetch.parse({})),
  cost: sections.cost.default(sections.cost.parse({})),
  plan: sections.plan.default(sections.plan.parse({})),
  agents: z.record(z.string().regex(AGENT_NAME, "an agent name (letters, digits, - and _)"), peerAgent).default({}),
});

export type DeepAcpConfig = z.infer<typeof configSchema>;
/** What an empty config.toml means. (config-defaults.ts holds the same, without loading zod.) */
export function schemaDefaultConfig(): DeepAcpConfig {
  return configSchema.parse({});
}

/** Validates section by section so one bad key does not discard the rest. */
export function parseConfigObject(
  raw: Record<string, unknown>,
  source: string,
): { config: DeepAcpConfig; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const accepted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(key in configSchema.shape)) {
      diagnostics.push({ severity: "warning", source, message: `unknown key "${key}" (ignored)` });
      continue;
    }
    const fieldSchema = configSchema.shape[key as keyof typeof configSchema.shape];
    const parsed = fieldSchema.safeParse(value);
    if (parsed.success) accepted[key] = value;
    else
      diagnostics.push({
        severity: "error",
        source,
        message: `[${key}] ${z.prettifyError(parsed.error).replace(/\n/g, "; ")} (section uses defaults)`,
      });
  }
  return { config: configSchema.parse(accepted), diagnostics };
}
