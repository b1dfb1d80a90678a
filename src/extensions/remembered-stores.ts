import { createRemembered, type Remembered, type RememberedStore } from "../gate/memory/remembered.js";
import { createHookTrustStore, type HookTrustDetails } from "../hooks/index.js";
import { createMcpTrustStore, mcpServerBacking, type McpTrustResolver } from "../mcp/index.js";
import { createSkillTrustStore } from "../skills/index.js";
import { canonicalRoot } from "../util/path-within.js";

// The extensions' backings of the one store of remembered decisions (gate/memory/remembered.ts):
// project MCP servers (mcp_trust.json), this session's MCP "allow for this session", project hooks
// (hooks_trust.json) and this session's "allow once" of them (the host's memory), skill links
// (skills_trust.json). Each keeps its own file; forgetting one here is what deleting its entry by
// hand did: the next start asks again.

/** This session's "allow once" of project hooks: project root -> the fingerprints allowed. */
export type HookSessionGrants = Map<string, Set<string>>;

export type ExtensionMemoryOptions = {
  stateDir: string;
  projectRoot: string;
  /** The session's MCP trust resolver, once extensions have loaded (its session answers live there). */
  mcpTrust: () => Promise<McpTrustResolver | undefined>;
  hookGrants: HookSessionGrants;
};

/** The one store over the extensions' backings (what loading extensions writes its answers through). */
export function extensionRemembered(options: ExtensionMemoryOptions): Remembered {
  return createRemembered(extensionRememberedStores(options));
}

export function extensionRememberedStores(options: ExtensionMemoryOptions): RememberedStore[] {
  const root = canonicalRoot(options.projectRoot);
  const mcp = createMcpTrustStore({ stateDir: options.stateDir });
  const hooks = createHookTrustStore({ stateDir: options.stateDir });
  const skills = createSkillTrustStore({ stateDir: options.stateDir });
  const sessionBacking = async () => (await options.mcpTrust())?.sessionBacking;
  const fingerprintOf = (binding: unknown) => (binding as { fingerprint?: unknown } | undefined)?.fingerprint;
  return [
    {
      ...mcpServerBacking(mcp, root),
      // The session's own allowance of that server goes too: "ask again" means in this session as well.
      async forget(name) {
        await mcp.forget(root, name);
        const session = await sessionBacking();
        for (const item of (await session?.list()) ?? [])
          if (item.id.slice(item.id.indexOf("/") + 1) === name) await session!.forget(item.id);
        return true;
      },
    },
    {
      // The resolver keeps these (it decides in the middle of a load); listed here once the session
      // has one, and an "always" answer, also allowed in the session, is listed once, as the "always".
      kind: "mcp-session",
      scope: "session",
      async list() {
        const approved = new Set(
          (await mcp.load()).approvals.filter((row) => row.projectRoot === root).map((row) => row.name),
        );
        const listed = (await (await sessionBacking())?.list()) ?? [];
        return listed.filter((item) => !approved.has(item.id.slice(item.id.indexOf("/") + 1)));
      },
      read: async (id, binding) => (await sessionBacking())?.read(id, binding),
      async write(id, decision, label, binding) {
        const backing = await sessionBacking();
        if (!backing) throw new Error("this session's MCP servers have not loaded");
        await backing.write(id, decision, label, binding);
      },
      forget: async (id) => (await (await sessionBacking())?.forget(id)) ?? false,
    },
    {
      kind: "hooks",
      scope: "project",
      async list() {
        const entry = await hooks.entry(root);
        if (!entry) return [];
        const file = entry.hooks_file ? ` in ${entry.hooks_file}` : "";
        return [
          { id: root, decision: "allow" as const, label: `this project's hooks${file}`, scope: "project" as const },
        ];
      },
      read: async (id, binding) => ((await hooks.isTrusted(id, String(fingerprintOf(binding)))) ? "allow" : undefined),
      async write(id, _decision, _label, binding) {
        const { fingerprint, ...details } = (binding ?? {}) as { fingerprint: string } & HookTrustDetails;
        await hooks.trust(id, fingerprint, details.hooksFile !== undefined ? details : undefined);
      },
      forget: async () => (await hooks.revoke(root), true),
    },
    {
      kind: "hooks-session",
      scope: "session",
      list: async () =>
        options.hookGrants.has(root)
          ? [
              {
                id: root,
                decision: "allow" as const,
                label: "this project's hooks for this session (asked again the next time they load)",
                scope: "session" as const,
              },
            ]
          : [],
      read: async (id, binding) =>
        options.hookGrants.get(id)?.has(String(fingerprintOf(binding))) ? "allow" : undefined,
      // Every version allowed stays allowed (an edit undone does not ask again), as before.
      write: async (id, _decision, _label, binding) => {
        const allowed = options.hookGrants.get(id) ?? new Set<string>();
        allowed.add(String(fingerprintOf(binding)));
        options.hookGrants.set(id, allowed);
      },
      forget: async (id) => options.hookGrants.delete(id),
    },
    {
      kind: "skill-link",
      scope: "everywhere",
      async list() {
        return (await skills.list()).items.map((entry) => ({
          id: entry.dir,
          decision: "allow" as const,
          label: `skill link to ${entry.dir}`,
          scope: "everywhere" as const,
        }));
      },
      read: async (dir) => ((await skills.load()).items.includes(dir) ? "allow" : undefined),
      write: (dir) => skills.approve(dir),
      forget: (dir) => skills.revoke(dir),
    },
  ];
}
