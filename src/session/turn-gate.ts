import type { Door } from "../gate/door/door.js";
import type { PersistentApprovalMemory } from "../gate/memory/approval-memory.js";
import type { RestoreScope } from "../gate/seams/restore.js";
import type { TurnGate } from "../turn/index.js";
import type { Workspace } from "./workspace/workspace.js";

/** What a turn's tool calls are checked against: who is asked, what is remembered, and the workspace's rules. */
export function createTurnGate(door: Door, memory: PersistentApprovalMemory, workspace: Workspace): TurnGate {
  return {
    door,
    memory,
    policy: {
      rules: workspace.rules,
      sandboxed: workspace.sandboxed,
      protectedPaths: workspace.protectedPaths,
      ...(workspace.surfaces ? { surfaces: workspace.surfaces } : {}),
      // A remote workspace's links are followed on the remote, a container's inside the container.
      ...(workspace.realPathFs ? { fs: workspace.realPathFs } : {}),
    },
  };
}

/** What rewind may put back without a dialog: the workspace's roots and routes, decided on real paths. */
export function createRestoreScope(workspace: Workspace): RestoreScope {
  return {
    roots: workspace.roots,
    virtualPrefixes: workspace.virtualPrefixes,
    // A remote workspace's links are followed on the remote, a container's inside the container.
    ...(workspace.realPathFs ? { fs: workspace.realPathFs } : {}),
  };
}
