import { homedir } from "node:os";
import type { BwrapAvailability } from "../../backends/sandbox/bwrap-sandbox.js";
import { loadConfigFile, type DeepAcpConfig } from "../../config/config-file.js";
import { userPaths, type UserPaths } from "../../config/paths.js";
import { findProjectRoot } from "../../config/project-root.js";
import type { EnvLike } from "../../model/catalog/credentials.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { CliOptions } from "../args/args.js";
import { collectMemoryFacts, collectSkillsFacts, collectSubagentsFacts } from "./doctor-content.js";
import { collectHooksFacts } from "./doctor-hooks.js";
import { collectMcpFacts } from "./doctor-mcp.js";
import { collectModelFacts } from "./doctor-model.js";
import { collectPluginFacts, type PluginLoad } from "./doctor-plugins.js";
import { collectRemoteFacts } from "./doctor-remote.js";
import { renderDoctorReport } from "./doctor-render.js";
import { collectNodeFacts, collectSandboxFacts } from "./doctor-system.js";
import type { DoctorConfigFacts, DoctorProblem, DoctorReport, DoctorSectionId } from "./doctor-types.js";
import { VERSION } from "../args/version.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { findCredentialsInLaunchChain, launchChainWarning } from "../../util/launch-chain.js";

export type { DoctorReport } from "./doctor-types.js";

export type DoctorOptions = {
  /** The directory whose project is checked; its project root is the nearest ancestor with `.git`. */
  cwd: string;
  /** Stands for `~` in every user-level path. */
  home: string;
  env: EnvLike;
  /** `--agent` (memory, skills and subagents live under `~/.deepagents/<agent>/`). */
  agent: string;
  /** `--model`. */
  model?: string;
  /** `--mcp-config`. */
  mcpConfig?: string;
  /** `--no-mcp`. Default false. */
  noMcp?: boolean;
  /** `--trust-project-mcp`. Default false. */
  trustProjectMcp?: boolean;
  /** `--trust-project-hooks`. Default false. */
  trustProjectHooks?: boolean;
  /** `--sandbox`; default: config.toml `[sandbox].kind`. */
  sandbox?: "none" | "bwrap";
  /** `--remote`. */
  remote?: string;
  /** --workspace */
  workspace?: string;
  /** `--trust-remote-host`. Default false. */
  trustRemoteHost?: boolean;
  /** Print one JSON document (a DoctorReport) instead of text. */
  json: boolean;
  /** Default: checkBwrapAvailable() (finds bwrap and runs `true` in a sandbox). */
  checkBwrap?: () => Promise<BwrapAvailability>;
  /** Default: process.version. */
  nodeVersion?: string;
};

export type DoctorIo = { stdout: { write(text: string): unknown } };

/**
 * `deep-acp doctor`: what a session in `cwd` would load, and what is broken. Read-only: it starts no
 * MCP server, runs no hook, sends no model request and writes nothing. Returns the exit code: 0 when
 * nothing is broken (warnings allowed), 1 otherwise.
 */
export async function runDoctor(options: DoctorOptions, io: DoctorIo = { stdout: process.stdout }): Promise<number> {
  const report = await collectDoctorReport(options);
  // Names and paths in the report come from project files; escaped, the JSON stays valid JSON.
  io.stdout.write(terminalSafe(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctorReport(report)));
  return report.ok ? 0 : 1;
}

/** The entry point for main.ts: `deep-acp doctor [--json] [--model M] [--agent A] [--mcp-config P | --no-mcp] [--sandbox K] ...`. */
export function runDoctorCommand(cli: CliOptions): Promise<number> {
  return runDoctor({
    cwd: process.cwd(),
    home: homedir(),
    env: process.env,
    agent: cli.agent,
    json: cli.json,
    noMcp: cli.noMcp,
    trustProjectMcp: cli.trustProjectMcp,
    trustProjectHooks: cli.trustProjectHooks,
    ...(cli.model !== undefined ? { model: cli.model } : {}),
    ...(cli.mcpConfig !== undefined ? { mcpConfig: cli.mcpConfig } : {}),
    ...(cli.sandbox !== undefined ? { sandbox: cli.sandbox } : {}),
    ...(cli.remote !== undefined ? { remote: cli.remote } : {}),
    ...(cli.workspace !== undefined ? { workspace: cli.workspace } : {}),
    trustRemoteHost: cli.trustRemoteHost,
  });
}

