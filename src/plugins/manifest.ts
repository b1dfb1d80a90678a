import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { resolveComponentPath } from "./component-path.js";
import { isValidPluginName } from "./ids.js";

/** Looked up in this order under the plugin root; the manifest itself is optional. */
export const MANIFEST_PATHS = [
  "plugin.json",
  join(".claude-plugin", "plugin.json"),
  join(".codex-plugin", "plugin.json"),
];

export type PluginManifest = {
  name: string;
  version?: string;
  displayName?: string;
  description?: string;
  /** Absent when the plugin has no manifest (everything comes from default discovery). */
  manifestPath?: string;
  /** Validated, resolved component paths declared by the manifest. */
  skills: string[];
  mcpFiles: string[];
  hookPaths: string[];
  /** `mcpServers` given inline as an object (or list of objects). */
  inlineMcp?: Record<string, unknown>;
  /** `hooks` given inline, normalised to the hooks.json document shape. */
  inlineHooks?: { hooks: Record<string, unknown> };
};

export type ManifestLoad = { manifest?: PluginManifest; diagnostics: Diagnostic[] };

export async function findManifest(root: string): Promise<string | undefined> {
  for (const rel of MANIFEST_PATHS) {
    const path = join(root, rel);
    if (
      await stat(path).then(
        (info) => info.isFile(),
        () => false,
      )
    )
      return path;
  }
  return undefined;
}

/**
 * Reads the plugin manifest, or derives one named `fallbackName` when there is none. A manifest
 * that exists but is broken (bad JSON, not an object, invalid name) leaves `manifest` undefined:
 * the plugin is skipped rather than loaded half-understood.
 */
export async function loadPluginManifest(root: string, fallbackName: string): Promise<ManifestLoad> {
  const diagnostics: Diagnostic[] = [];
  const manifestPath = await findManifest(root);
  if (!manifestPath) {
    if (!isValidPluginName(fallbackName)) {
      return { diagnostics: [{ severity: "error", source: root, message: `invalid plugin name '${fallbackName}'` }] };
    }
    return { manifest: { name: fallbackName, skills: [], mcpFiles: [], hookPaths: [] }, diagnostics };
  }
  const error = (message: string): ManifestLoad => ({
    diagnostics: [{ severity: "error", source: manifestPath, message }],
  });
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(manifestPath, "utf8"));
  } catch (cause) {
    return error(`plugin skipped: cannot read manifest: ${errorMessage(cause)}`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    return error("plugin skipped: manifest must be a JSON object");
  const data = raw as Record<string, unknown>;
  const name = isValidPluginName(data.name) ? data.name : isValidPluginName(fallbackName) ? fallbackName : undefined;
  if (name === undefined)
    return error(`plugin skipped: invalid plugin name ${JSON.stringify(data.name)} (non-empty, no whitespace)`);
  const manifest: PluginManifest = { name, manifestPath, skills: [], mcpFiles: [], hookPaths: [] };
  if (typeof data.version === "string" && data.version.trim()) manifest.version = data.version.trim();
  if (typeof data.displayName === "string") manifest.displayName = data.displayName;
  if (typeof data.description === "string") manifest.description = data.description;

  const paths = async (value: unknown, field: string): Promise<string[]> => {
    const declarations = Array.isArray(value) ? value : [value];
    const out: string[] = [];
    for (const declaration of declarations) {
      const resolved = await resolveComponentPath(declaration, root, field);
      if (resolved.ok) out.push(resolved.path);
      else diagnostics.push({ severity: "warning", source: manifestPath, message: resolved.error });
    }
    return out;
  };
  if (data.skills !== undefined) manifest.skills = await paths(data.skills, "skills");
  if (isPlainObject(data.mcpServers) || (Array.isArray(data.mcpServers) && data.mcpServers.every(isPlainObject))) {
    const inline = Object.assign(
      {},
      ...(Array.isArray(data.mcpServers) ? data.mcpServers : [data.mcpServers]),
    ) as Record<string, unknown>;
    if (Object.keys(inline).length > 0) manifest.inlineMcp = inline;
  } else if (data.mcpServers !== undefined) {
    manifest.mcpFiles = await paths(data.mcpServers, "mcpServers");
  }
  if (isPlainObject(data.hooks)) {
    const hooks = isPlainObject(data.hooks.hooks) ? data.hooks.hooks : data.hooks;
    if (Object.keys(hooks).length > 0) manifest.inlineHooks = { hooks };
  } else if (data.hooks !== undefined) {
    manifest.hookPaths = await paths(data.hooks, "hooks");
  }
  return { manifest, diagnostics };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
