import { createRemembered, type Remembered, type RememberedStore } from "../gate/memory/remembered.js";
import type { Session } from "./session.js";
import { devContainerBacking } from "./workspace/container/devcontainer-memory.js";

// The one store of a session's remembered decisions (/permissions, and what its parts write their
// answers through): tool-call "always" answers of its project, the extensions' (MCP servers, this
// session's MCP answers, hooks and this session's "allow once" of them, skill links), and the dev
// container "always" answers of its project.

export function rememberedOf(session: Pick<Session, "approvals" | "extensions" | "projectRoot">): Remembered {
  const tools: RememberedStore = {
    kind: "tool",
    scope: "project",
    // The procedure reads and writes tool answers synchronously, mid-turn, through this same memory.
    read: async (key) => session.approvals.lookup(key),
    write: async (key, decision, label) => session.approvals.remember(key, decision, label),
    list: async () =>
      session.approvals.entries().map((entry) => ({
        id: entry.key,
        decision: entry.decision,
        label: entry.label,
        scope: "project" as const,
      })),
    forget: (key) => session.approvals.forget(key),
  };
  return createRemembered([
    tools,
    ...session.extensions.rememberedStores(),
    devContainerBacking(session.extensions.stateDir, session.projectRoot),
  ]);
}
