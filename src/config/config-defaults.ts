import type { DeepAcpConfig } from "./config-schema.js";

// What config-schema.ts makes of an empty config.toml, written out so that a start without a config
// file (the default install: keys in the environment) does not load zod and the schema. The schema
// stays the truth: test/unit/config/config-defaults.test.ts fails as soon as the two differ.
const DEFAULTS: DeepAcpConfig = {
  model: { options: [], fallbacks: [], catalog: {} },
  agent: { max_turn_requests: 200 },
  shell: {
    timeout_seconds: 120,
    output_chars: 30000,
    capture_chars: 2000000,
    max_background_processes: 8,
    background_output_chars: 200000,
    pass_env: [],
  },
  permissions: [],
  sandbox: { kind: "none", network: false, read_only_paths: [], writable_paths: [] },
  protected: { extra_paths: [] },
  skills: { extra_allowed_dirs: [] },
  interpreter: {
    enabled: true,
    memory_limit_mb: 64,
    max_stack_kb: 256,
    timeout_ms: 5000,
    max_output_chars: 4000,
    max_tool_calls: 256,
    tools: ["read_file", "ls", "glob", "grep"],
    allow_clock: false,
  },
  backends: { routes: { "/large_tool_results/": "state", "/conversation_history/": "state", "/memories/": "store" } },
  compaction: { trigger_fraction: 0.85, keep_messages: 6 },
  offload: { tool_result_chars: 80000 },
  mcp: { disabled_servers: [], call_timeout_seconds: 120, connect_timeout_seconds: 30, project_env: [] },
  hooks: { pass_env: [] },
  remote: { projects: {}, connect_timeout_seconds: 15 },
  workspace: { projects: {}, network: "none" },
  acp: { max_message_bytes: 33554432, max_json_depth: 256, max_json_values: 200000, max_loaded_sessions: 32 },
  web_fetch: { enabled: true, timeout_seconds: 30, max_bytes: 5000000, max_redirects: 5, allow_private_networks: [] },
  cost: {},
  plan: { save_file: true },
  agents: {},
};

/** The config of an absent (or unreadable) config.toml; a fresh copy each time, free to change. */
export function defaultConfig(): DeepAcpConfig {
  return structuredClone(DEFAULTS);
}
