import { createDevContainerTrust } from "../backends/container/devcontainer/devcontainer-trust.js";
import { createRemembered, type Remembered, type RememberedStore } from "../gate/memory/remembered.js";
import { canonicalRoot } from "../util/path-within.js";
import type { Session } from "./session.js";

// The one view of a session's remembered decisions (/permissions): tool-call "always" answers of its
// project, the extensions' (MCP servers, this session's MCP answers, hooks, skill links), and the
// dev container "always" answers of its project.

export function rememberedOf(session: Pick<Session, "approvals" | "extensions" | "projectRoot">): Remembered {
  const tools: RememberedStore = {
    kind: "tool",
    list: async () =>
      session.approvals.entries().map((entry) => ({
        id: entry.key,
        decision: entry.decision,
        label: entry.label,
        scope: "project" as const,
      })),
    forget: (key) => session.approvals.forget(key),
  };
  const root = canonicalRoot(session.projectRoot);
  const containers = createDevContainerTrust(session.extensions.stateDir);
  const devContainers: RememberedStore = {
    kind: "devcontainer",
    list: async () =>
      (await containers.list())
        .filter((entry) => canonicalRoot(entry.root) === root)
        .map((entry) => ({
          id: entry.fingerprint,
          decision: "allow" as const,
          label: `dev container of ${entry.root}${entry.definition ? ` (${entry.definition})` : ""}`,
          scope: "project" as const,
        })),
    forget: (fingerprint) => containers.forget(fingerprint),
  };
  return createRemembered([tools, ...session.extensions.rememberedStores(), devContainers]);
}
