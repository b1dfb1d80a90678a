// Public surface of MCP support. Importing this module loads no MCP SDK code: the SDK is imported
// dynamically when a manager actually connects a server or a login starts.

export type {
  EditorMcpServer,
  McpServerDefinition,
  McpServerEntry,
  McpSource,
  McpTransport,
  McpToolFilterSpec,
  PluginMcpServers,
} from "./types.js";
export { MCP_CAPABILITIES } from "./types.js";
export { discoverMcpServers, editorEntry, mcpConfigSources, MCP_FLAGS_CONFLICT } from "./discovery.js";
export type { McpConfigFileStatus, McpDiscovery, McpDiscoveryOptions } from "./discovery.js";
export { validateServer, SERVER_NAME } from "./validate.js";
export { interpolate, resolveServerDefinition, lookupFrom } from "./interpolate.js";
export { applyToolFilter } from "./tool-filter.js";
export { fnmatch } from "./fnmatch.js";
export { canonicalJson, fingerprintServer } from "./fingerprint.js";
export { createMcpTrustStore, McpTrustStoreError } from "./trust-store.js";
export type { McpTrustStore, McpTrustStoreOptions, McpTrustSnapshot } from "./trust-store.js";
export { createMcpTrustResolver, describeTrustRequest } from "./trust.js";
export type {
  McpTrustDecider,
  McpTrustDecision,
  McpTrustRequest,
  McpTrustResolver,
  McpTrustResolverOptions,
  McpTrustState,
  McpTrustVerdict,
} from "./trust.js";
export { environmentExposure, interpolationLookup, stdioServerEnvironment } from "./environment.js";
export type { EnvironmentExposure, McpEnvPolicy } from "./environment.js";
export { isCoherentlyReadOnly } from "./annotations.js";
export { createMcpManager } from "./manager.js";
export type { McpManager, McpManagerOptions } from "./manager.js";
export type { McpServerReport, McpServerStatus, McpToolReport } from "./server-report.js";
export { mcpLogin, mcpLogout, McpLoginError } from "./oauth-login.js";
export type { McpLoginOptions, McpLoginResult } from "./oauth-login.js";
export { tokenFilePath } from "./oauth-store.js";
export { createUrlOpener } from "./open-url.js";
export { collectMcpList } from "./commands.js";
export type { McpListOptions } from "./commands.js";
export { renderMcpList, renderMcpPromptSection, renderMcpStatus } from "./render.js";
export { editorServersFromNameValueLists } from "./editor-servers.js";
export type { NameValueMcpServer } from "./editor-servers.js";
export type { McpListReport } from "./render.js";
