import type { UserPaths } from "../../config/paths.js";
import { createPluginStateStore, loadEnabledPlugins, type LoadedPlugin } from "../../plugins/index.js";
import { directoryFacts } from "./doctor-content.js";
import type { DoctorPluginsFacts } from "./doctor-types.js";

// Plugins through the loader a session uses (loadEnabledPlugins), told not to create data directories
// because doctor must leave the disk as it found it. Only the facts for display are added here.

export type PluginLoad = { facts: DoctorPluginsFacts; items: LoadedPlugin[] };

export async function collectPluginFacts(paths: UserPaths, projectRoot: string): Promise<PluginLoad> {
  const loaded = await loadEnabledPlugins({
    pluginsDir: paths.pluginsDir,
    stateDir: paths.stateDir,
    projectRoot,
    createDataDirs: false,
  });
  // The loader already reported the state file's problems; this read is for the installed/enabled lists.
  const { state } = await createPluginStateStore(paths.stateDir).load();
  const byId = new Map(loaded.items.map((plugin) => [plugin.id, plugin]));
  const enabled = Object.keys(state.enabled)
    .sort()
    .map((id) => {
      const plugin = byId.get(id);
      if (!plugin) return { id, loaded: false, skills: 0, mcpServers: 0, hookFiles: 0 };
      return {
        id,
        loaded: true,
        ...(plugin.version !== undefined ? { version: plugin.version } : {}),
        root: plugin.root,
        skills: plugin.skillSources.length,
        mcpServers: Object.keys(plugin.mcpServers).length,
        hookFiles: plugin.hooks.length,
      };
    });
  const facts: DoctorPluginsFacts = {
    dir: await directoryFacts(paths.pluginsDir),
    installed: Object.keys(state.installed).sort(),
    enabled,
    diagnostics: loaded.diagnostics,
  };
  return { facts, items: loaded.items };
}
