import { createRemembered, type Remembered, type RememberedStore } from "../../gate/memory/remembered.js";
import { canonicalRoot } from "../../util/path-within.js";
import type { McpTrustStore } from "./trust-store.js";

// Project MCP servers' "always" and "never" as a backing of the one store of remembered decisions
// (gate/memory/remembered.ts), kept in mcp_trust.json: `mcp-server:<name>`, an "always" bound to the
// definition's fingerprint (a changed definition or script asks again), a "never" by name alone.

export function mcpServerBacking(store: McpTrustStore, projectRoot: string): RememberedStore {
  const root = canonicalRoot(projectRoot);
  const mine = (name: string) => (row: { projectRoot: string; name: string }) =>
    row.projectRoot === root && row.name === name;
  return {
    kind: "mcp-server",
    scope: "project",
    async list() {
      const snapshot = await store.load();
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
    // "Never" beats everything, whatever the definition is now.
    async read(name, binding) {
      const snapshot = await store.load();
      if (snapshot.denied.some(mine(name))) return "deny";
      const fingerprint = binding?.["fingerprint"];
      return snapshot.approvals.some((row) => mine(name)(row) && row.fingerprint === fingerprint) ? "allow" : undefined;
    },
    async write(name, decision, _label, binding) {
      if (decision === "deny") return store.deny(root, name);
      const { fingerprint, ...detail } = (binding ?? {}) as { fingerprint: string };
      await store.approve(root, name, fingerprint, detail);
    },
    forget: async (name) => (await store.forget(root, name), true),
  };
}

/** The one store over this backing alone (a resolver outside a session: doctor, `deep-acp mcp`). */
export const mcpServerMemory = (store: McpTrustStore, projectRoot: string): Remembered =>
  createRemembered([mcpServerBacking(store, projectRoot)]);
