import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { SkillSource } from "../skills/types.js";
import type { Diagnostic, Loaded } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { consentChanges } from "./consent-changes.js";
import { pluginDataKey, splitPluginId } from "./ids.js";
import { inspectPlugin } from "./inspect.js";
import { scopeMcpServers } from "./mcp.js";
import { createPluginStateStore } from "./state.js";
import { pluginEnvironment } from "./substitution.js";

/** A plugin hooks source; structurally the hooks loader's `HookSource` with scope "plugin". */
export type PluginHookSource = {
  scope: "plugin";
  /** hooks.json path, or the manifest path for inline hooks. */
  file: string;
  /** Inline hooks from the manifest (then `file` is not read). */
  content?: unknown;
  pluginId: string;
  pluginRoot: string;
  pluginDataDir: string;
};

/** An enabled plugin's contributions, ready to merge into a session. */
export type LoadedPlugin = {
  /** `plugin@marketplace`. */
  id: string;
  name: string;
  marketplace: string;
  version?: string;
  /** Real path of the installed copy. */
  root: string;
  /** Writable per-plugin directory (0700), created on load. */
  dataDir: string;
  /** The plugin variables (also substituted into its MCP config). */
  env: Record<string, string>;
  /** Add between the built-in and the user sources, in this order. */
  skillSources: SkillSource[];
  /** Scoped server name (`plugin__<id>__<name>`) -> substituted raw definition. */
  mcpServers: Record<string, Record<string, unknown>>;
  /** Scoped server name -> the name the plugin declared (for display). */
  mcpServerNames: Record<string, string>;
  hooks: PluginHookSource[];
};

export type LoadEnabledPluginsOptions = {
  /** ~/.deepagents/plugins */
  pluginsDir: string;
  /** ~/.deepagents/.state */
  stateDir: string;
  /** Substituted for ${CLAUDE_PROJECT_DIR}; omit outside a project. */
  projectRoot?: string;
  /** Create each plugin's data directory (a session does). Default true; doctor passes false to write nothing. */
  createDataDirs?: boolean;
};

/**
 * Loads every enabled, installed plugin. A plugin whose hooks or MCP servers changed since it was
 * enabled is skipped until enabled again: enabling is the user's consent to exactly those.
 */
export async function loadEnabledPlugins(options: LoadEnabledPluginsOptions): Promise<Loaded<LoadedPlugin[]>> {
  const store = createPluginStateStore(options.stateDir);
  const { state, diagnostics } = await store.load();
  const items: LoadedPlugin[] = [];
  for (const id of Object.keys(state.enabled).sort()) {
    const source = `plugin ${id}`;
    const parts = splitPluginId(id);
    const installed = state.installed[id];
    if (!parts || !installed) {
      diagnostics.push({
        severity: "warning",
        source,
        message: "enabled but not installed; ignored (deep-acp plugins add <source> to install it)",
      });
      continue;
    }
    const inspected = await inspectPlugin(installed.installPath, parts.name);
    diagnostics.push(...inspected.diagnostics.map((d): Diagnostic => ({ ...d, message: `[${id}] ${d.message}` })));
    const plugin = inspected.plugin;
    if (!plugin) continue;
    if (plugin.fingerprint !== state.enabled[id]) {
      diagnostics.push({
        severity: "error",
        source,
        message: `changed since it was enabled (${consentChanges(state, id, plugin).join("; ")}); not loaded. Review and re-enable with: deep-acp plugins enable ${id}`,
      });
      continue;
    }
    const dataDir = join(options.pluginsDir, "data", pluginDataKey(id));
    if (options.createDataDirs !== false) {
      try {
        await mkdir(dataDir, { recursive: true, mode: 0o700 });
      } catch (error) {
        diagnostics.push({
          severity: "warning",
          source,
          message: `cannot create data directory ${dataDir}: ${errorMessage(error)}`,
        });
      }
    }
    const env = pluginEnvironment({
      root: plugin.root,
      dataDir,
      ...(options.projectRoot !== undefined ? { projectDir: options.projectRoot } : {}),
    });
    const mcp = scopeMcpServers(id, plugin.root, plugin.declaredMcp, env);
    const hookBase = { scope: "plugin" as const, pluginId: id, pluginRoot: plugin.root, pluginDataDir: dataDir };
    const hooks: PluginHookSource[] = plugin.inventory.hookFiles.map((file) => ({ ...hookBase, file }));
    if (plugin.manifest.inlineHooks && plugin.manifest.manifestPath)
      hooks.push({ ...hookBase, file: plugin.manifest.manifestPath, content: plugin.manifest.inlineHooks });
    const loaded: LoadedPlugin = {
      id,
      name: parts.name,
      marketplace: parts.marketplace,
      root: plugin.root,
      dataDir,
      env,
      skillSources: plugin.inventory.skillDirs.map((dir) => ({
        dir,
        scope: "plugin",
        label: `Plugin: ${id}`,
        pluginId: id,
        owner: plugin.root,
      })),
      mcpServers: mcp.servers,
      mcpServerNames: mcp.names,
      hooks,
    };
    const version = plugin.manifest.version ?? installed.version;
    if (version !== undefined) loaded.version = version;
    items.push(loaded);
  }
  return { items, diagnostics };
}
