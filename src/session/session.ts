import { createSessionBackground, type SessionBackground } from "./background.js";
import { describeExit } from "../backends/background-processes.js";
import { randomUUID } from "node:crypto";
import type { Approver } from "../agent/approver.js";
import type { AgentEvent, TurnResult } from "../agent/events.js";
import { createResultOffloader, type PromptBlock, promptText, createSessionCompactor, resolvePrompt, createHookBridge, createSubagentRunner, assembleTurn } from "../turn/index.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import { runTurn, type TurnOptions } from "../agent/loop.js";
import { hookPermissionMode, isSessionMode, type SessionMode } from "../agent/modes.js";
import { formatHooksDescription, type HookEngine } from "../hooks/index.js";
import { renderMcpStatus, type EditorMcpServer } from "../mcp/index.js";
import { readSkillContent, skillInvocationPrompt } from "../skills/index.js";
import { type Extensions, ExtensionHost, type TrustPrompter } from "../extensions/index.js";
import type { EditorBridge } from "../backends/editor-bridge.js";
import type { StateSnapshot } from "../backends/state-backend.js";
import { findProjectRoot } from "../config/project-root.js";
import type { Message, ModelClient } from "../model/types.js";
import type { PlanEntry, Questioner } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { RewindError } from "./errors.js";
import type { PersistentApprovalMemory } from "./approval-memory.js";
import { createPathRuleCheck } from "./path-rules.js";
import { createRecorder, type Recorder, fileChanges, restoreFiles, type RewindReport, type RestoredSession, type SessionRecord, restoreSession } from "../transcript/index.js";
import type { SessionEvent, SessionEventSink, SessionServices } from "./services.js";
import { join } from "node:path";
import { createWorkspace, type Workspace } from "./workspace.js";

/** What a session uses to reach its client: every one of them speaks under the session's id. */
export type SessionCollaborators = {
  approver: Approver;
  /** Shows ask_user questions (and MCP servers' elicitations); absent = ask in the conversation. */
  questioner?: Questioner;
  /** The editor's file system and terminals, when the client offers them. */
  editor?: EditorBridge;
  /** MCP servers the editor passed in session/new, load, resume or fork. */
  editorMcpServers?: EditorMcpServer[];
  /** The editor's dialogs for trust decisions (project MCP servers, hooks, skill links). */
  trustPrompter?: TrustPrompter;
  /**
   * Delivers an event outside a turn (a config file changed, a hook started). Returns false when
   * the editor cannot show it now; it is then shown at the start of the next turn.
   */
  notify?: (event: SessionEvent) => boolean;
  /** Delivers tool-call updates of background processes at any time (they outlive their turn). */
  updates?: (event: SessionEvent) => void;
};

/** Built only by createSession (factory.ts), which binds the collaborators to `id`. */
export type SessionOptions = SessionCollaborators & {
  id: string;
  cwd: string;
  additionalDirectories?: string[];
  mode?: SessionMode;
  modelSpec: string;
  services: SessionServices;
  /** A session read back from disk (load, resume, fork). */
  restored?: RestoredSession & { title?: string; stateSnapshots?: Record<string, StateSnapshot> };
  /** Already on disk (loaded or forked); new sessions are written at their first prompt. */
  persisted?: boolean;
};

const STATE_ATTACHMENT = "state.json";

/**
 * One conversation: its settings, its history, the turn that may be running, and its transcript on
 * disk. Turns never interleave: a prompt that arrives during a turn waits for it.
 */
export class Session {
  readonly id: string;
  readonly cwd: string;
  readonly roots: readonly string[];
  readonly projectRoot: string;
  mode: SessionMode;
  modelSpec: string;
  title: string | undefined;
  updatedAt: Date;
  plan: PlanEntry[] = [];
  history: Message[] = [];
  readonly approvals: PersistentApprovalMemory;

