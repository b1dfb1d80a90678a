import type { Questioner } from "../tools/types.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import { projectPaths } from "../config/paths.js";
import {
  createHookEngine,
  createHookTrustStore,
  formatHookTrustRequest,
  loadHooksConfig,
  resolveProjectHookTrust,
  type HookEngine,
  type HookSource,
  type HookTrustAnswer,
  type HookTrustDetails,
} from "../hooks/index.js";
import {
  createMcpManager,
  createMcpTrustResolver,
  createMcpTrustStore,
  discoverMcpServers,
  type EditorMcpServer,
  type McpManager,
  type McpServerEntry,
  type McpEnvPolicy,
  type McpTrustDecision,
  type McpTrustResolver,
} from "../mcp/index.js";
import { loadMemory, type MemoryLoad } from "../memory/index.js";
import { loadEnabledPlugins, type LoadedPlugin } from "../plugins/index.js";
import { describePendingLink, type PendingSymlink, type Skill, type SkillSource } from "../skills/index.js";
import { loadSubagents, type SubagentDefinition } from "../subagents/index.js";
import { rememberedKey, type Remembered } from "../gate/memory/remembered.js";
import { extensionRemembered, type HookSessionGrants } from "./remembered-stores.js";
import { canonicalRoot } from "../util/path-within.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import type { ExtensionServices } from "./services.js";
import { loadSkillSet, prepareBuiltinSkills } from "./skill-set.js";
import type { TrustAsker } from "../gate/seams/through-door.js";
import { builtinToolNames } from "../tools/registry.js";
import { projectFileRefusal } from "../gate/seams/project-file.js";

/** Everything a session loads beyond its files: the extension surface of the seeds. */
export type Extensions = {
  skills: { items: Skill[]; sources: SkillSource[]; roots: string[] };
  memory: MemoryLoad;
  subagents: SubagentDefinition[];
  plugins: LoadedPlugin[];
  /** Replaced when project hooks are trusted later in the session. */
  hooks: HookEngine;
  mcp: McpManager;
  mcpEntries: McpServerEntry[];
  /** `[mcp] project_env`, shared with the MCP manager and updated on /reload. */
  mcpEnvPolicy: McpEnvPolicy;
  /** The trust resolver `mcp` asks (kept across /reload with the manager): allow-once and rejections of this session. */
  mcpTrust: McpTrustResolver;
  diagnostics: Diagnostic[];
  /** Resolves when every background decision (hook trust, symlinks) has been applied. */
  settled: Promise<void>;
};

export type ExtensionInputs = {
  sessionId: string;
  cwd: string;
  projectRoot: string;
  services: ExtensionServices;
  config: DeepAcpConfig;
  editorMcpServers: readonly EditorMcpServer[];
  /** The session's door for trust questions; `interactive` false: headless runs rely on flags only. */
  trust: TrustAsker;
  transcriptPath: string;
  permissionMode: () => string;
  onHookStatus?: (phase: "start" | "end", status: { runId: string; statusMessage?: string; hook: string }) => void;
  /** Hook-trust grants made with "allow once", kept across /reload (listed by /permissions). */
  hookGrants: HookSessionGrants;
  /** Where MCP servers' questions (elicitations) are shown; absent or without forms = not offered to servers. */
  questioner?: Questioner;
  /** Tells the editor about something it did not see (a form declined because it asks for a secret). */
  onWarning?: (title: string, description: string) => void;
};

