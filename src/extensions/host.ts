import type { Questioner } from "../tools/types.js";
import { renderMcpStatus, type EditorMcpServer, type McpManager } from "../mcp/index.js";
import { formatHooksDescription, type HookEngine } from "../hooks/index.js";
import { readSkillContent, skillInvocationPrompt } from "../skills/index.js";
import { projectFileRefusal } from "../gate/seams/project-file.js";
import { createWorkerSandboxFactory, type WorkerSandboxFactory } from "../interpreter/index.js";
import { sessionWatchTargets } from "../watch/index.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { closeExtensions, loadExtensions, type Extensions } from "./load.js";
import { summarizeReload } from "./reload-summary.js";
import { createPendingChanges, skillRootsOf, type PendingChanges } from "./pending-changes.js";
import type { AgentEvent } from "../agent/events.js";
import type { ExtensionServices } from "./services.js";
import type { TurnDoor } from "../gate/seams/through-door.js";
import { createMcpSignIn } from "./mcp-sign-in.js";
import type { RememberedStore } from "../gate/memory/remembered.js";
import { extensionRememberedStores } from "./remembered-stores.js";

/** How long the first turn waits for MCP servers before going on without the slow ones. */
const MCP_READY_WAIT_MS = 5000;

export type ExtensionHostOptions = {
  sessionId: string;
  cwd: string;
  projectRoot: string;
  services: ExtensionServices;
  editorMcpServers: readonly EditorMcpServer[];
  /** The session's door: trust questions are asked through it (nobody answers them in headless runs). */
  door: TurnDoor;
  transcriptPath: string;
  permissionMode: () => string;
  /** The session's observer, for what happens outside a turn. */
  observer: {
    /** An event outside a turn; false when the editor cannot show it now (it is then shown at the next turn). */
    notice(event: AgentEvent): boolean;
    /** What a /reload would pick up, on every watched change ("skill review added"); "" once reloaded. */
    reloadPending(summary: string): void;
  };
  /** Shows MCP servers' elicitations. */
  questioner?: Questioner;
};

/**
 * A session's skills, memory, subagents, plugins, hooks, MCP servers and interpreter: loaded in the
 * background after session/new, watched for edits, re-read on /reload, closed with the session.
 */
export class ExtensionHost {
  private loading: Promise<Extensions> | undefined;
  private readonly hookGrants = new Set<string>();
  /** Project MCP servers a headless run has already said it skipped. */
  private readonly skippedReported = new Set<string>();
  /** Stops watching; resolves once the watcher let go of the files. */
  private unwatch: (() => Promise<void>) | undefined;
  private stale = false;
  private pending: PendingChanges | undefined;
  private turnSink: ((event: AgentEvent) => void) | undefined;
  private readonly unshown: Diagnostic[] = [];
  /** Load diagnostics already shown in a turn (each load makes new ones). */
  private readonly shown = new WeakSet<Diagnostic>();
  readonly sandboxes: WorkerSandboxFactory;
  /** Signs in to OAuth MCP servers through the editor (url elicitation); absent without a questioner. */
  private readonly signIn: ReturnType<typeof createMcpSignIn> | undefined;

  constructor(private readonly options: ExtensionHostOptions) {
    this.sandboxes = createWorkerSandboxFactory({ logger: options.services.logger.child("interpreter") });
    this.signIn = options.questioner
      ? createMcpSignIn({
          services: options.services,
          projectRoot: options.projectRoot,
          questioner: options.questioner,
        })
      : undefined;
  }

  start(): Promise<Extensions> {
    this.loading ??= this.load();
    return this.loading;
  }

  /** The current hooks engine (user and plugin hooks until project hooks are trusted). */
  async hooks(): Promise<HookEngine> {
    return (await this.start()).hooks;
  }

