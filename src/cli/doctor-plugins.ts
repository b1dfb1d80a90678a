import { join } from "node:path";
import type { HookSource } from "../hooks/index.js";
import type { PluginMcpServers } from "../mcp/index.js";
import { createPluginStateStore, inspectPlugin, pluginDataKey, pluginEnvironment, scopeMcpServers, splitPluginId } from "../plugins/index.js";
import type { SkillSource } from "../skills/index.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { directoryFacts } from "./doctor-content.js";
import type { DoctorPluginsFacts } from "./doctor-types.js";

// The same decisions as plugins/load.ts loadEnabledPlugins, without its one side effect (creating each
// plugin's data directory), because doctor must leave the disk as it found it.

export type PluginContributions = {
  facts: DoctorPluginsFacts;
  hookSources: HookSource[];
  skillSources: SkillSource[];
  mcpServers: PluginMcpServers[];
};

export type PluginFactsOptions = { pluginsDir: string; stateDir: string; projectRoot: string };

export async function collectPluginFacts(options: PluginFactsOptions): Promise<PluginContributions> {
  const { state, diagnostics: stateDiagnostics } = await createPluginStateStore(options.stateDir).load();
  const diagnostics: Diagnostic[] = [...stateDiagnostics];
  const out: PluginContributions = {
    facts: { dir: await directoryFacts(options.pluginsDir), installed: Object.keys(state.installed).sort(), enabled: [], diagnostics },
    hookSources: [],
    skillSources: [],
    mcpServers: [],
  };
  for (const id of Object.keys(state.enabled).sort()) {
    const source = `plugin ${id}`;
    const parts = splitPluginId(id);
    const installed = state.installed[id];
    const notLoaded = { id, loaded: false, skills: 0, mcpServers: 0, hookFiles: 0 };
    if (!parts || !installed) {
      diagnostics.push({ severity: "warning", source, message: "enabled but not installed; ignored (deep-acp plugins add <source> to install it)" });
      out.facts.enabled.push(notLoaded);
      continue;
    }
    const inspected = await inspectPlugin(installed.installPath, parts.name);
    diagnostics.push(...inspected.diagnostics.map((d): Diagnostic => ({ ...d, message: `[${id}] ${d.message}` })));
    const plugin = inspected.plugin;
    if (!plugin) {
      out.facts.enabled.push(notLoaded);
      continue;
    }
    if (plugin.fingerprint !== state.enabled[id]) {
      diagnostics.push({
        severity: "error",
        source,
        message: `its hooks or MCP servers changed since it was enabled; not loaded. Review and re-enable with: deep-acp plugins enable ${id}`,
      });
      out.facts.enabled.push({ ...notLoaded, root: plugin.root });
      continue;
    }
    const dataDir = join(options.pluginsDir, "data", pluginDataKey(id));
    const env = pluginEnvironment({ root: plugin.root, dataDir, projectDir: options.projectRoot });
    const mcp = scopeMcpServers(id, plugin.root, plugin.declaredMcp, env);
    const hookBase = { scope: "plugin" as const, pluginId: id, pluginRoot: plugin.root, pluginDataDir: dataDir };
    const hooks: HookSource[] = plugin.inventory.hookFiles.map((file) => ({ ...hookBase, file }));
    if (plugin.manifest.inlineHooks && plugin.manifest.manifestPath) hooks.push({ ...hookBase, file: plugin.manifest.manifestPath, content: plugin.manifest.inlineHooks });
    const skills: SkillSource[] = plugin.inventory.skillDirs.map((dir) => ({ dir, scope: "plugin", label: `Plugin: ${id}`, pluginId: id }));
    out.hookSources.push(...hooks);
    out.skillSources.push(...skills);
    if (Object.keys(mcp.servers).length > 0) out.mcpServers.push({ plugin: id, origin: plugin.root, servers: mcp.servers, variables: env });
    const version = plugin.manifest.version ?? installed.version;
    out.facts.enabled.push({
      id,
      loaded: true,
      ...(version !== undefined ? { version } : {}),
      root: plugin.root,
      skills: skills.length,
      mcpServers: Object.keys(mcp.servers).length,
      hookFiles: hooks.length,
    });
  }
  return out;
}
