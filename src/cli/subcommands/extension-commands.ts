import { projectPaths, userPaths } from "../../config/paths.js";
import { findProjectRoot } from "../../config/project-root.js";
import { loadConfigFile } from "../../config/config-file.js";
import {
  collectMcpList,
  createMcpTrustResolver,
  createMcpTrustStore,
  createUrlOpener,
  discoverMcpServers,
  MCP_FLAGS_CONFLICT,
  mcpLogin,
  McpLoginError,
  mcpLogout,
  renderMcpList,
} from "../../mcp/index.js";
import { createPluginsCli } from "../../plugins/index.js";
import { prepareBuiltinSkills, sessionSkillSources } from "../../extensions/index.js";
import { createSkillsCli, createSkillTrustStore } from "../../skills/index.js";
import { loadEnabledPlugins } from "../../plugins/index.js";
import { projectFileRefusal } from "../../gate/seams/project-file.js";
import type { CliOptions } from "../args/args.js";
import { terminalSafeIo } from "../../util/terminal-text.js";

export type CommandIo = { stdout: (text: string) => void; stderr: (text: string) => void };
// Server and skill names, descriptions and paths come from project files: printed escaped.
const defaultIo: CommandIo = terminalSafeIo({
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
});

/** What the mcp and skills subcommands read first: the user's paths, the project, config.toml, the enabled plugins. */
async function extensionSetup(cli: CliOptions, cwd: string) {
  const paths = userPaths(cli.agent);
  const projectRoot = findProjectRoot(cwd);
  const { config } = await loadConfigFile(paths.configFile);
  const plugins = await loadEnabledPlugins({ pluginsDir: paths.pluginsDir, stateDir: paths.stateDir, projectRoot });
  return { paths, projectRoot, config, plugins };
}

function usage(io: CommandIo, text: string): number {
  io.stderr(`Usage: ${text}\n`);
  return 2;
}

/** `deep-acp mcp list | login NAME | logout NAME` */
export async function runMcpCommand(
  cli: CliOptions,
  args: string[],
  io: CommandIo = defaultIo,
  cwd = process.cwd(),
): Promise<number> {
  const [action, name] = args;
  if (cli.noMcp && cli.mcpConfig) {
    io.stderr(`deep-acp: ${MCP_FLAGS_CONFLICT}\n`);
    return 2;
  }
  const { paths, projectRoot, config, plugins } = await extensionSetup(cli, cwd);
  const discovery = await discoverMcpServers({
    projectRoot,
    home: paths.home,
    configFlag: cli.mcpConfig,
    noMcp: cli.noMcp,
    pluginServers: plugins.items.map((p) => ({
      plugin: p.id,
      origin: p.root,
      servers: p.mcpServers,
      variables: p.env,
    })),
    cwd,
  });
  const envPolicy = { projectEnv: config.mcp.project_env };
  const trust = createMcpTrustResolver({
    store: createMcpTrustStore({ stateDir: paths.stateDir }),
    projectRoot,
    trustProjectServers: cli.trustProjectMcp,
    envPolicy,
  });
  switch (action) {
    case undefined:
    case "list": {
      const report = await collectMcpList({
        discovery,
        trust,
        stateDir: paths.stateDir,
        manager: { disabledServers: config.mcp.disabled_servers, envPolicy },
      });
      io.stdout(renderMcpList(report));
      return report.diagnostics.some((d) => d.severity === "error") ? 1 : 0;
    }
    case "login": {
      if (!name) return usage(io, "deep-acp mcp login NAME");
      try {
        const result = await mcpLogin(name, {
          entries: discovery.items,
          trust,
          envPolicy,
          stateDir: paths.stateDir,
          openUrl: createUrlOpener({ write: (t) => io.stderr(t) }),
        });
        io.stdout(
          `Logged in to ${result.server}; tokens saved in ${result.tokenFile}. Run /reload in open editor sessions.\n`,
        );
        return 0;
      } catch (error) {
        if (error instanceof McpLoginError) {
          io.stderr(`deep-acp: ${error.message}\n`);
          return 1;
        }
        throw error;
      }
    }
    case "logout": {
      if (!name) return usage(io, "deep-acp mcp logout NAME");
      const result = await mcpLogout(name, { stateDir: paths.stateDir });
      io.stdout(result.removed.length > 0 ? `Logged out of ${name}.\n` : `No stored login for ${name}.\n`);
      return 0;
    }
    default:
      return usage(io, "deep-acp mcp list | login NAME | logout NAME");
  }
}

