import { readFile, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { resolveComponentPath } from "./component-path.js";
import { isValidPluginName } from "./ids.js";
import { findManifest, isPlainObject } from "./manifest.js";

export const MARKETPLACE_MANIFEST_PATHS = [
  join(".claude-plugin", "marketplace.json"),
  join(".agents", "plugins", "marketplace.json"),
];

/** A plugin listed by a marketplace, with its local directory resolved. */
export type MarketplaceEntry = { name: string; dir: string; version?: string; description?: string };

export type Marketplace = {
  name: string;
  sourceType: "directory" | "file";
  /** The path the user gave, made absolute. */
  source: string;
  /** Directory plugin `source` paths are relative to. */
  root: string;
  manifestPath: string;
  entries: MarketplaceEntry[];
  diagnostics: Diagnostic[];
};

/** What `plugins add SOURCE` refers to. */
export type AddTarget = { kind: "marketplace"; marketplace: Marketplace } | { kind: "plugin"; dir: string };

export type AddTargetResult = { ok: true; target: AddTarget } | { ok: false; error: string };

const REMOTE_ONLY =
  "only local directory and local file marketplaces are supported (no network or git sources); clone or download it and add the local directory";

/** Classifies a `plugins add` argument: a marketplace directory or JSON file, or a bare plugin directory. */
export async function resolveAddTarget(raw: string, cwd: string, home: string): Promise<AddTargetResult> {
  const value = raw.trim();
  if (!value)
    return { ok: false, error: "missing SOURCE (a marketplace directory, marketplace JSON file or plugin directory)" };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^[\w.-]+@[^:/]+:/.test(value))
    return { ok: false, error: `'${value}': ${REMOTE_ONLY}` };
  const expanded = value === "~" ? home : value.startsWith("~/") ? join(home, value.slice(2)) : value;
  const path = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    const remoteLike = /^[\w.-]+\/[\w.-]+([#@].*)?$/.test(value) && !value.startsWith(".");
    return {
      ok: false,
      error: remoteLike ? `'${value}' is not a local path; ${REMOTE_ONLY}` : `${path} does not exist`,
    };
  }
  if (info.isFile()) {
    if (!path.endsWith(".json")) return { ok: false, error: `${path}: a marketplace file must be a .json file` };
    return loadMarketplace(path, "file", path);
  }
  if (!info.isDirectory()) return { ok: false, error: `${path} is neither a file nor a directory` };
  for (const rel of MARKETPLACE_MANIFEST_PATHS) {
    const manifest = join(path, rel);
    if (
      await stat(manifest).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return loadMarketplace(manifest, "directory", path);
  }
  if (await looksLikePlugin(path)) return { ok: true, target: { kind: "plugin", dir: path } };
  return {
    ok: false,
    error: `${path} has no marketplace manifest (${MARKETPLACE_MANIFEST_PATHS.join(" or ")}) and does not look like a plugin (no plugin.json, skills/, SKILL.md, .mcp.json or hooks/hooks.json)`,
  };
}

async function looksLikePlugin(dir: string): Promise<boolean> {
  if (await findManifest(dir)) return true;
  for (const rel of ["skills", "SKILL.md", ".mcp.json", join("hooks", "hooks.json")]) {
    if (
      await stat(join(dir, rel)).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** The directory a marketplace file's relative plugin paths start from. */
function marketplaceRoot(manifestPath: string): string {
  for (const rel of MARKETPLACE_MANIFEST_PATHS) {
    if (manifestPath.endsWith(sep + rel)) return manifestPath.slice(0, -(rel.length + 1));
  }
  return dirname(manifestPath);
}

async function loadMarketplace(
  manifestPath: string,
  sourceType: "directory" | "file",
  source: string,
): Promise<AddTargetResult> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(manifestPath, "utf8"));
  } catch (error) {
    return { ok: false, error: `${manifestPath}: ${errorMessage(error)}` };
  }
  if (!isPlainObject(raw)) return { ok: false, error: `${manifestPath}: a marketplace manifest must be a JSON object` };
  if (!isValidPluginName(raw.name, false))
    return {
      ok: false,
      error: `${manifestPath}: invalid marketplace name ${JSON.stringify(raw.name)} (non-empty, no whitespace, no '@')`,
    };
  if (!Array.isArray(raw.plugins))
    return { ok: false, error: `${manifestPath}: marketplace '${raw.name}' must have a "plugins" array` };
  const root = marketplaceRoot(manifestPath);
  const diagnostics: Diagnostic[] = [];
  const warn = (message: string) => diagnostics.push({ severity: "warning", source: manifestPath, message });
  let base = root;
  const metadata = isPlainObject(raw.metadata) ? raw.metadata : {};
  if (metadata.pluginRoot !== undefined) {
    const resolved = await resolveComponentPath(metadata.pluginRoot, root, "metadata.pluginRoot", { allowRoot: true });
    if (resolved.ok) base = resolved.path;
    else warn(resolved.error);
  }
  const entries: MarketplaceEntry[] = [];
  for (const [index, entry] of raw.plugins.entries()) {
    if (!isPlainObject(entry)) {
      warn(`plugins[${index}] is not an object; skipped`);
      continue;
    }
    if (!isValidPluginName(entry.name)) {
      warn(`plugins[${index}] has an invalid name ${JSON.stringify(entry.name)}; skipped`);
      continue;
    }
    const declared =
      typeof entry.source === "string"
        ? entry.source
        : isPlainObject(entry.source) && entry.source.source === "local"
          ? entry.source.path
          : undefined;
    if (declared === undefined) {
      const kind = isPlainObject(entry.source) ? String(entry.source.source) : typeof entry.source;
      warn(`plugin '${entry.name}' has source type '${kind}' and was skipped: ${REMOTE_ONLY}`);
      continue;
    }
    const resolved = await resolveComponentPath(declared, base, `plugins.${entry.name}.source`, { allowRoot: true });
    if (!resolved.ok) {
      warn(resolved.error);
      continue;
    }
    if (
      !(await stat(resolved.path).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    ) {
      warn(`plugin '${entry.name}': ${resolved.path} is not a directory; skipped`);
      continue;
    }
    const item: MarketplaceEntry = { name: entry.name, dir: resolved.path };
    if (typeof entry.version === "string" && entry.version.trim()) item.version = entry.version.trim();
    if (typeof entry.description === "string") item.description = entry.description;
    entries.push(item);
  }
  const marketplace: Marketplace = { name: raw.name, sourceType, source, root, manifestPath, entries, diagnostics };
  return { ok: true, target: { kind: "marketplace", marketplace } };
}

/** Name for a bare plugin directory without a manifest name. */
export function directoryPluginName(dir: string): string {
  return basename(dir);
}
