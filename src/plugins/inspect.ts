import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { relative } from "node:path";
import type { Diagnostic } from "../util/diagnostics.js";
import { digestOfDigests, treeDigest, type FileDigests } from "../util/file-digest.js";
import { readHookDocuments, summarizeHooks, type HookCommandSummary } from "./hooks-summary.js";
import { buildInventory, type PluginInventory } from "./inventory.js";
import { loadPluginManifest, type PluginManifest } from "./manifest.js";
import { declaredMcpServers } from "./mcp.js";

/** Everything a plugin would contribute, read without side effects. */
export type PluginInspection = {
  root: string;
  manifest: PluginManifest;
  inventory: PluginInventory;
  /** Declared MCP servers under their own names, before renaming and substitution. */
  declaredMcp: Record<string, Record<string, unknown>>;
  hookCommands: HookCommandSummary[];
  /** Every file of the plugin (relative path -> digest; `.git` left out): its scripts run with your privileges. */
  files: FileDigests;
  /** SHA-256 over the MCP and hook definitions and the whole plugin tree: what enabling consents to. */
  fingerprint: string;
  diagnostics: Diagnostic[];
};

/** Reads a plugin directory; undefined (with diagnostics) when it is missing or its manifest is broken. */
export async function inspectPlugin(
  root: string,
  fallbackName: string,
): Promise<{ plugin?: PluginInspection; diagnostics: Diagnostic[] }> {
  const realRoot = await realpath(root).catch(() => undefined);
  if (!realRoot)
    return {
      diagnostics: [{ severity: "error", source: root, message: "plugin directory is missing; re-add the plugin" }],
    };
  const manifestLoad = await loadPluginManifest(realRoot, fallbackName);
  const diagnostics = [...manifestLoad.diagnostics];
  const manifest = manifestLoad.manifest;
  if (!manifest) return { diagnostics };
  const inventory = await buildInventory(realRoot, manifest);
  diagnostics.push(...inventory.diagnostics);
  const mcp = await declaredMcpServers(inventory.mcpFiles, manifest.inlineMcp);
  diagnostics.push(...mcp.diagnostics);
  const hooks = await readHookDocuments(inventory.hookFiles);
  for (const error of hooks.errors)
    diagnostics.push({
      severity: "error",
      source: realRoot,
      message: `hooks file unreadable (the hooks loader will report it too): ${error}`,
    });
  const hookCommands = Object.entries(hooks.documents).flatMap(([file, document]) => summarizeHooks(document, file));
  if (manifest.inlineHooks && manifest.manifestPath)
    hookCommands.push(...summarizeHooks(manifest.inlineHooks, manifest.manifestPath));
  const relativeDocs = Object.fromEntries(
    Object.entries(hooks.documents).map(([file, document]) => [relative(realRoot, file), document]),
  );
  // The tree, not just the definitions: a hook `node ${CLAUDE_PLUGIN_ROOT}/hook.mjs` runs hook.mjs's bytes.
  const files = await treeDigest(realRoot, { skipDirs: [".git"] });
  const fingerprint = sha256(
    canonicalJson({
      mcp: mcp.servers,
      hooks: relativeDocs,
      inlineHooks: manifest.inlineHooks ?? null,
      hookFiles: inventory.hookFiles.map((file) => relative(realRoot, file)),
      tree: digestOfDigests(files),
    }),
  );
  return {
    plugin: {
      root: realRoot,
      manifest,
      inventory,
      declaredMcp: mcp.servers,
      hookCommands,
      files,
      fingerprint,
      diagnostics,
    },
    diagnostics,
  };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** JSON with sorted keys, so the fingerprint does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