/** Loads everything in parallel; broken pieces become diagnostics, never failures. */
export async function loadExtensions(inputs: ExtensionInputs, previous?: Extensions): Promise<Extensions> {
  const { services, projectRoot, config } = inputs;
  const paths = services.paths;
  const diagnostics: Diagnostic[] = [];
  const builtinDir = prepareBuiltinSkills(paths);

  const plugins = await loadEnabledPlugins({ pluginsDir: paths.pluginsDir, stateDir: paths.stateDir, projectRoot });
  diagnostics.push(...plugins.diagnostics);
  const builtin = await builtinDir.catch(() => undefined);
  const { skills, memory, subagents, hookLoad, discovery } = await loadPieces(inputs, plugins.items, builtin);
  diagnostics.push(
    ...skills.diagnostics,
    ...memory.diagnostics,
    ...subagents.diagnostics,
    ...hookLoad.diagnostics,
    ...discovery.diagnostics,
  );

  // Hooks start without project handlers until their trust is settled (a dialog at the next turn).
  const buildEngine = (
    items: typeof hookLoad.items,
    extra: typeof hookLoad.diagnostics = [],
    approvedScripts?: Record<string, string>,
  ) =>
    createHookEngine({
      config: items,
      ...(approvedScripts ? { approvedScripts } : {}),
      loadDiagnostics: [...hookLoad.diagnostics, ...extra],
      files: hookLoad.files,
      projectRoot,
      sessionId: inputs.sessionId,
      transcriptPath: inputs.transcriptPath,
      cwd: inputs.cwd,
      permissionMode: inputs.permissionMode,
      env: services.env,
      passEnv: config.hooks.pass_env,
      logger: services.logger.child("hooks"),
      onHookStart: (s) => inputs.onHookStatus?.("start", s),
      onHookEnd: (s) => inputs.onHookStatus?.("end", s),
    });
  const userAndPluginHooks = hookLoad.items.filter((item) => item.source.scope !== "project");

  // Every trust answer below is written, and every "already decided?" read, through the one store.
  const remembered = extensionRemembered({
    stateDir: paths.stateDir,
    projectRoot,
    mcpTrust: async () => extensions.mcpTrust,
    hookGrants: inputs.hookGrants,
  });
  const { mcp, mcpEnvPolicy, mcpTrust } = await openMcp(inputs, discovery.items, previous, remembered);

  const extensions: Extensions = {
    skills: { items: skills.items, sources: skills.sources, roots: skills.roots },
    memory,
    subagents: subagents.items,
    plugins: plugins.items,
    hooks: buildEngine(userAndPluginHooks),
    mcp,
    mcpEntries: discovery.items,
    mcpEnvPolicy,
    mcpTrust,
    diagnostics,
    settled: Promise.resolve(),
  };

  const hookTrust = resolveProjectHookTrust({
    loaded: hookLoad,
    projectRoot,
    ...hookMemory(remembered, projectRoot, paths.stateDir),
    trustFlag: services.flags.trustProjectHooks,
    ...(inputs.trust.interactive
      ? { ask: (request) => askHookTrust(inputs.trust, request.file, formatHookTrustRequest(request)) }
      : {}),
  }).then((resolved) => {
    extensions.hooks = buildEngine(resolved.items, resolved.diagnostics, resolved.request?.scripts);
    diagnostics.push(...resolved.diagnostics.filter((d) => d.severity !== "info"));
  });
  const symlinks = approveSkillSymlinks(inputs, remembered, skills.pendingSymlinks).then(async (approved) => {
    if (!approved) return;
    const reloaded = await sessionSkillSet(inputs, plugins.items, await builtinDir.catch(() => undefined));
    extensions.skills = { items: reloaded.items, sources: reloaded.sources, roots: reloaded.roots };
  });
  extensions.settled = Promise.all([hookTrust, symlinks]).then(
    () => undefined,
    (error) => void diagnostics.push({ severity: "error", source: "extensions", message: errorMessage(error) }),
  );
  return extensions;
}

/** The skills, memory, subagents, hooks and MCP servers of the user, the project and the plugins, loaded at once. */
async function loadPieces(inputs: ExtensionInputs, plugins: readonly LoadedPlugin[], builtinDir: string | undefined) {
  const { services, projectRoot } = inputs;
  const paths = services.paths;
  const [skills, memory, subagents, hookLoad, discovery] = await Promise.all([
    sessionSkillSet(inputs, plugins, builtinDir),
    loadMemory({ refuseProjectFile: projectFileRefusal, userFile: paths.agentMemoryFile, projectRoot }),
    loadSubagents({
      refuseProjectFile: projectFileRefusal,
      userDir: paths.subagentsDir,
      projectDir: projectPaths(projectRoot).subagentsDir,
      projectRoot,
      agents: inputs.config.agents,
    }),
    loadHooksConfig([
      { scope: "project", file: projectPaths(projectRoot).hooksFile },
      { scope: "user", file: paths.hooksFile },
      ...plugins.flatMap((p) => p.hooks as HookSource[]),
    ]),
    discoverMcpServers({
      projectRoot,
      home: paths.home,
      configFlag: services.flags.mcpConfigPath,
      noMcp: services.flags.noMcp,
      editorServers: inputs.editorMcpServers,
      pluginServers: plugins.map((p) => ({
        plugin: p.id,
        origin: p.root,
        servers: p.mcpServers,
        variables: p.env,
      })),
      cwd: inputs.cwd,
    }),
  ]);
  return { skills, memory, subagents, hookLoad, discovery };
}

/** The MCP manager, started: a new one, or on /reload the session's own with the new servers. */
async function openMcp(
  inputs: ExtensionInputs,
  entries: McpServerEntry[],
  previous: Extensions | undefined,
  remembered: Remembered,
) {
  const { services, projectRoot, config } = inputs;
  const paths = services.paths;
  const mcpEnvPolicy = previous?.mcpEnvPolicy ?? { projectEnv: [] };
  mcpEnvPolicy.projectEnv = [...config.mcp.project_env];
  // The manager survives /reload with the resolver it was made with; so does this session's trust memory.
  const mcpTrust =
    previous?.mcpTrust ??
    createMcpTrustResolver({
      env: services.env,
      envPolicy: mcpEnvPolicy,
      store: createMcpTrustStore({ stateDir: paths.stateDir }),
      remembered,
      projectRoot,
      trustProjectServers: services.flags.trustProjectMcp,
      logger: services.logger.child("mcp"),
      ...(inputs.trust.interactive
        ? { decide: (request) => askMcpTrust(inputs.trust, request.name, request.title, request.detail) }
        : {}),
    });
  let mcp: McpManager;
  if (previous) {
    mcp = previous.mcp;
    await mcp.reload(entries, { disabledServers: config.mcp.disabled_servers });
  } else {
    mcp = createMcpManager({
      entries,
      trust: mcpTrust,
      stateDir: paths.stateDir,
      cwd: projectRoot,
      env: services.env,
      envPolicy: mcpEnvPolicy,
      disabledServers: config.mcp.disabled_servers,
      reservedToolNames: builtinToolNames(),
      elicit: (server) => {
        const questioner = inputs.questioner;
        if (!questioner?.forms) return undefined;
        return async (request, signal) => {
          const answer = await questioner.form(
            { message: `MCP server "${server}" asks: ${request.message}`, schema: request.schema },
            {},
            signal,
          );
          // The user never saw the form: say that it came and why it was declined.
          if (answer.action === "unsupported" && answer.secret)
            inputs.onWarning?.(`Declined a form from MCP server "${server}": ${answer.reason}`, server);
          return answer;
        };
      },
      connectTimeoutMs: config.mcp.connect_timeout_seconds * 1000,
      callTimeoutMs: config.mcp.call_timeout_seconds * 1000,
      logger: services.logger.child("mcp"),
    });
  }
  mcp.start();
  return { mcp, mcpEnvPolicy, mcpTrust };
}