/** `deep-acp skills list | info NAME | create NAME [--project] | delete NAME [--force]` */
export async function runSkillsCommand(
  cli: CliOptions,
  args: string[],
  io: CommandIo = defaultIo,
  cwd = process.cwd(),
): Promise<number> {
  const [action, name] = args;
  const { paths, projectRoot, config, plugins } = await extensionSetup(cli, cwd);
  const builtinDir = await prepareBuiltinSkills(paths).catch(() => undefined);
  const approved = (await createSkillTrustStore({ stateDir: paths.stateDir }).load()).items;
  const skills = createSkillsCli({
    sources: sessionSkillSources({
      paths,
      projectRoot,
      builtinDir,
      pluginSources: plugins.items.flatMap((p) => p.skillSources),
    }),
    userSkillsDir: paths.skillsDirs[0]!,
    projectSkillsDir: projectPaths(projectRoot).skillsDirs[0],
    extraAllowedDirs: config.skills.extra_allowed_dirs,
    approvedTargets: approved,
    home: paths.home,
    refuseProjectFile: projectFileRefusal,
  });
  let result;
  switch (action) {
    case undefined:
    case "list":
      result = await skills.list();
      break;
    case "info":
      if (!name) return usage(io, "deep-acp skills info NAME");
      result = await skills.info(name);
      break;
    case "create":
      if (!name) return usage(io, "deep-acp skills create NAME [--project]");
      result = await skills.create(name, { project: cli.project });
      break;
    case "delete":
      if (!name) return usage(io, "deep-acp skills delete NAME --force");
      if (!cli.force) {
        io.stderr(`deep-acp: this deletes the skill folder of "${name}"; run again with --force to confirm\n`);
        return 2;
      }
      result = await skills.delete(name);
      break;
    default:
      return usage(io, "deep-acp skills list | info NAME | create NAME [--project] | delete NAME --force");
  }
  (result.exitCode === 0 ? io.stdout : io.stderr)(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
  return result.exitCode;
}

/** `deep-acp plugins add SOURCE | list | enable ID [--force] | disable ID | remove ID` */
export async function runPluginsCommand(
  cli: CliOptions,
  args: string[],
  io: CommandIo = defaultIo,
  cwd = process.cwd(),
): Promise<number> {
  const [action, target] = args;
  const paths = userPaths(cli.agent);
  const plugins = createPluginsCli({
    pluginsDir: paths.pluginsDir,
    stateDir: paths.stateDir,
    projectRoot: findProjectRoot(cwd),
    cwd,
    home: paths.home,
  });
  let result;
  switch (action) {
    case "add":
      if (!target) return usage(io, "deep-acp plugins add SOURCE");
      result = await plugins.add(target);
      break;
    case undefined:
    case "list":
      result = await plugins.list();
      break;
    case "enable":
      if (!target) return usage(io, "deep-acp plugins enable ID --force");
      if (!cli.force) {
        // Enabling is the consent for the plugin's hooks and MCP servers: show what would run first.
        const described = await plugins.describe(target);
        io.stdout(`${described.text}\n`);
        if (described.exitCode !== 0) return described.exitCode;
        io.stderr("deep-acp: review the commands above, then run again with --force to enable the plugin\n");
        return 2;
      }
      result = await plugins.enable(target);
      break;
    case "disable":
      if (!target) return usage(io, "deep-acp plugins disable ID");
      result = await plugins.disable(target);
      break;
    case "remove":
      if (!target) return usage(io, "deep-acp plugins remove ID");
      result = await plugins.remove(target);
      break;
    default:
      return usage(io, "deep-acp plugins add SOURCE | list | enable ID --force | disable ID | remove ID");
  }
  (result.exitCode === 0 ? io.stdout : io.stderr)(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
  return result.exitCode;
}