  private readonly services: SessionServices;
  private readonly approver: Approver;
  private readonly questioner: Questioner | undefined;
  private readonly updates: ((event: SessionEvent) => void) | undefined;
  private background: SessionBackground | undefined;
  private readonly editor: EditorBridge | undefined;
  private readonly stateSnapshots: Record<string, StateSnapshot> | undefined;
  private workspace: Promise<Workspace> | undefined;
  private model: Promise<ModelClient> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private current: { abort: AbortController; done: Promise<TurnResult> } | undefined;
  /** Bumped by cancel(): prompts queued before it end `cancelled` without running. */
  private cancelEpoch = 0;
  private closed = false;
  private persisted: boolean;
  private recorder: Recorder | undefined;
  private readonly extensions: ExtensionHost;
  /** SessionStart hooks run before this live session's first turn ("startup", or "resume" when loaded). */
  private sessionStartSource: "startup" | "resume" | "clear" | undefined;
  /** SessionStart context not yet sent to the model. */
  private startContext: string[] = [];
  /** Problems found in the background (sandbox, config, loaders), shown at the start of the next turn. */
  private readonly pendingNotices: Array<{ severity: "info" | "warning" | "error"; title: string; description?: string }> = [];

  constructor(options: SessionOptions) {
    this.id = options.id;
    this.cwd = options.cwd;
    this.roots = [options.cwd, ...(options.additionalDirectories ?? []).filter((d) => d !== options.cwd)];
    this.projectRoot = findProjectRoot(options.cwd);
    const restored = options.restored;
    this.mode = restored?.mode && isSessionMode(restored.mode) ? restored.mode : (options.mode ?? "default");
    this.modelSpec = restored?.model ?? options.modelSpec;
    this.history = restored?.history ?? [];
    this.plan = restored?.plan ?? [];
    this.title = restored?.title;
    this.stateSnapshots = restored?.stateSnapshots;
    this.services = options.services;
    this.approver = options.approver;
    this.questioner = options.questioner;
    this.updates = options.updates;
    this.editor = options.editor;
    this.updatedAt = options.services.now();
    this.approvals = options.services.approvalMemory(this.projectRoot);
    this.persisted = options.persisted ?? false;
    if (this.persisted) this.recorder = createRecorder(options.services.sessions, this.id, options.services.logger);
    this.sessionStartSource = this.persisted ? "resume" : "startup";
    this.extensions = new ExtensionHost({
      sessionId: this.id,
      cwd: this.cwd,
      projectRoot: this.projectRoot,
      services: options.services,
      editorMcpServers: options.editorMcpServers ?? [],
      prompter: options.trustPrompter,
      transcriptPath: join(options.services.paths.sessionsDir, `${this.id}.jsonl`),
      permissionMode: () => hookPermissionMode(this.mode),
      notify: options.notify ?? (() => false),
      ...(options.questioner ? { questioner: options.questioner } : {}),
    });
  }

  get additionalDirectories(): string[] {
    return this.roots.slice(1);
  }

  get isRunning(): boolean {
    return this.current !== undefined;
  }

  /** Starts the slow parts (config, backends, model client) in the background; prompts await them. */
  warmUp(): void {
    void this.ensureWorkspace().catch((error) => this.services.logger.warn(`session ${this.id}: workspace setup failed`, error));
    void this.ensureModel().catch(() => undefined);
    void this.extensions.start().catch((error) => this.services.logger.warn(`session ${this.id}: loading extensions failed`, error));
  }

  /** /reload: re-reads skills, memory, subagents, plugins, hooks, MCP config and config.toml. */
  async reload(): Promise<string> {
    await this.stopTurns();
    await this.approvals.reload();
    const summary = await this.extensions.reload();
    this.workspace = undefined; // file rules, sandbox and routes come from config.toml too
    return summary;
  }

  /** Loaded skills (name and description), for /skills and the /skill: commands. */
  async skills(): Promise<Array<{ name: string; description: string; source: string }>> {
    return (await this.extensions.start()).skills.items.map((s) => ({ name: s.name, description: s.description, source: s.source }));
  }

  /** The prompt text of `/skill:<name> [args]`, or why it cannot be used. */
  async skillInvocation(name: string, args: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
    const { skills } = await this.extensions.start();
    const skill = skills.items.find((s) => s.name === name);
    if (!skill) return { ok: false, error: `There is no skill named "${name}". Run /skills to see them.` };
    const content = await readSkillContent(skill, skills.roots);
    return content.ok ? { ok: true, text: skillInvocationPrompt(skill, content.content, args) } : { ok: false, error: content.error };
  }

