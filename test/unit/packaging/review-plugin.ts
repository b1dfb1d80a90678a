import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inspectPlugin } from "../../../src/plugins/index.js";

// The "review@acme" plugin the doctor tests install: one skill (review-pr), optionally an MCP server
// (gh -> gh-mcp), installed, enabled and consented to as the plugin commands would leave it.

export type ReviewPluginOptions = {
  home: string;
  /** Adds .mcp.json with the stdio server gh running gh-mcp (before consent, so it is consented to). */
  withMcp?: boolean;
};

/** Plants the plugin under home's plugin cache and its state files; returns the plugin's folder. */
export async function installReviewPlugin({ home, withMcp = false }: ReviewPluginOptions): Promise<string> {
  const pluginRoot = join(home, ".deepagents", "plugins", "cache", "acme", "review");
  await mkdir(join(pluginRoot, ".claude-plugin"), { recursive: true });
  await mkdir(join(pluginRoot, "skills", "review-pr"), { recursive: true });
  await writeFile(
    join(pluginRoot, ".claude-plugin", "plugin.json"),
    JSON.stringify({ name: "review", version: "1.0.0" }),
  );
  await writeFile(
    join(pluginRoot, "skills", "review-pr", "SKILL.md"),
    "---\nname: review-pr\ndescription: Reviews a pull request.\n---\nReview it.\n",
  );
  if (withMcp)
    await writeFile(join(pluginRoot, ".mcp.json"), JSON.stringify({ mcpServers: { gh: { command: "gh-mcp" } } }));
  const inspected = await inspectPlugin(pluginRoot, "review");
  const state = join(home, ".deepagents", ".state");
  await mkdir(state, { recursive: true });
  await writeFile(
    join(state, "installed_plugins.json"),
    JSON.stringify({
      version: 1,
      plugins: { "review@acme": { installPath: pluginRoot, source: "acme", installedAt: "2026-01-01T00:00:00Z" } },
    }),
  );
  await writeFile(
    join(state, "plugin_state.json"),
    JSON.stringify({
      version: 1,
      enabledPlugins: { "review@acme": true },
      consent: { "review@acme": inspected.plugin!.fingerprint },
    }),
  );
  return pluginRoot;
}