function sessionSkillSet(inputs: ExtensionInputs, plugins: readonly LoadedPlugin[], builtinDir: string | undefined) {
  return loadSkillSet({
    paths: inputs.services.paths,
    projectRoot: inputs.projectRoot,
    extraAllowedDirs: inputs.config.skills.extra_allowed_dirs,
    pluginSources: plugins.flatMap((p) => p.skillSources),
    builtinDir,
    refuseProjectFile: projectFileRefusal,
  });
}

/** Asks about each skill symlink that leads out of the skill dirs; resolves whether any was approved. */
async function approveSkillSymlinks(
  inputs: ExtensionInputs,
  remembered: Remembered,
  pending: readonly PendingSymlink[],
): Promise<boolean> {
  if (!inputs.trust.interactive || pending.length === 0) return false;
  let approved = false;
  for (const link of pending) {
    const answer = await inputs.trust.ask({
      ...describePendingLink(link),
      options: [
        { id: "allow_always", name: "Allow (remember this folder)", kind: "allow_always" },
        { id: "reject_once", name: "Skip it", kind: "reject_once" },
      ],
    });
    if (answer === "allow_always") {
      const key = rememberedKey("skill-link", link.target);
      await remembered.remember(key, "allow", "everywhere", `skill link to ${link.target}`).catch(() => undefined);
      approved = true;
    }
  }
  return approved;
}

/** Project hooks' "always" and this session's "allow once", read and written through the one store. */
function hookMemory(remembered: Remembered, projectRoot: string, stateDir: string) {
  const root = canonicalRoot(projectRoot);
  const always = rememberedKey("hooks", root);
  const once = rememberedKey("hooks-session", root);
  const label = "this project's hooks";
  return {
    remembered: {
      isTrusted: async (_root: string, fingerprint: string) =>
        (await remembered.lookup(always, { fingerprint })) === "allow",
      trust: (_root: string, fingerprint: string, details?: HookTrustDetails) =>
        remembered.remember(always, "allow", "project", label, { fingerprint, ...details }),
      // Only read: the earlier approval, so the dialog can say what changed since.
      entry: (root: string) => createHookTrustStore({ stateDir }).entry(root),
    },
    sessionGrants: {
      has: async (fingerprint: string) => (await remembered.lookup(once, { fingerprint })) === "allow",
      add: (fingerprint: string) =>
        remembered.remember(once, "allow", "session", `${label} for this session`, { fingerprint }),
    },
  };
}

async function askMcpTrust(
  trust: TrustAsker,
  name: string,
  title: string,
  detail: string,
): Promise<McpTrustDecision | "cancelled"> {
  const answer = await trust.ask({
    key: `trust-mcp-${name}`,
    title,
    body: "```\n" + detail + "\n```",
    options: [
      { id: "allow_once", name: "Allow for this session", kind: "allow_once" },
      { id: "allow_always", name: "Always allow (this definition)", kind: "allow_always" },
      { id: "reject", name: "Reject", kind: "reject_once" },
      { id: "never", name: "Never run it", kind: "reject_always" },
    ],
  });
  return answer === "allow_once" || answer === "allow_always" || answer === "reject" || answer === "never"
    ? answer
    : "cancelled";
}

async function askHookTrust(trust: TrustAsker, file: string, body: string): Promise<HookTrustAnswer> {
  const answer = await trust.ask({
    key: `trust-hooks-${file}`,
    title: "Run this project's hooks?",
    body,
    options: [
      { id: "allow_once", name: "Allow for this session", kind: "allow_once" },
      { id: "allow_always", name: "Always allow (until the file changes)", kind: "allow_always" },
      { id: "reject", name: "Don't run them", kind: "reject_once" },
    ],
  });
  return answer === "allow_once" || answer === "allow_always" ? answer : "reject";
}

/** Frees what the extensions hold (MCP connections). */
export async function closeExtensions(extensions: Extensions | undefined): Promise<void> {
  await extensions?.mcp.close();
}