  /** Markdown for /mcp: servers, status, tools and reasons. */
  async describeMcp(): Promise<string> {
    return renderMcpStatus((await this.extensions.start()).mcp.describe());
  }

  /** Markdown for /hooks: loaded hooks by event, with their source and last diagnostics. */
  async describeHooks(): Promise<string> {
    return formatHooksDescription((await this.extensions.hooks()).describe());
  }

  /** Runs a prompt turn (after any turn already running). `messageId` names the user message. */
  async prompt(blocks: readonly PromptBlock[], sink: SessionEventSink, messageId: string = randomUUID()): Promise<TurnResult> {
    return this.exclusive(async (signal) => {
      let result: TurnResult;
      try {
        result = await this.executeTurn(blocks, sink, signal, messageId);
      } catch (error) {
        result = signal.aborted ? { stopReason: "cancelled" } : { stopReason: "end_turn", error: errorMessage(error) };
      }
      await this.finishTurn(result);
      return result;
    });
  }

  /**
   * `/compact`: summarizes the older part of the conversation now. Runs like a turn (queued,
   * cancellable). Resolves with a line for the user.
   */
  async compact(instructions: string, sink: SessionEventSink): Promise<TurnResult & { message?: string }> {
    return this.exclusive(async (signal) => {
      const [workspace, model, { config }] = await Promise.all([this.ensureWorkspace(), this.ensureModel(), this.services.config()]);
      await this.ensurePersisted();
      const hooks = await this.extensions.hooks();
      const compactor = createSessionCompactor({ sessionId: this.id, workspace, model, config, emit: (event) => this.observe(event, sink), fixedChars: 0, hooks: () => hooks });
      const result = await compactor.compact(this.history, "manual", signal, instructions ? { instructions } : {});
      if (result.kind === "cancelled" || signal.aborted) return { stopReason: "cancelled" as const };
      if (result.kind === "compacted") {
        this.replaceHistory(result.messages);
        await this.recorder?.flush();
        return { stopReason: "end_turn" as const, message: `Compacted ${result.summarizedCount} earlier messages into a summary; the full text is in ${result.historyPath}.` };
      }
      return { stopReason: "end_turn" as const, ...(result.kind === "failed" ? { message: `Compaction failed: ${result.error}` } : { message: `Nothing compacted: ${result.reason}` }) };
    });
  }

  /** Cancels the running turn and every prompt queued behind it. */
  cancel(): void {
    this.cancelEpoch++;
    this.current?.abort.abort();
  }

  async setMode(mode: SessionMode): Promise<void> {
    this.mode = mode;
    this.recorder?.record({ t: "mode", mode });
  }

  async setModel(spec: string): Promise<void> {
    const model = this.services.models.create(spec);
    await model; // throws for an unusable spec, leaving the session unchanged
    this.modelSpec = spec;
    this.model = model;
    this.recorder?.record({ t: "model", model: spec });
  }

  rememberedApprovals() {
    return this.approvals.entries();
  }

  forgetApproval(key: string): Promise<boolean> {
    return this.approvals.forget(key);
  }

  /** Forgets the conversation (the editor keeps showing it); settings and remembered choices stay. */
  async clear(): Promise<void> {
    await this.stopTurns();
    this.history = [];
    this.plan = [];
    this.recorder?.record({ t: "compacted", history: [], summary: "" });
    const hooks = await this.extensions.hooks();
    if (hooks.hasHandlers("SessionEnd")) await hooks.run("SessionEnd", { reason: "clear" });
    this.sessionStartSource = "clear";
  }

