import { loadSkills } from "../skills/load.js";
import { linksOut } from "../util/file-digest.js";
import type { PluginInspection } from "./inspect.js";
import { scopeMcpServers } from "./mcp.js";
import { isPlainObject } from "./manifest.js";
import { pluginEnvironment } from "./substitution.js";

export type ConsentContext = { id: string; dataDir: string; projectRoot?: string };

/**
 * What enabling a plugin allows, in full: every MCP server it starts or connects to and every hook
 * command it runs. This text is the consent the user gives, so nothing executable may be left out.
 */
export async function consentText(plugin: PluginInspection, context: ConsentContext): Promise<string> {
  const env = pluginEnvironment({
    root: plugin.root,
    dataDir: context.dataDir,
    ...(context.projectRoot ? { projectDir: context.projectRoot } : {}),
  });
  const version = plugin.manifest.version ? ` ${plugin.manifest.version}` : "";
  const lines = [`Plugin ${context.id}${version}`, `  files: ${plugin.root}`, `  data:  ${context.dataDir}`];
  if (plugin.manifest.description) lines.push(`  ${plugin.manifest.description}`);
  // Consent covers the bytes behind these links too; a change there disables the plugin.
  for (const link of linksOut(plugin.files)) lines.push(`  ${link.name} links outside the plugin, to ${link.target}`);

  const mcp = scopeMcpServers(context.id, plugin.root, plugin.declaredMcp, env);
  lines.push(
    "",
    Object.keys(mcp.servers).length > 0 ? "MCP servers it will start or connect to:" : "MCP servers: none",
  );
  for (const [scoped, server] of Object.entries(mcp.servers)) {
    lines.push(`  - ${mcp.names[scoped]} (as ${scoped}): ${describeServer(server)}`);
  }

  lines.push(
    "",
    plugin.hookCommands.length > 0
      ? "Hook commands it will run (with your privileges, on these events):"
      : "Hook commands: none",
  );
  for (const hook of plugin.hookCommands) {
    lines.push(`  - ${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ""}: ${hook.command}`);
  }
  if (plugin.hookCommands.length > 0) {
    lines.push(`    (hooks run with CLAUDE_PLUGIN_ROOT=${plugin.root} and CLAUDE_PLUGIN_DATA=${context.dataDir})`);
  }

  const sources = plugin.inventory.skillDirs.map((dir) => ({
    dir,
    scope: "plugin" as const,
    label: `Plugin: ${context.id}`,
    pluginId: context.id,
    owner: plugin.root,
  }));
  const skills = await loadSkills({ sources });
  lines.push("", skills.items.length > 0 ? "Skills (instructions the agent may follow):" : "Skills: none");
  for (const skill of skills.items) lines.push(`  - ${skill.name}: ${skill.description}`);
  for (const refused of skills.pendingSymlinks)
    lines.push(`  - ${refused.skillName}: refused, links outside the plugin (${refused.target})`);
  if (plugin.inventory.unsupported.length > 0)
    lines.push("", `Not supported, ignored: ${plugin.inventory.unsupported.map((name) => `${name}/`).join(", ")}`);
  return lines.join("\n");
}

function describeServer(server: Record<string, unknown>): string {
  if (typeof server.command === "string") {
    const args = Array.isArray(server.args) ? server.args.map((arg) => quote(String(arg))) : [];
    const parts = [`runs ${[quote(server.command), ...args].join(" ")}`];
    if (typeof server.cwd === "string") parts.push(`in ${server.cwd}`);
    // As written: placeholders such as ${GITHUB_TOKEN} are not secrets, and consent must show what leaves.
    const env = isPlainObject(server.env)
      ? Object.entries(server.env).filter(([name]) => !/^(CLAUDE_)?PLUGIN_(ROOT|DATA)$|^CLAUDE_PROJECT_DIR$/.test(name))
      : [];
    if (env.length > 0) parts.push(`env ${env.map(([name, value]) => `${name}=${quote(String(value))}`).join(" ")}`);
    return parts.join(", ");
  }
  if (typeof server.url === "string") {
    const type = typeof server.type === "string" ? server.type : "http";
    const headers = isPlainObject(server.headers)
      ? Object.entries(server.headers).map(([name, value]) => `${name}: ${String(value)}`)
      : [];
    return `connects to ${server.url} (${type}${headers.length > 0 ? `, headers ${headers.join("; ")}` : ""})`;
  }
  return `unrecognised definition ${JSON.stringify(server)}`;
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : JSON.stringify(value);
}