  /**
   * Opens the turn's dialogs (pending trust questions are asked now), waits for decisions and for
   * MCP servers (briefly), and returns what the turn can use.
   */
  async forTurn(signal: AbortSignal, sink: (event: AgentEvent) => void): Promise<Extensions> {
    this.turnSink = sink;
    const extensions = await this.start();
    // The interpreter worker (10+ MB with QuickJS loaded) is not started here but when the model
    // starts writing an eval (the eval tool's warmUp): a turn that never evals never starts one
    // (40 sessions with a text turn each started 40 workers, and their freed memory stayed in the
    // process), and an idle worker exits after its idle time.
    await this.options.door.open(signal);
    await Promise.race([extensions.settled, aborted(signal)]);
    await Promise.race([extensions.mcp.ready(signal), aborted(signal), delay(MCP_READY_WAIT_MS)]);
    if (!this.options.door.interactive) this.reportSkippedProjectServers(extensions, sink);
    // Like trust questions, sign-ins are dialogs and belong in a turn; the turn then sees the tools.
    await this.signIn?.run(extensions, signal, sink);
    // Trust decisions add diagnostics after loading (e.g. "project hooks not loaded: not trusted").
    for (const d of extensions.diagnostics) {
      if (d.severity === "info" || this.shown.has(d)) continue;
      this.shown.add(d);
      this.unshown.push(d);
    }
    for (const d of this.unshown.splice(0))
      sink({
        type: "notice",
        severity: d.severity === "info" ? "info" : d.severity,
        title: d.message,
        description: d.source,
      });
    return extensions;
  }

  /**
   * A turn starts: questions asked while it sets up (a dev container's plan, asked before the
   * workspace the turn awaits exists) are shown now rather than after it is ready.
   */
  openDialogs(signal: AbortSignal): void {
    void this.options.door.open(signal);
  }

  endTurn(): void {
    this.options.door.close();
    this.turnSink = undefined;
  }

  /**
   * Re-reads everything; MCP servers whose definitions changed, or that were not `ok` (e.g. waiting
   * for `deep-acp mcp login`), reconnect. Waits briefly for them, as the first turn does, so the
   * summary can say whether they came back. Returns a summary for the user.
   */
  async reload(): Promise<string> {
    const before = await this.start();
    const mcpBefore = new Map(before.mcp.describe().map((server) => [server.name, server.status]));
    await this.options.services.reloadConfig();
    this.loading = this.load(before);
    const after = await this.loading;
    this.stale = false;
    this.options.observer.reloadPending("");
    await connectionsSettled(after.mcp, MCP_READY_WAIT_MS);
    return summarizeReload(before, after) + mcpStatusChanges(mcpBefore, after);
  }

  /** Loaded skills (name and description), for /skills and the /skill: commands. */
  async skillList(): Promise<Array<{ name: string; description: string; source: string }>> {
    return (await this.start()).skills.items.map((s) => ({
      name: s.name,
      description: s.description,
      source: s.source,
    }));
  }

