import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-file.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { readJsonObjectFile } from "../util/json-file.js";
import { isPlainObject } from "./manifest.js";

// Three state files under ~/.deepagents/.state (0600 in a 0700 dir, written atomically):
//   plugin_marketplaces.json  {"version":1,"marketplaces":{"<name>":{"source_type","source","install_location"}}}
//   installed_plugins.json    {"version":1,"plugins":{"<id>":{"installPath","version"?,"source","installedAt"}}}
//   plugin_state.json         {"version":1,"enabledPlugins":{"<id>":true},"consent":{"<id>":"<sha256>"},
//                              "consentFiles":{"<id>":{"<relative path>":"<sha256>"}}}
// `consent` fingerprints the hooks and MCP servers the user saw when enabling and every file of the
// plugin; a plugin whose fingerprint no longer matches is not loaded until it is enabled (and
// reviewed) again. `consentFiles` lets that message say which files changed.

const VERSION = 1;

export class PluginStateError extends Error {
  override name = "PluginStateError";
}

export type MarketplaceRecord = { sourceType: "directory" | "file"; source: string; installLocation: string };
export type InstalledPlugin = { installPath: string; version?: string; source: string; installedAt: string };

export type PluginState = {
  marketplaces: Record<string, MarketplaceRecord>;
  installed: Record<string, InstalledPlugin>;
  /** Enabled plugin id -> consent fingerprint ("" when unknown). */
  enabled: Record<string, string>;
  /** Enabled plugin id -> the file digests consented to (absent for consents given before they were kept). */
  consentFiles: Record<string, Record<string, string>>;
};

export type PluginStateStore = {
  /** Lenient: unreadable files count as empty and are reported. */
  load(): Promise<{ state: PluginState; diagnostics: Diagnostic[] }>;
  /** Strict: throws PluginStateError rather than let a write erase a file it could not parse. */
  loadForUpdate(): Promise<PluginState>;
  save(state: PluginState): Promise<void>;
};

export function createPluginStateStore(stateDir: string): PluginStateStore {
  const files = {
    marketplaces: join(stateDir, "plugin_marketplaces.json"),
    installed: join(stateDir, "installed_plugins.json"),
    state: join(stateDir, "plugin_state.json"),
  };

  async function readJson(path: string, strict: boolean, diagnostics: Diagnostic[]): Promise<Record<string, unknown>> {
    const read = await readJsonObjectFile(path);
    if (read.state === "missing") return {};
    if (read.state === "invalid") return bad(read.reason);
    const raw = read.value;
    if (raw.version !== undefined && (typeof raw.version !== "number" || raw.version > VERSION))
      return bad(`unsupported version ${JSON.stringify(raw.version)}`);
    return raw;

    function bad(message: string): Record<string, unknown> {
      if (strict) throw new PluginStateError(`${path}: ${message}; fix or delete the file`);
      diagnostics.push({ severity: "error", source: path, message: `${message}; treated as empty` });
      return {};
    }
  }

  async function read(strict: boolean) {
    const diagnostics: Diagnostic[] = [];
    const [m, i, s] = await Promise.all([
      readJson(files.marketplaces, strict, diagnostics),
      readJson(files.installed, strict, diagnostics),
      readJson(files.state, strict, diagnostics),
    ]);
    const state: PluginState = { marketplaces: {}, installed: {}, enabled: {}, consentFiles: {} };
    for (const [name, record] of Object.entries(isPlainObject(m.marketplaces) ? m.marketplaces : {})) {
      if (!isPlainObject(record) || typeof record.source !== "string") continue;
      const sourceType = record.source_type === "file" ? "file" : "directory";
      const installLocation = typeof record.install_location === "string" ? record.install_location : record.source;
      state.marketplaces[name] = { sourceType, source: record.source, installLocation };
    }
    for (const [id, entry] of Object.entries(isPlainObject(i.plugins) ? i.plugins : {})) {
      if (!isPlainObject(entry) || typeof entry.installPath !== "string") continue;
      const plugin: InstalledPlugin = {
        installPath: entry.installPath,
        source: typeof entry.source === "string" ? entry.source : "",
        installedAt: typeof entry.installedAt === "string" ? entry.installedAt : "",
      };
      if (typeof entry.version === "string") plugin.version = entry.version;
      state.installed[id] = plugin;
    }
    const consent = isPlainObject(s.consent) ? s.consent : {};
    for (const [id, on] of Object.entries(isPlainObject(s.enabledPlugins) ? s.enabledPlugins : {})) {
      if (on === true) state.enabled[id] = typeof consent[id] === "string" ? (consent[id] as string) : "";
    }
    const consentFiles = isPlainObject(s.consentFiles) ? s.consentFiles : {};
    for (const [id, files] of Object.entries(consentFiles)) {
      if (!(id in state.enabled) || !isPlainObject(files)) continue;
      state.consentFiles[id] = Object.fromEntries(
        Object.entries(files).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      );
    }
    return { state, diagnostics };
  }

  return {
    load: () => read(false),
    loadForUpdate: async () => (await read(true)).state,
    async save(state) {
      const marketplaces = Object.fromEntries(
        Object.entries(state.marketplaces).map(([name, r]) => [
          name,
          { source_type: r.sourceType, source: r.source, install_location: r.installLocation },
        ]),
      );
      const ids = Object.keys(state.enabled).sort();
      await writeFileAtomic(files.marketplaces, json({ version: VERSION, marketplaces }));
      await writeFileAtomic(files.installed, json({ version: VERSION, plugins: sortKeys(state.installed) }));
      await writeFileAtomic(
        files.state,
        json({
          version: VERSION,
          enabledPlugins: Object.fromEntries(ids.map((id) => [id, true])),
          consent: Object.fromEntries(ids.map((id) => [id, state.enabled[id]])),
          consentFiles: Object.fromEntries(
            ids.filter((id) => state.consentFiles[id]).map((id) => [id, state.consentFiles[id]]),
          ),
        }),
      );
    },
  };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
