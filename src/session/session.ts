import { randomUUID } from "node:crypto";
import { platform, arch } from "node:os";
import type { PersistentApprovalMemory } from "./approval-memory.js";
import { createPathRuleCheck } from "./path-rules.js";
import type { Approver } from "../agent/approver.js";
import type { TurnResult } from "../agent/events.js";
import { runTurn } from "../agent/loop.js";
import type { SessionMode } from "../agent/modes.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import type { EditorBridge } from "../backends/editor-bridge.js";
import { findProjectRoot } from "../config/project-root.js";
import type { Message, ModelClient } from "../model/types.js";
import type { PlanEntry } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import type { PromptBlock } from "./prompt-input.js";
import { promptText } from "./prompt-input.js";
import { resolvePrompt } from "./resolve-prompt.js";
import type { SessionEventSink, SessionServices } from "./services.js";
import { builtinTools, toolsForMode } from "./tool-set.js";
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
};

type Turn = { abort: AbortController; done: Promise<TurnResult> };

/**
 * One conversation: its settings, its history, and the turn that may be running. Turns never
 * interleave: a prompt that arrives during a turn waits for it.
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
  readonly history: Message[] = [];
  readonly approvals: PersistentApprovalMemory;

  private readonly services: SessionServices;
  private readonly approver: Approver;
  private readonly editor: EditorBridge | undefined;
  private workspace: Promise<Workspace> | undefined;
  private model: Promise<ModelClient> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private current: Turn | undefined;
  /** Bumped by cancel(): prompts queued before it end `cancelled` without running. */
  private cancelEpoch = 0;
  private closed = false;
  /** Problems found in the background (sandbox, config, loaders), shown at the start of the next turn. */
  private readonly pendingNotices: Array<{ severity: "info" | "warning" | "error"; title: string; description?: string }> = [];

  constructor(options: SessionOptions) {
    this.id = options.id ?? randomUUID();
    this.cwd = options.cwd;
    this.roots = [options.cwd, ...(options.additionalDirectories ?? []).filter((d) => d !== options.cwd)];
    this.projectRoot = findProjectRoot(options.cwd);
    this.mode = options.mode ?? "default";
    this.modelSpec = options.modelSpec;
    this.services = options.services;
    this.approver = options.approver;
    this.editor = options.editor;
    this.updatedAt = options.services.now();
    this.approvals = options.services.approvalMemory(this.projectRoot);
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

  async prompt(blocks: readonly PromptBlock[], sink: SessionEventSink): Promise<TurnResult> {
    if (this.closed) return { stopReason: "cancelled" };
    const epoch = this.cancelEpoch;
    const run = this.queue.then(() => (epoch !== this.cancelEpoch || this.closed ? { stopReason: "cancelled" as const } : this.runPrompt(blocks, sink)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Cancels the running turn and every prompt queued behind it. */
  cancel(): void {
    this.cancelEpoch++;
    this.current?.abort.abort();
  }

  async setMode(mode: SessionMode): Promise<void> {
    this.mode = mode;
  }

  async setModel(spec: string): Promise<void> {
    const model = this.services.models.create(spec);
    await model; // throws for an unusable spec, leaving the session unchanged
    this.modelSpec = spec;
    this.model = model;
  }

  rememberedApprovals() {
    return this.approvals.entries();
  }

  forgetApproval(key: string): Promise<boolean> {
    return this.approvals.forget(key);
  }

  /** Forgets the conversation (the editor keeps showing it); settings and remembered choices stay. */
  async clear(): Promise<void> {
    this.cancel();
    await this.current?.done.catch(() => undefined);
    this.history.length = 0;
    this.plan = [];
    this.title = undefined;
  }

  /** Cancels, waits for the turn to wind down, and frees backends and processes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cancel();
    await this.current?.done.catch(() => undefined);
    const workspace = await this.workspace?.catch(() => undefined);
    await workspace?.dispose();
  }

  private async runPrompt(blocks: readonly PromptBlock[], sink: SessionEventSink): Promise<TurnResult> {
    const abort = new AbortController();
    let settle!: (result: TurnResult) => void;
    const done = new Promise<TurnResult>((resolve) => (settle = resolve));
    this.current = { abort, done };
    try {
      const result = await this.executeTurn(blocks, sink, abort.signal);
      settle(result);
      return result;
    } catch (error) {
      const result: TurnResult = abort.signal.aborted ? { stopReason: "cancelled" } : { stopReason: "end_turn", error: errorMessage(error) };
      settle(result);
      return result;
    } finally {
      this.current = undefined;
      this.updatedAt = this.services.now();
    }
  }

  private async executeTurn(blocks: readonly PromptBlock[], sink: SessionEventSink, signal: AbortSignal): Promise<TurnResult> {
    const [workspace, model, { config }] = await Promise.all([this.ensureWorkspace(), this.ensureModel(), this.services.config()]);
    if (signal.aborted) return { stopReason: "cancelled" };
    for (const notice of this.pendingNotices.splice(0)) sink({ type: "notice", ...notice });
    const prompt = await resolvePrompt(blocks, workspace.backend, model.supportsImages);
    const tools = toolsForMode(builtinTools({ supportsImages: model.supportsImages, canExecute: workspace.executor !== undefined }), this.mode);
    const system = buildSystemPrompt({
      cwd: this.cwd,
      roots: this.roots,
      platform: `${platform()} (${arch()})`,
      date: this.services.now().toISOString().slice(0, 10),
      tools,
      mode: this.mode,
    });
    const isFirstExchange = this.history.length === 0;
    const result = await runTurn(this.history, prompt, {
      model,
      system,
      tools,
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
      emit: (event) => {
        if (event.type === "plan") this.plan = event.entries;
        sink(event);
      },
      onMessage: (message) => this.history.push(message),
    });
    if (isFirstExchange && !this.title && !signal.aborted) {
      this.title = titleFrom(promptText(blocks));
      sink({ type: "session_info", title: this.title, updatedAt: this.services.now().toISOString() });
    }
    return result;
  }

  private ensureWorkspace(): Promise<Workspace> {
    this.workspace ??= this.services.config().then(async ({ config }) => {
      const [workspace] = await Promise.all([
        createWorkspace({ cwd: this.cwd, roots: this.roots, config, flags: this.services.flags, paths: this.services.paths, editor: this.editor, logger: this.services.logger }),
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
