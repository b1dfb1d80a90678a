export { splitPluginId, scopedMcpServerName, pluginDataKey, isValidPluginName } from "./ids.js";
export { resolveComponentPath, type ComponentPathResult } from "./component-path.js";
export { loadPluginManifest, findManifest, MANIFEST_PATHS, type PluginManifest } from "./manifest.js";
export { buildInventory, type PluginInventory } from "./inventory.js";
export { pluginEnvironment, substitutePluginVariables, type PluginVariables } from "./substitution.js";
export { declaredMcpServers, scopeMcpServers, serverMap } from "./mcp.js";
export { inspectPlugin, type PluginInspection } from "./inspect.js";
export { consentText } from "./consent.js";
export { createPluginStateStore, PluginStateError, type PluginState, type PluginStateStore } from "./state.js";
export { resolveAddTarget, type AddTarget, type Marketplace, type MarketplaceEntry } from "./marketplace.js";
export {
  loadEnabledPlugins,
  type LoadedPlugin,
  type LoadEnabledPluginsOptions,
  type PluginHookSource,
} from "./load.js";
export { createPluginsCli, type PluginsCli, type PluginsCliOptions, type CliResult } from "./cli.js";
