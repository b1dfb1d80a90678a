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
} from "./config/types.js";

export { discoverMcpServers, editorEntry, MCP_FLAGS_CONFLICT } from "./config/discovery.js";
export type { McpConfigFileStatus, McpDiscovery } from "./config/discovery.js";
export { validateServer, SERVER_NAME } from "./config/validate.js";
export { interpolate, resolveServerDefinition, lookupFrom } from "./config/interpolate.js";
export { applyToolFilter } from "./config/tool-filter.js";
export { fnmatch } from "./config/fnmatch.js";
export { canonicalJson, fingerprintServer } from "./config/fingerprint.js";
export { createMcpTrustStore } from "./trust/trust-store.js";
export { mcpServerBacking } from "./trust/trust-memory.js";
export type { McpTrustStore, McpTrustSnapshot } from "./trust/trust-store.js";
export { createMcpTrustResolver } from "./trust/trust.js";
export type { McpTrustDecider, McpTrustDecision, McpTrustResolver, McpTrustState } from "./trust/trust.js";
export { describeTrustRequest } from "./trust/trust-request.js";
export type { McpTrustRequest } from "./trust/trust-request.js";
export { environmentExposure, interpolationLookup, stdioServerEnvironment } from "./config/environment.js";
export type { EnvironmentExposure, McpEnvPolicy } from "./config/environment.js";
export { isCoherentlyReadOnly } from "./servers/annotations.js";
export { createMcpManager } from "./servers/manager.js";
export type { McpManager, McpManagerOptions } from "./servers/manager.js";
export type { McpServerReport, McpServerStatus } from "./servers/server-report.js";
export { mcpLogin, mcpLogout, McpLoginError } from "./oauth-login.js";

export { tokenFilePath } from "./oauth/oauth-store.js";
export { createUrlOpener } from "./open-url.js";
export { collectMcpList } from "./commands.js";

export { renderMcpList, renderMcpPromptSection, renderMcpStatus } from "./render.js";
export { editorServersFromNameValueLists } from "./config/editor-servers.js";

export type { McpListReport } from "./render.js";