export async function collectDoctorReport(options: DoctorOptions): Promise<DoctorReport> {
  const projectRoot = findProjectRoot(options.cwd);
  const paths = userPaths(options.agent, options.home);
  const loadedConfig = await loadConfigFile(paths.configFile);
  const plugins = await collectPluginFacts(paths, projectRoot);
  const facts = await collectSectionFacts({ options, paths, projectRoot, config: loadedConfig.config, plugins });
  // The key in the environment of whatever launched this process (npx's `npm exec`): a Model warning.
  const launch = launchChainWarning(findCredentialsInLaunchChain({ env: options.env }));
  if (launch) facts.model.diagnostics.push({ severity: "warning", source: "launch", message: launch });
  const node = collectNodeFacts(options.nodeVersion ?? process.version);
  const configFacts: DoctorConfigFacts = {
    file: configFile(paths.configFile, loadedConfig.found, loadedConfig.diagnostics),
    diagnostics: loadedConfig.diagnostics,
  };
  const sections: Array<[DoctorSectionId, Diagnostic[]]> = [
    ["node", node.diagnostics],
    ["model", facts.model.diagnostics],
    ["config", configFacts.diagnostics],
    ["mcp", facts.mcp.diagnostics],
    ["hooks", facts.hooks.diagnostics],
    ["memory", facts.memory.diagnostics],
    ["skills", facts.skills.diagnostics],
    ["subagents", facts.subagents.diagnostics],
    ["plugins", plugins.facts.diagnostics],
    ["sandbox", facts.sandbox.diagnostics],
    ["remote", facts.remote.diagnostics],
  ];
  const problems = problemsOf(sections, "error");
  return {
    ok: problems.length === 0,
    version: VERSION,
    cwd: options.cwd,
    projectRoot,
    home: options.home,
    agent: options.agent,
    node,
    model: facts.model,
    config: configFacts,
    mcp: facts.mcp,
    hooks: facts.hooks,
    memory: facts.memory,
    skills: facts.skills,
    subagents: facts.subagents,
    plugins: plugins.facts,
    sandbox: facts.sandbox,
    remote: facts.remote,
    problems,
    warnings: problemsOf(sections, "warning"),
  };
}

/** The sections that read files, the engine or the network, collected at once. */
async function collectSectionFacts({
  options,
  paths,
  projectRoot,
  config,
  plugins,
}: {
  options: DoctorOptions;
  paths: UserPaths;
  projectRoot: string;
  config: DeepAcpConfig;
  plugins: PluginLoad;
}) {
  const checkBwrap =
    options.checkBwrap ?? (async () => (await import("../../backends/sandbox/bwrap-sandbox.js")).checkBwrapAvailable());
  const [model, mcp, hooks, memory, skills, subagents, sandbox, remote] = await Promise.all([
    collectModelFacts({
      env: options.env,
      flag: options.model,
      configDefault: config.model.default,
      stateDir: paths.stateDir,
    }),
    collectMcpFacts({
      cwd: options.cwd,
      home: options.home,
      projectRoot,
      stateDir: paths.stateDir,
      noMcp: options.noMcp ?? false,
      trustProjectMcp: options.trustProjectMcp ?? false,
      pluginServers: plugins.items.map((p) => ({
        plugin: p.id,
        origin: p.root,
        servers: p.mcpServers,
        variables: p.env,
      })),
      disabledServers: config.mcp.disabled_servers,
      projectEnv: config.mcp.project_env,
      ...(options.mcpConfig !== undefined ? { configFlag: options.mcpConfig } : {}),
    }),
    collectHooksFacts({
      userFile: paths.hooksFile,
      projectRoot,
      stateDir: paths.stateDir,
      trustProjectHooks: options.trustProjectHooks ?? false,
      pluginSources: plugins.items.flatMap((p) => p.hooks),
    }),
    collectMemoryFacts(paths, projectRoot),
    collectSkillsFacts({
      user: paths,
      projectRoot,
      extraAllowedDirs: config.skills.extra_allowed_dirs,
      pluginSources: plugins.items.flatMap((p) => p.skillSources),
    }),
    collectSubagentsFacts(paths, projectRoot),
    collectSandboxFacts({
      ...(options.sandbox !== undefined ? { flag: options.sandbox } : {}),
      configKind: config.sandbox.kind,
      check: checkBwrap,
    }),
    collectRemoteFacts({
      cwd: options.cwd,
      home: options.home,
      config,
      trustRemoteHost: options.trustRemoteHost ?? false,
      ...(options.remote !== undefined ? { flag: options.remote } : {}),
      ...(options.workspace !== undefined ? { workspaceFlag: options.workspace } : {}),
    }),
  ]);
  return { model, mcp, hooks, memory, skills, subagents, sandbox, remote };
}

/** The diagnostics of one severity, each with the section it came from. */
function problemsOf(
  sections: Array<[DoctorSectionId, Diagnostic[]]>,
  severity: Diagnostic["severity"],
): DoctorProblem[] {
  return sections.flatMap(([section, list]) =>
    list.filter((d) => d.severity === severity).map((d) => ({ section, source: d.source, message: d.message })),
  );
}

function configFile(path: string, found: boolean, diagnostics: Diagnostic[]): DoctorConfigFacts["file"] {
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) return { path, state: "invalid", detail: errors.map((d) => d.message).join("; ") };
  return { path, state: found ? "found" : "missing" };
}