  /**
   * Truncates the conversation before user message `messageId` (so it can be edited and sent again)
   * and puts back files the agent changed since, unless someone else changed them after.
   */
  async rewind(messageId: string): Promise<RewindReport> {
    await this.stopTurns();
    await this.recorder?.flush();
    const records = this.persisted ? ((await this.services.sessions.read(this.id)).records as unknown as SessionRecord[]) : [];
    const cut = records.findIndex((r) => r.t === "user" && r.id === messageId);
    if (cut < 0) throw new RewindError(`no user message ${messageId} in session ${this.id}`);
    const workspace = await this.ensureWorkspace();
    const report = await restoreFiles(fileChanges(records.slice(cut)), workspace.backend);
    const kept = records.slice(0, cut);
    await this.services.sessions.rewrite(this.id, kept as unknown as Record<string, unknown>[]);
    const restored = restoreSession(kept);
    this.history = restored.history;
    this.plan = restored.plan;
    return report;
  }

  /** The records written so far (after flushing what is buffered). */
  async records(): Promise<SessionRecord[]> {
    if (!this.persisted) return [];
    await this.recorder?.flush();
    return (await this.services.sessions.read(this.id)).records as unknown as SessionRecord[];
  }

  /** Cancels, waits for the turn to wind down, saves, and frees backends and processes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopTurns();
    await this.recorder?.flush().catch(() => undefined);
    await this.extensions.close();
    await this.background?.close();
    const workspace = await this.workspace?.catch(() => undefined);
    await workspace?.dispose();
  }

  /** Markdown for /ps. */
  describeBackground(): string {
    return (this.background ?? createSessionBackground({ maxProcesses: 1, keepChars: 1, sink: () => undefined })).describe(this.services.now());
  }

  /** `/ps stop ID`: a line for the user. */
  async stopBackground(id: string): Promise<string> {
    if (!this.background?.get(id)) return `There is no background process "${id}". Run /ps to see them.`;
    const exit = await this.background.stop(id);
    return `Stopped ${id} ${exit ? describeExit(exit) : ""}`.trim();
  }

  private backgroundProcesses(config: DeepAcpConfig, workspace: Workspace): SessionBackground {
    this.background ??= createSessionBackground({
      maxProcesses: config.shell.max_background_processes,
      keepChars: config.shell.background_output_chars,
      sink: (event) => this.updates?.(event),
    });
    this.background.useShell(workspace.shell);
    return this.background;
  }

  private async stopTurns(): Promise<void> {
    this.cancel();
    await this.current?.done.catch(() => undefined);
  }

