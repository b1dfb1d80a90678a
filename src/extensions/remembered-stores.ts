import type { RememberedStore } from "../gate/memory/remembered.js";
import { createHookTrustStore } from "../hooks/index.js";
import { createMcpTrustStore, type McpTrustResolver } from "../mcp/index.js";
import { createSkillTrustStore } from "../skills/index.js";
import { canonicalRoot } from "../util/path-within.js";

// The extensions' remembered decisions as stores of the one view (gate/memory/remembered.ts): project
// MCP servers (mcp_trust.json), this session's MCP "allow for this session", project hooks
// (hooks_trust.json) and skill links (skills_trust.json). Each keeps its own file; forgetting one
// here is what deleting its entry by hand did: the next start asks again.

export function extensionRememberedStores(options: {
  stateDir: string;
  projectRoot: string;
  /** The session's MCP trust resolver, once extensions have loaded (its session answers live there). */
  mcpTrust: () => Promise<McpTrustResolver | undefined>;
}): RememberedStore[] {
  const root = canonicalRoot(options.projectRoot);
  const mcp = createMcpTrustStore({ stateDir: options.stateDir });
  const hooks = createHookTrustStore({ stateDir: options.stateDir });
  const skills = createSkillTrustStore({ stateDir: options.stateDir });
  return [
    {
      kind: "mcp-server",
      async list() {
        const snapshot = await mcp.load();
        return [
          ...snapshot.approvals
            .filter((row) => row.projectRoot === root)
            .map((row) => ({
              id: row.name,
              decision: "allow" as const,
              label: `project MCP server "${row.name}" (this definition)`,
              scope: "project" as const,
            })),
          ...snapshot.denied
            .filter((row) => row.projectRoot === root)
            .map((row) => ({
              id: row.name,
              decision: "deny" as const,
              label: `project MCP server "${row.name}" (never run it)`,
              scope: "project" as const,
            })),
        ];
      },
      // The session's own allowance of that server goes too: "ask again" means in this session as well.
      async forget(name) {
        await mcp.forget(root, name);
        const trust = await options.mcpTrust();
        for (const allowed of trust?.sessionAllowed() ?? [])
          if (allowed.name === name) trust!.forgetSession(allowed.key);
        return true;
      },
    },
    {
      kind: "mcp-session",
      async list() {
        // An "always" answer is also allowed in the session: it is listed once, as the "always".
        const approved = new Set(
          (await mcp.load()).approvals.filter((row) => row.projectRoot === root).map((row) => row.name),
        );
        const allowed = ((await options.mcpTrust())?.sessionAllowed() ?? []).filter((a) => !approved.has(a.name));
        return allowed.map((allowed) => ({
          id: allowed.key,
          decision: "allow" as const,
          label: `project MCP server "${allowed.name}" for this session (asked again the next time it starts)`,
          scope: "session" as const,
        }));
      },
      forget: async (key) => (await options.mcpTrust())?.forgetSession(key) ?? false,
    },
    {
      kind: "hooks",
      async list() {
        const entry = await hooks.entry(root);
        if (!entry) return [];
        const file = entry.hooks_file ? ` in ${entry.hooks_file}` : "";
        return [
          { id: root, decision: "allow" as const, label: `this project's hooks${file}`, scope: "project" as const },
        ];
      },
      forget: async () => (await hooks.revoke(root), true),
    },
    {
      kind: "skill-link",
      async list() {
        return (await skills.list()).items.map((entry) => ({
          id: entry.dir,
          decision: "allow" as const,
          label: `skill link to ${entry.dir}`,
          scope: "everywhere" as const,
        }));
      },
      forget: (dir) => skills.revoke(dir),
    },
  ];
}
