import { randomUUID } from "node:crypto";
import type { Approver } from "../agent/approver.js";
import type { AgentEvent, TurnResult } from "../agent/events.js";
import { createCompactor, type Compactor } from "../agent/compaction.js";
import { createResultOffloader } from "../agent/offload.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import { runTurn } from "../agent/loop.js";
import { isSessionMode, type SessionMode } from "../agent/modes.js";
import type { EditorBridge } from "../backends/editor-bridge.js";
import type { StateSnapshot } from "../backends/state-backend.js";
import { findProjectRoot } from "../config/project-root.js";
import type { Message, ModelClient } from "../model/types.js";
import type { PlanEntry } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { RewindError } from "./errors.js";
import type { PersistentApprovalMemory } from "./approval-memory.js";
import { createPathRuleCheck } from "./path-rules.js";
import type { PromptBlock } from "./prompt-input.js";
import { promptText } from "./prompt-input.js";
import { createRecorder, type Recorder } from "./recorder.js";
import { resolvePrompt } from "./resolve-prompt.js";
import { fileChanges, restoreFiles, type RewindReport } from "./rewind.js";
import type { SessionEventSink, SessionServices } from "./services.js";
import { assembleTurn } from "./turn-assembly.js";
import type { RestoredSession, SessionRecord } from "./transcript.js";
import { restoreSession } from "./transcript.js";
import { createWorkspace, type Workspace } from "./workspace.js";

export type SessionOptions = {
  id?: string;
  cwd: string;
  additionalDirectories?: string[];
  mode?: SessionMode;
  modelSpec: string;
  services: SessionServices;
  approver: Approver;
  /** The editor's file system and terminals, when the client offers them. */
  editor?: EditorBridge;
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
  /** Problems found in the background (sandbox, config, loaders), shown at the start of the next turn. */
  private readonly pendingNotices: Array<{ severity: "info" | "warning" | "error"; title: string; description?: string }> = [];

  constructor(options: SessionOptions) {
    this.id = options.id ?? randomUUID();
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
    this.editor = options.editor;
    this.updatedAt = options.services.now();
    this.approvals = options.services.approvalMemory(this.projectRoot);
    this.persisted = options.persisted ?? false;
    if (this.persisted) this.recorder = createRecorder(options.services.sessions, this.id, options.services.logger);
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
      const compactor = this.compactor(workspace, model, config, (event) => this.observe(event, sink));
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
    const workspace = await this.workspace?.catch(() => undefined);
    await workspace?.dispose();
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

  private compactor(workspace: Workspace, model: ModelClient, config: DeepAcpConfig, emit: (event: AgentEvent) => void, fixedChars = 0): Compactor {
    return createCompactor({
      // The system prompt and tool schemas take context too.
      baseTokens: () => Math.ceil(fixedChars / 4),
      model,
      backend: workspace.backend,
      sessionId: this.id,
      emit,
      triggerFraction: config.compaction.trigger_fraction,
      keepMessages: config.compaction.keep_messages,
    });
  }

  private async executeTurn(blocks: readonly PromptBlock[], sink: SessionEventSink, signal: AbortSignal, messageId: string): Promise<TurnResult> {
    const [workspace, model, { config }] = await Promise.all([this.ensureWorkspace(), this.ensureModel(), this.services.config()]);
    if (signal.aborted) return { stopReason: "cancelled" };
    await this.ensurePersisted();
    for (const notice of this.pendingNotices.splice(0)) sink({ type: "notice", ...notice });

    const prompt = await resolvePrompt(blocks, workspace.backend, model.supportsImages);
    this.recorder?.user(messageId, [...blocks], prompt);
    const turn = assembleTurn({ session: this, workspace, model, config, now: this.services.now() });
    const isFirstExchange = !this.title;
    const emit = (event: AgentEvent) => this.observe(event, sink);
    const compactor = this.compactor(workspace, model, config, emit, turn.system.length + JSON.stringify(turn.tools.map((t) => t.jsonSchema)).length);
    const result = await runTurn(this.history, prompt, {
      ...turn,
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
        limits: { shellTimeoutMs: config.shell.timeout_seconds * 1000, shellOutputChars: config.shell.output_chars },
      },
      mode: this.mode,
      virtualPrefixes: workspace.virtualPrefixes,
      approver: this.services.flags.autoApprove ? autoApprover : this.approver,
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
    });
    if (isFirstExchange && !signal.aborted) {
      this.title = titleFrom(promptText(blocks));
      sink({ type: "session_info", title: this.title, updatedAt: this.services.now().toISOString() });
    }
    return result;
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

const autoApprover: Approver = { requestApproval: async () => "allow_once" };

/** A short title from the first prompt; no model call needed. */
export function titleFrom(text: string): string {
  const firstLine = text.trim().split("\n").find((line) => line.trim() !== "")?.trim() ?? "New session";
  return firstLine.length > 60 ? `${firstLine.slice(0, 57).trimEnd()}...` : firstLine;
}

export { STATE_ATTACHMENT };