  /** Runs `work` when no other turn runs, with its own abort signal; cancelled work never starts. */
  private exclusive<T extends TurnResult>(work: (signal: AbortSignal) => Promise<T>): Promise<T | { stopReason: "cancelled" }> {
    if (this.closed) return Promise.resolve({ stopReason: "cancelled" });
    const epoch = this.cancelEpoch;
    const run = this.queue.then(async (): Promise<T | { stopReason: "cancelled" }> => {
      if (epoch !== this.cancelEpoch || this.closed) return { stopReason: "cancelled" };
      const abort = new AbortController();
      let settle!: (result: TurnResult) => void;
      this.current = { abort, done: new Promise<TurnResult>((resolve) => (settle = resolve)) };
      try {
        const result = await work(abort.signal);
        settle(result);
        return result;
      } catch (error) {
        settle({ stopReason: "cancelled" });
        throw error;
      } finally {
        this.current = undefined;
        this.updatedAt = this.services.now();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Every event of a turn goes to the transcript and to the editor. */
  private observe(event: AgentEvent, sink: SessionEventSink): void {
    if (event.type === "plan") this.plan = event.entries;
    this.recorder?.event(event);
    sink(event);
  }

  private replaceHistory(messages: Message[]): void {
    this.history = [...messages];
    const first = messages[0];
    const summary = first && first.role === "user" ? first.content.map((c) => (c.type === "text" ? c.text : "")).join("") : "";
    this.recorder?.record({ t: "compacted", history: this.history, summary });
  }

  private async executeTurn(blocks: readonly PromptBlock[], sink: SessionEventSink, signal: AbortSignal, messageId: string): Promise<TurnResult> {
    const [workspace, model, { config }] = await Promise.all([this.ensureWorkspace(), this.ensureModel(), this.services.config()]);
    if (signal.aborted) return { stopReason: "cancelled" };
    await this.ensurePersisted();
    for (const notice of this.pendingNotices.splice(0)) sink({ type: "notice", ...notice });
    try {
      const extensions = await this.extensions.forTurn(signal, sink);
      if (signal.aborted) return { stopReason: "cancelled" };
      return await this.runWithExtensions(blocks, sink, signal, messageId, { workspace, model, config, extensions });
    } finally {
      this.extensions.endTurn();
    }
  }

  private async runWithExtensions(
    blocks: readonly PromptBlock[],
    sink: SessionEventSink,
    signal: AbortSignal,
    messageId: string,
    { workspace, model, config, extensions }: { workspace: Workspace; model: ModelClient; config: DeepAcpConfig; extensions: Extensions },
  ): Promise<TurnResult> {
    const hooks = () => extensions.hooks;
    const prompt = await resolvePrompt(blocks, workspace.backend, model.supportsImages);
    const text = promptText(blocks);
    // As in Claude Code, SessionStart comes before the first UserPromptSubmit.
    const startContext = await this.sessionStartContext(hooks(), model, signal);
    const submitted = hooks().hasHandlers("UserPromptSubmit") ? await hooks().run("UserPromptSubmit", { prompt: text }, { signal }) : undefined;
    if (submitted?.blocked || submitted?.continue === false) {
      const why = submitted.reason ?? submitted.stopReason ?? "a UserPromptSubmit hook stopped it";
      sink({ type: "message_chunk", messageId: randomUUID(), text: `Prompt blocked by a hook: ${why}` });
      return { stopReason: "end_turn" };
    }
    for (const message of submitted?.systemMessages ?? []) sink({ type: "notice", severity: "info", title: message });
    this.startContext = [];
    const context = [...startContext, ...(submitted?.additionalContext ?? [])];
    if (context.length > 0) prompt.content.push({ type: "text", text: `\n\n<system-reminder>\n${context.join("\n\n")}\n</system-reminder>` });
    this.recorder?.user(messageId, [...blocks], prompt);

    const turn = assembleTurn({ session: this, workspace, model, config, now: this.services.now(), env: this.services.env, extensions, interpreterSandboxes: this.extensions.sandboxes });
    for (const d of turn.diagnostics) sink({ type: "notice", severity: "warning", title: d.message, description: d.source });
    const isFirstExchange = !this.title;
    const emit = (event: AgentEvent) => this.observe(event, sink);
    const fixedChars = turn.system.length + JSON.stringify(turn.tools.map((t) => t.jsonSchema)).length;
    const compactor = createSessionCompactor({ sessionId: this.id, workspace, model, config, emit, fixedChars, hooks });
    const options: TurnOptions = {
      system: turn.system,
      tools: turn.tools,
      hooks: createHookBridge(hooks),
      prepareMessages: compactor.prepareMessages,
      onHistoryReplaced: (messages) => this.replaceHistory(messages),
      finalizeResult: createResultOffloader({ backend: workspace.backend, thresholdChars: config.offload.tool_result_chars }),
      model,
      context: {
        sessionId: this.id,
        cwd: this.cwd,
        roots: this.roots,
        backend: workspace.backend,
        executor: workspace.executor,
        background: this.backgroundProcesses(config, workspace).host,
        limits: { shellTimeoutMs: config.shell.timeout_seconds * 1000, shellOutputChars: config.shell.output_chars },
      },
      mode: this.mode,
      virtualPrefixes: workspace.virtualPrefixes,
      readRoots: extensions.skills.roots,
      approver: this.approver,
      questioner: this.questioner,
      memory: this.approvals,
      pathRules: createPathRuleCheck(workspace.rules, workspace.sandboxed),
      maxRequests: config.agent.max_turn_requests,
      maxOutputTokens: config.model.max_output_tokens,
      signal,
      emit,
      onMessage: (message, mid) => {
        // The prompt itself was recorded above, with its display blocks.
        if (message !== prompt) this.recorder?.message(message, mid);
        this.history.push(message);
      },
    };
    options.runSubagent = createSubagentRunner({
      subagents: extensions.subagents,
      parent: options,
      parentModel: model,
      tools: turn.subagentTools,
      createModel: (spec) => this.services.models.create(spec),
      systemPrompt: turn.subagentSystem,
      hooks,
    });
    const result = await runTurn(this.history, prompt, options);
    if (isFirstExchange && !signal.aborted) {
      this.title = titleFrom(text);
      sink({ type: "session_info", title: this.title, updatedAt: this.services.now().toISOString() });
    }
    return result;
  }

  /**
   * SessionStart hooks run once, before the first turn of this live session (or after /clear); their
   * context joins the first prompt that reaches the model, even when a hook blocked an earlier one.
   */
  private async sessionStartContext(hooks: HookEngine, model: ModelClient, signal: AbortSignal): Promise<string[]> {
    const source = this.sessionStartSource;
    if (!source) return this.startContext;
    this.sessionStartSource = undefined;
    if (!hooks.hasHandlers("SessionStart", source)) return this.startContext;
    const result = await hooks.run("SessionStart", { source, model: model.id }, { signal });
    this.startContext = [...this.startContext, ...result.additionalContext];
    return this.startContext;
  }

  /** Saves the end of a turn: the stop reason, the title and time for session/list, the scratch files. */
  private async finishTurn(result: TurnResult): Promise<void> {
    if (!this.recorder) return;
    this.recorder.record({ t: "turn_end", stopReason: result.stopReason });
    const store = this.services.sessions;
    store.updateMeta(this.id, { ...(this.title ? { title: this.title } : {}), extra: { mode: this.mode, model: this.modelSpec } }).catch((error) => this.services.logger.warn("cannot update session index", error));
    const workspace = await this.workspace?.catch(() => undefined);
    if (workspace && workspace.stateBackends.size > 0) {
      const snapshots = Object.fromEntries([...workspace.stateBackends].map(([prefix, state]) => [prefix, state.snapshot()]));
      await store.writeAttachment(this.id, STATE_ATTACHMENT, JSON.stringify(snapshots)).catch((error) => this.services.logger.warn("cannot save session files", error));
    }
    await this.recorder.flush().catch((error) => this.services.logger.warn("cannot save session", error));
  }

  /** New sessions reach the disk at their first prompt, so empty sessions never clutter the list. */
  private async ensurePersisted(): Promise<void> {
    if (this.persisted) return;
    this.persisted = true;
    await this.services.sessions.create({ id: this.id, cwd: this.cwd, additionalDirectories: this.additionalDirectories, extra: { mode: this.mode, model: this.modelSpec } });
    this.recorder = createRecorder(this.services.sessions, this.id, this.services.logger);
    this.recorder.record({ t: "mode", mode: this.mode });
    this.recorder.record({ t: "model", model: this.modelSpec });
  }

  private ensureWorkspace(): Promise<Workspace> {
    this.workspace ??= this.services.config().then(async ({ config }) => {
      const [workspace] = await Promise.all([
        createWorkspace({
          cwd: this.cwd,
          roots: this.roots,
          config,
          flags: this.services.flags,
          paths: this.services.paths,
          editor: this.editor,
          logger: this.services.logger,
          stateSnapshots: this.stateSnapshots,
        }),
        this.approvals.load(),
      ]);
      for (const d of workspace.diagnostics) this.pendingNotices.push({ severity: d.severity === "info" ? "info" : d.severity, title: d.message, description: d.source });
      return workspace;
    });
    return this.workspace;
  }

  private ensureModel(): Promise<ModelClient> {
    const model = (this.model ??= this.services.models.create(this.modelSpec));
    // Not cached on failure: after `authenticate` the next prompt tries again.
    model.catch(() => {
      if (this.model === model) this.model = undefined;
    });
    return model;
  }
}

/** A short title from the first prompt; no model call needed. */
export function titleFrom(text: string): string {
  const firstLine = text.trim().split("\n").find((line) => line.trim() !== "")?.trim() ?? "New session";
  return firstLine.length > 60 ? `${firstLine.slice(0, 57).trimEnd()}...` : firstLine;
}

export { STATE_ATTACHMENT };