  /** The prompt text of `/skill:<name> [args]`, or why it cannot be used. */
  async skillInvocation(
    name: string,
    args: string,
  ): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
    const { skills } = await this.start();
    const skill = skills.items.find((s) => s.name === name);
    if (!skill) return { ok: false, error: `There is no skill named "${name}". Run /skills to see them.` };
    const content = await readSkillContent(skill, skills.roots, projectFileRefusal);
    return content.ok
      ? { ok: true, text: skillInvocationPrompt(skill, content.content, args) }
      : { ok: false, error: content.error };
  }

  /** Where the session's remembered decisions are kept (~/.deepagents/.state). */
  get stateDir(): string {
    return this.options.services.paths.stateDir;
  }

  /** The extensions' remembered decisions (MCP servers, this session's MCP answers, hooks, skill links), for /permissions. */
  rememberedStores(): RememberedStore[] {
    return extensionRememberedStores({
      stateDir: this.stateDir,
      projectRoot: this.options.projectRoot,
      mcpTrust: async () => (await this.start().catch(() => undefined))?.mcpTrust,
    });
  }

  /** Markdown for /mcp: servers, status, tools and reasons. */
  async describeMcp(): Promise<string> {
    return renderMcpStatus((await this.start()).mcp.describe());
  }

  /** Markdown for /hooks: loaded hooks by event, with their source and last diagnostics. */
  async describeHooks(): Promise<string> {
    return formatHooksDescription((await this.hooks()).describe());
  }

  async close(): Promise<void> {
    await this.unwatch?.().catch(() => undefined);
    const extensions = await this.loading?.catch(() => undefined);
    if (extensions?.hooks.hasHandlers("SessionEnd"))
      await extensions.hooks.run("SessionEnd", { reason: "other" }).catch(() => undefined);
    await closeExtensions(extensions);
    await this.sandboxes.shutdown().catch(() => undefined);
  }

  private async load(previous?: Extensions): Promise<Extensions> {
    const { services } = this.options;
    const { config } = await services.config();
    const extensions = await loadExtensions(
      {
        sessionId: this.options.sessionId,
        cwd: this.options.cwd,
        projectRoot: this.options.projectRoot,
        services,
        config,
        editorMcpServers: this.options.editorMcpServers,
        trust: this.options.door,
        transcriptPath: this.options.transcriptPath,
        permissionMode: this.options.permissionMode,
        hookGrants: this.hookGrants,
        onHookStatus: (phase, status) => this.hookStatus(phase, status),
        onWarning: (title, description) => this.warn(title, description),
        ...(this.options.questioner ? { questioner: this.options.questioner } : {}),
      },
      previous,
    );
    this.watch(extensions);
    return extensions;
  }

  private watch(extensions: Extensions): void {
    // A reload re-subscribes at once; the old subscription winds down on its own.
    void this.unwatch?.().catch(() => undefined);
    const { services, projectRoot } = this.options;
    const targets = sessionWatchTargets({ user: services.paths, projectRoot, plugins: extensions.plugins });
    const pending = createPendingChanges({
      skillRoots: skillRootsOf(targets),
      loadedSkillDirs: extensions.skills.items.map((skill) => skill.dir),
    });
    this.pending = pending;
    this.unwatch = services.watchHub.watch(projectRoot, targets, (change) => {
      // Every change updates what is pending (the editor's /reload entry); the notice is sent once.
      pending.add(change);
      if (this.pending === pending) this.options.observer.reloadPending(pending.describe());
      if (this.stale) return;
      this.stale = true;
      const event: AgentEvent = {
        type: "notice",
        severity: "info",
        title: `Changed: ${change.labels.join(", ")}. Run /reload to apply the changes.`,
        description: change.paths.slice(0, 5).join(", "),
      };
      if (!this.options.observer.notice(event))
        this.unshown.push({ severity: "info", source: change.paths[0] ?? "config", message: event.title });
    });
  }

  /**
   * Headless runs cannot ask about project MCP servers: say once which ones were left off and how to
   * allow them, rather than leave the user wondering why their tools are missing.
   */
  private reportSkippedProjectServers(extensions: Extensions, sink: (event: AgentEvent) => void): void {
    const skipped = extensions.mcp
      .describe()
      .filter(
        (server) =>
          server.status === "untrusted" && server.trust === "pending" && !this.skippedReported.has(server.name),
      );
    if (skipped.length === 0) return;
    for (const server of skipped) this.skippedReported.add(server.name);
    const names = skipped.map((server) => `"${server.name}"`).join(", ");
    sink({
      type: "notice",
      severity: "warning",
      title: `Project MCP server${skipped.length === 1 ? "" : "s"} ${names} not started (not approved)`,
      description: "approve in an editor session, or pass --trust-project-mcp for this run",
    });
  }

  /** A warning for the editor now, or at the next turn when it cannot be shown now. */
  private warn(title: string, description: string): void {
    const event: AgentEvent = { type: "notice", severity: "warning", title, description };
    if (!this.options.observer.notice(event))
      this.unshown.push({ severity: "warning", source: description, message: title });
  }

  /** A running hook with a status message shows in the editor while it runs. */
  private hookStatus(phase: "start" | "end", status: { runId: string; statusMessage?: string; hook: string }): void {
    if (!status.statusMessage) return;
    const toolCallId = `hook-${status.runId}`;
    const event: AgentEvent =
      phase === "start"
        ? {
            type: "tool_call",
            toolCallId,
            name: "hook",
            title: status.statusMessage,
            kind: "other",
            status: "in_progress",
            locations: [],
            rawInput: { hook: status.hook },
          }
        : { type: "tool_call_update", toolCallId, status: "completed" };
    if (this.turnSink) this.turnSink(event);
    else this.options.observer.notice(event);
  }
}

/**
 * Resolves once no server is still connecting, or after `ms`. Unlike `ready()` it does not wait for
 * trust decisions: their dialogs only open at the next turn.
 */
function connectionsSettled(mcp: McpManager, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const check = () => {
      if (!mcp.describe().some((server) => server.status === "connecting")) finish();
    };
    const timer = setTimeout(finish, ms);
    timer.unref();
    const unsubscribe = mcp.onChange(check);
    check();
  });
}

/** `- MCP secure: unauthenticated → ok` lines for servers whose status changed across a reload. */
function mcpStatusChanges(before: ReadonlyMap<string, string>, after: Extensions): string {
  const lines = after.mcp
    .describe()
    .filter((server) => before.has(server.name) && before.get(server.name) !== server.status)
    .map(
      (server) =>
        `- MCP ${server.name}: ${before.get(server.name)} → ${server.status}${server.reason ? ` (${server.reason})` : ""}`,
    );
  return lines.length > 0 ? `\n${lines.join("\n")}` : "";
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }),
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
