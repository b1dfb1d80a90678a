import { join } from "node:path";
import { projectPaths, type UserPaths } from "../config/paths.js";
import type { WatchTarget } from "./types.js";

export type SessionWatchTargetsOptions = {
  user: UserPaths;
  /** The session's `<root>`; omit outside a project. */
  projectRoot?: string;
  /** Enabled plugins (from loadEnabledPlugins): their files count as "plugins", their skill dirs as "skills". */
  plugins?: readonly { root: string; skillSources?: readonly { dir: string }[] }[];
};

/**
 * Everything a session loads at start and re-reads on /reload, labelled by what must be re-read.
 * Missing paths are included on purpose: creating them must mark the session stale too.
 */
export function sessionWatchTargets(options: SessionWatchTargetsOptions): WatchTarget[] {
  const { user } = options;
  const targets: WatchTarget[] = [
    ...user.skillsDirs.map((path) => ({ path, label: "skills", depth: 3 })),
    { path: join(user.stateDir, "skill_trust.json"), label: "skills", depth: 0 },
    { path: user.agentMemoryFile, label: "memory", depth: 0 },
    { path: user.subagentsDir, label: "subagents", depth: 2 },
    { path: user.hooksFile, label: "hooks", depth: 0 },
    { path: user.mcpFile, label: "mcp", depth: 0 },
    { path: user.configFile, label: "config", depth: 0 },
    { path: join(user.stateDir, "plugin_state.json"), label: "plugins", depth: 0 },
    { path: join(user.stateDir, "installed_plugins.json"), label: "plugins", depth: 0 },
  ];
  if (options.projectRoot !== undefined) {
    const project = projectPaths(options.projectRoot);
    targets.push(
      ...project.skillsDirs.map((path) => ({ path, label: "skills", depth: 3 })),
      ...project.memoryFiles.map((path) => ({ path, label: "memory", depth: 0 })),
      { path: project.subagentsDir, label: "subagents", depth: 2 },
      { path: project.hooksFile, label: "hooks", depth: 0 },
      ...project.mcpFiles.map((path) => ({ path, label: "mcp", depth: 0 })),
    );
  }
  for (const plugin of options.plugins ?? []) {
    targets.push({ path: plugin.root, label: "plugins", depth: 4 });
    for (const source of plugin.skillSources ?? []) targets.push({ path: source.dir, label: "skills", depth: 3 });
  }
  return targets;
}
