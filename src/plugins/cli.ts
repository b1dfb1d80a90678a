import { mkdir, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { formatDiagnostic, type Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { consentChanges } from "./consent-changes.js";
import { consentText } from "./consent.js";
import { pluginDataKey, splitPluginId } from "./ids.js";
import { inspectPlugin } from "./inspect.js";
import { installPluginCopy, removePluginCopy } from "./install.js";
import { loadPluginManifest } from "./manifest.js";
import { directoryPluginName, resolveAddTarget } from "./marketplace.js";
import { createPluginStateStore, type PluginState } from "./state.js";

/** What a `deep-acp plugins ...` subcommand prints (stdout) and its exit code. */
export type CliResult = { text: string; exitCode: number };

export type PluginsCliOptions = {
  /** ~/.deepagents/plugins */
  pluginsDir: string;
  /** ~/.deepagents/.state */
  stateDir: string;
  /** Shown in consent text for ${CLAUDE_PROJECT_DIR}. Default none. */
  projectRoot?: string;
  /** Relative SOURCE paths resolve against it. Default process.cwd(). */
  cwd?: string;
  /** For `~` in SOURCE. Default os.homedir(). */
  home?: string;
  /** Default () => new Date(). */
  now?: () => Date;
};

export type PluginsCli = {
  /** Installs (copies) every plugin of a local marketplace, or one plugin directory as `<name>@local`; all stay disabled. */
  add(source: string): Promise<CliResult>;
  list(): Promise<CliResult>;
  /** The consent text, without enabling. */
  describe(id: string): Promise<CliResult>;
  /** Enables and returns the consent text: every hook command and MCP server the plugin will run. */
  enable(id: string): Promise<CliResult>;
  disable(id: string): Promise<CliResult>;
  /** `plugin@marketplace` uninstalls one plugin; a bare marketplace name removes it and its plugins. */
  remove(id: string): Promise<CliResult>;
};

const RELOAD_NOTE = "Run /reload in open editor sessions to apply.";

export function createPluginsCli(options: PluginsCliOptions): PluginsCli {
  const store = createPluginStateStore(options.stateDir);
  const now = options.now ?? (() => new Date());
  const dataDir = (id: string) => join(options.pluginsDir, "data", pluginDataKey(id));
  const consentContext = (id: string) => ({
    id,
    dataDir: dataDir(id),
    ...(options.projectRoot ? { projectRoot: options.projectRoot } : {}),
  });

  /** Runs a state mutation; corrupt state files abort instead of being overwritten. */
  async function mutate(run: (state: PluginState) => Promise<CliResult>): Promise<CliResult> {
    let state: PluginState;
    try {
      state = await store.loadForUpdate();
    } catch (error) {
      return { text: errorMessage(error), exitCode: 1 };
    }
    const result = await run(state);
    if (result.exitCode !== 0) return result;
    try {
      await store.save(state);
    } catch (error) {
      return { text: `${result.text}\nCould not save plugin state: ${errorMessage(error)}`, exitCode: 1 };
    }
    return result;
  }

  async function installOne(
    state: PluginState,
    id: string,
    name: string,
    marketplace: string,
    sourceDir: string,
    version: string | undefined,
    lines: string[],
  ) {
    const previous = state.installed[id];
    const installPath = await installPluginCopy({
      pluginsDir: options.pluginsDir,
      name,
      marketplace,
      sourceDir,
      ...(version ? { version } : {}),
    });
    if (previous && previous.installPath !== installPath)
      await removePluginCopy(options.pluginsDir, previous.installPath);
    state.installed[id] = {
      installPath,
      source: sourceDir,
      installedAt: now().toISOString(),
      ...(version ? { version } : {}),
    };
    const status = id in state.enabled ? await recheckConsent(state, id, name, installPath) : "disabled";
    lines.push(`  ${id}${version ? ` ${version}` : ""}: ${status}`);
  }

  async function recheckConsent(state: PluginState, id: string, name: string, installPath: string): Promise<string> {
    const { plugin } = await inspectPlugin(installPath, name);
    if (plugin && plugin.fingerprint === state.enabled[id]) return "enabled (unchanged since you enabled it)";
    const why = plugin ? consentChanges(state, id, plugin) : ["it can no longer be read"];
    delete state.enabled[id];
    delete state.consentFiles[id];
    return `disabled: changed since you enabled it (${why.join("; ")}); review it with \`deep-acp plugins enable ${id}\``;
  }

  return {
    add(source) {
      return mutate(async (state) => {
        const resolved = await resolveAddTarget(source, options.cwd ?? process.cwd(), options.home ?? homedir());
        if (!resolved.ok) return { text: resolved.error, exitCode: 1 };
        const lines: string[] = [];
        const diagnostics: Diagnostic[] = [];
        try {
          if (resolved.target.kind === "plugin") {
            const dir = resolved.target.dir;
            const manifest = await loadPluginManifest(dir, directoryPluginName(dir));
            diagnostics.push(...manifest.diagnostics);
            if (!manifest.manifest)
              return {
                text: ["Cannot add plugin:", ...diagnostics.map((d) => `  ${formatDiagnostic(d)}`)].join("\n"),
                exitCode: 1,
              };
            const id = `${manifest.manifest.name}@local`;
            lines.push(`Installed plugin from ${dir}:`);
            await installOne(state, id, manifest.manifest.name, "local", dir, manifest.manifest.version, lines);
          } else {
            const market = resolved.target.marketplace;
            if (market.name === "local")
              return {
                text: `${market.manifestPath}: the marketplace name 'local' is reserved for plugins added directly`,
                exitCode: 1,
              };
            diagnostics.push(...market.diagnostics);
            const replaced = state.marketplaces[market.name];
            state.marketplaces[market.name] = {
              sourceType: market.sourceType,
              source: market.source,
              installLocation: market.root,
            };
            lines.push(
              `Added marketplace ${market.name} (${market.source})${replaced && replaced.source !== market.source ? `, replacing the one from ${replaced.source}` : ""}:`,
            );
            if (market.entries.length === 0) lines.push("  (no installable plugins)");
            for (const entry of market.entries) {
              const manifest = await loadPluginManifest(entry.dir, entry.name);
              diagnostics.push(...manifest.diagnostics);
              if (!manifest.manifest) {
                lines.push(`  ${entry.name}@${market.name}: skipped (invalid manifest)`);
                continue;
              }
              await installOne(
                state,
                `${entry.name}@${market.name}`,
                entry.name,
                market.name,
                entry.dir,
                manifest.manifest.version ?? entry.version,
                lines,
              );
            }
          }
        } catch (error) {
          return { text: `Install failed: ${errorMessage(error)}`, exitCode: 1 };
        }
        lines.push(
          "",
          "Plugins stay disabled until you enable them: deep-acp plugins enable <id> (it shows what the plugin will run).",
        );
        if (diagnostics.length > 0) lines.push("", "Problems:", ...diagnostics.map((d) => `  ${formatDiagnostic(d)}`));
        return { text: lines.join("\n"), exitCode: 0 };
      });
    },

    async list() {
      const { state, diagnostics } = await store.load();
      const lines: string[] = [];
      const markets = Object.entries(state.marketplaces);
      lines.push(markets.length > 0 ? "Marketplaces:" : "Marketplaces: none");
      for (const [name, record] of markets) lines.push(`  ${name}: ${record.sourceType} ${record.source}`);
      const ids = Object.keys(state.installed).sort();
      lines.push(
        "",
        ids.length > 0
          ? "Plugins:"
          : "Plugins: none (add one with: deep-acp plugins add <directory or marketplace.json>)",
      );
      for (const id of ids) {
        const installed = state.installed[id]!;
        const name = splitPluginId(id)?.name ?? id;
        const inspected = await inspectPlugin(installed.installPath, name);
        diagnostics.push(...inspected.diagnostics.map((d) => ({ ...d, message: `[${id}] ${d.message}` })));
        const plugin = inspected.plugin;
        let status = id in state.enabled ? "enabled" : "disabled";
        if (plugin && id in state.enabled && plugin.fingerprint !== state.enabled[id]) {
          status = `enabled, but changed since enabling (${consentChanges(state, id, plugin).join("; ")}; not loaded; re-enable to review)`;
        }
        lines.push(`  ${id}${installed.version ? ` ${installed.version}` : ""}: ${status}`);
        if (plugin) {
          const servers = Object.keys(plugin.declaredMcp);
          lines.push(
            `    ${plugin.root}`,
            `    skill dirs: ${plugin.inventory.skillDirs.length}, MCP servers: ${servers.length > 0 ? servers.join(", ") : "none"}, hook commands: ${plugin.hookCommands.length}`,
          );
        }
      }
      for (const id of Object.keys(state.enabled)) {
        if (!state.installed[id])
          diagnostics.push({ severity: "warning", source: `plugin ${id}`, message: "enabled but not installed" });
      }
      if (diagnostics.length > 0) lines.push("", "Problems:", ...diagnostics.map((d) => `  ${formatDiagnostic(d)}`));
      return { text: lines.join("\n"), exitCode: 0 };
    },

    async describe(id) {
      const { state } = await store.load();
      const installed = state.installed[id];
      if (!installed) return notInstalled(id, state);
      const inspected = await inspectPlugin(installed.installPath, splitPluginId(id)?.name ?? id);
      if (!inspected.plugin) return brokenPlugin(id, inspected.diagnostics);
      return { text: await consentText(inspected.plugin, consentContext(id)), exitCode: 0 };
    },

    enable(id) {
      return mutate(async (state) => {
        const installed = state.installed[id];
        if (!installed) return notInstalled(id, state);
        const inspected = await inspectPlugin(installed.installPath, splitPluginId(id)?.name ?? id);
        if (!inspected.plugin) return brokenPlugin(id, inspected.diagnostics);
        const text = await consentText(inspected.plugin, consentContext(id));
        try {
          await mkdir(dataDir(id), { recursive: true, mode: 0o700 });
        } catch (error) {
          return {
            text: `Cannot create the plugin data directory ${dataDir(id)}: ${errorMessage(error)}`,
            exitCode: 1,
          };
        }
        state.enabled[id] = inspected.plugin.fingerprint;
        state.consentFiles[id] = inspected.plugin.files;
        return {
          text: `Enabled ${id}. Enabling is your consent to everything below.\n\n${text}\n\n${RELOAD_NOTE}`,
          exitCode: 0,
        };
      });
    },

    disable(id) {
      return mutate(async (state) => {
        if (!(id in state.enabled)) {
          return state.installed[id] ? { text: `${id} is already disabled.`, exitCode: 0 } : notInstalled(id, state);
        }
        delete state.enabled[id];
        return { text: `Disabled ${id}. ${RELOAD_NOTE}`, exitCode: 0 };
      });
    },

    remove(id) {
      return mutate(async (state) => {
        const ids = splitPluginId(id)
          ? [id]
          : Object.keys(state.installed).filter((candidate) => splitPluginId(candidate)?.marketplace === id);
        const isMarketplace = !splitPluginId(id) && id in state.marketplaces;
        if (!isMarketplace && !ids.some((candidate) => state.installed[candidate] || candidate in state.enabled))
          return notInstalled(id, state);
        const lines: string[] = [];
        for (const pluginId of ids) {
          const installed = state.installed[pluginId];
          if (installed) await removePluginCopy(options.pluginsDir, installed.installPath);
          await rm(dataDir(pluginId), { recursive: true, force: true });
          delete state.installed[pluginId];
          delete state.enabled[pluginId];
          lines.push(`Removed ${pluginId}.`);
        }
        if (isMarketplace) {
          delete state.marketplaces[id];
          lines.push(`Removed marketplace ${id} (its source files were not touched).`);
        }
        lines.push(RELOAD_NOTE);
        return { text: lines.join("\n"), exitCode: 0 };
      });
    },
  };
}

function notInstalled(id: string, state: PluginState): CliResult {
  const ids = Object.keys(state.installed).sort();
  return {
    text: `Plugin '${id}' is not installed.${ids.length > 0 ? ` Installed: ${ids.join(", ")}` : ""}`,
    exitCode: 1,
  };
}

function brokenPlugin(id: string, diagnostics: readonly Diagnostic[]): CliResult {
  return {
    text: [`Plugin ${id} cannot be loaded:`, ...diagnostics.map((d) => `  ${formatDiagnostic(d)}`)].join("\n"),
    exitCode: 1,
  };
}
