import { silentLogger, type Logger } from "../util/logger.js";
import { hookLabel, type HookFileInfo } from "./config-loader.js";
import { buildHookEnv, hookVariables, substituteHookVariables } from "./env.js";
import { HOOK_EVENTS, HOOK_EVENT_NAMES, type HookEventInput, type HookEventName, type HookPayload } from "./events.js";
import { interpretHookResult, type HookVerdict } from "./interpret.js";
import { matches } from "./matcher.js";
import { reduceHookVerdicts } from "./reducer.js";
import { notRunResult, runHookCommand, type HookCommandResult, type SpawnFunction } from "./runner.js";
import { hookScriptDigests } from "./script-refs.js";
import {
  HOOK_SCOPE_RANK,
  type HookDiagnostic,
  type HookItem,
  type HookRunOutcome,
  type HookSource,
  type ReducedHookResult,
} from "./types.js";

/** Sent when a handler starts; the editor shows `statusMessage` (when set) until the matching end. */
export type HookStatus = {
  /** Unique per handler run; pairs start with end. */
  runId: string;
  event: HookEventName;
  itemId: string;
  hook: string;
  statusMessage?: string;
  source: HookSource;
};

export type HookEndStatus = HookStatus & { outcome: HookRunOutcome; diagnostics: HookDiagnostic[] };

export type HookEngineOptions = {
  /** Loaded (and trust-filtered) handlers; a snapshot: reload by building a new engine. */
  config: readonly HookItem[];
  /** Problems found while loading, listed by `describe()`. Default none. */
  loadDiagnostics?: readonly HookDiagnostic[];
  /** Files that were looked at, listed by `describe()`. Default none. */
  files?: readonly HookFileInfo[];
  /** Handlers run here; exported as CLAUDE_PROJECT_DIR. */
  projectRoot: string;
  sessionId: string;
  /** Payload `transcript_path`. Default "". */
  transcriptPath?: string;
  /** Payload `cwd` (the session cwd). Default projectRoot. */
  cwd?: string;
  /** Payload `permission_mode`, read at each run (Claude names: HookPermissionMode). Default omitted. */
  permissionMode?: () => string | undefined;
  /** Base environment; hooks get only its allowlisted part (util/secret-env). Default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** config.toml `[hooks] pass_env`: more variables hooks receive. Default none. */
  passEnv?: readonly string[];
  /**
   * The project files the trusted project hooks run, as approved (relative path -> digest). Before
   * each project hook runs, the files its command names are hashed again; a changed one is not run
   * (the approval covered other bytes) until /reload asks about it. Default: no check.
   */
  approvedScripts?: Readonly<Record<string, string>>;
  /** Default node:child_process spawn. */
  spawn?: SpawnFunction;
  /** Default Date. */
  clock?: { now(): number };
  /** Default silentLogger. */
  logger?: Logger;
  /** Per-stream output cap in bytes. Default 100,000. */
  maxOutputBytes?: number;
  /** Default "/bin/sh". */
  shell?: string;
  onHookStart?: (status: HookStatus) => void;
  onHookEnd?: (status: HookEndStatus) => void;
};

export type HookRunOptions = {
  /** The turn's signal: aborting kills every running handler. */
  signal?: AbortSignal;
  /** Value tested against matchers; default the payload's matcher field (HOOK_EVENTS[event].matcherField). */
  matcherValue?: string;
};

export type HookHandlerDescription = {
  itemId: string;
  source: { scope: HookSource["scope"]; file: string; pluginId?: string };
  path: string;
  matcher: string;
  hook: string;
  timeoutSec: number;
  statusMessage?: string;
  lastRun?: { at: number; exitCode: number | null; timedOut: boolean; durationMs: number };
  /** Diagnostics of the most recent run (empty when it went fine or never ran). */
  lastDiagnostics: HookDiagnostic[];
};

export type HookEngineDescription = {
  events: { event: HookEventName; handlers: HookHandlerDescription[] }[];
  loadDiagnostics: HookDiagnostic[];
  files: HookFileInfo[];
};

export interface HookEngine {
  /**
   * Whether `run` would start anything for this matcher value (any handler of the event when the
   * value is omitted); lets callers skip building payloads.
   */
  hasHandlers(event: HookEventName, matcherValue?: string): boolean;
  /** Runs every matching handler concurrently and reduces their results. Never rejects. */
  run<E extends HookEventName>(
    event: E,
    input: HookEventInput<E>,
    options?: HookRunOptions,
  ): Promise<ReducedHookResult>;
  /** For `/hooks` and `deep-acp doctor`. */
  describe(): HookEngineDescription;
}

export function createHookEngine(options: HookEngineOptions): HookEngine {
  const items = [...options.config].sort(
    (a, b) => HOOK_SCOPE_RANK[a.source.scope] - HOOK_SCOPE_RANK[b.source.scope] || a.order - b.order,
  );
  const clock = options.clock ?? Date;
  const logger = options.logger ?? silentLogger;
  const baseEnv = options.env ?? process.env;
  const lastRuns = new Map<
    string,
    { run: NonNullable<HookHandlerDescription["lastRun"]>; diagnostics: HookDiagnostic[] }
  >();
  let runCounter = 0;

  const select = (event: HookEventName, matcherValue: string | undefined): HookItem[] => {
    const seen = new Set<string>();
    const selected: HookItem[] = [];
    for (const item of items) {
      if (item.event !== event || !matches(item.matcher, matcherValue)) continue;
      // Claude Code runs an identical command once even when several groups or files list it.
      const key = JSON.stringify([item.handler.argv ?? item.handler.command, item.source.pluginRoot ?? null]);
      if (seen.has(key)) continue;
      seen.add(key);
      selected.push(item);
    }
    return selected;
  };

  const matcherValueOf = (event: HookEventName, input: Record<string, unknown>, explicit: string | undefined) => {
    if (explicit !== undefined) return explicit;
    const field = HOOK_EVENTS[event].matcherField;
    const value = field === null ? undefined : input[field];
    return typeof value === "string" ? value : undefined;
  };

  /** Project files this project hook names that differ from what was approved. */
  const changedScripts = async (item: HookItem): Promise<string[]> => {
    if (item.source.scope !== "project" || !options.approvedScripts) return [];
    const approved = options.approvedScripts;
    const now = await hookScriptDigests(
      [
        {
          ...(item.handler.command !== undefined ? { command: item.handler.command } : {}),
          ...(item.handler.argv ? { argv: item.handler.argv } : {}),
        },
      ],
      options.projectRoot,
    );
    return Object.keys(now).filter((name) => approved[name] !== now[name]);
  };

  const runOne = async (
    item: HookItem,
    payloadJson: string,
    signal: AbortSignal | undefined,
  ): Promise<{ verdict: HookVerdict; outcome: HookRunOutcome }> => {
    const event = item.event;
    const hook = hookLabel(item.handler);
    const timeoutSec = item.handler.timeoutSec ?? HOOK_EVENTS[event].defaultTimeoutSec;
    const status: HookStatus = { runId: `hook-${++runCounter}`, event, itemId: item.id, hook, source: item.source };
    if (item.handler.statusMessage !== undefined) status.statusMessage = item.handler.statusMessage;
    safely(() => options.onHookStart?.(status), logger);

    const vars = hookVariables(item.source, options.projectRoot);
    const started = clock.now();
    const changed = await changedScripts(item);
    const result: HookCommandResult =
      changed.length > 0
        ? notRunResult(
            `not run: ${changed.join(", ")} changed since you trusted this project's hooks; run /reload to review it`,
          )
        : await runHookCommand({
            ...(item.handler.argv
              ? { argv: item.handler.argv.map((arg) => substituteHookVariables(arg, vars)) }
              : { command: item.handler.command ?? "" }),
            cwd: options.projectRoot,
            env: buildHookEnv(baseEnv, item.source, options.projectRoot, options.passEnv),
            input: payloadJson,
            timeoutMs: timeoutSec * 1000,
            ...(signal ? { signal } : {}),
            ...(options.spawn ? { spawn: options.spawn } : {}),
            ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
            ...(options.shell !== undefined ? { shell: options.shell } : {}),
          });
    const durationMs = clock.now() - started;
    const verdict = interpretHookResult(result, { event, file: item.source.file, hook, timeoutSec });
    const outcome: HookRunOutcome = {
      itemId: item.id,
      source: item.source,
      hook,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      cancelled: result.cancelled,
      durationMs,
    };
    lastRuns.set(item.id, {
      run: { at: started, exitCode: result.exitCode, timedOut: result.timedOut, durationMs },
      diagnostics: verdict.diagnostics,
    });
    for (const d of verdict.diagnostics)
      logger[d.severity === "info" ? "debug" : "warn"](`hook ${event} ${hook}: ${d.message}`);
    safely(() => options.onHookEnd?.({ ...status, outcome, diagnostics: verdict.diagnostics }), logger);
    return { verdict, outcome };
  };

  return {
    hasHandlers(event, matcherValue) {
      return items.some(
        (item) => item.event === event && (matcherValue === undefined || matches(item.matcher, matcherValue)),
      );
    },

    async run(event, input, runOptions = {}) {
      const fields = input as Record<string, unknown>;
      const selected = select(event, matcherValueOf(event, fields, runOptions.matcherValue));
      if (runOptions.signal?.aborted) return reduceHookVerdicts(event, [], { cancelled: true });
      if (selected.length === 0) return reduceHookVerdicts(event, []);

      const permissionMode = options.permissionMode?.();
      const payload = {
        session_id: options.sessionId,
        transcript_path: options.transcriptPath ?? "",
        cwd: options.cwd ?? options.projectRoot,
        ...(permissionMode !== undefined ? { permission_mode: permissionMode } : {}),
        ...fields,
        hook_event_name: event,
      } as HookPayload;
      const json = JSON.stringify(payload);
      const runs = await Promise.all(selected.map((item) => runOne(item, json, runOptions.signal)));
      const verdicts = runs.map((r) => r.verdict);
      const outcomes = runs.map((r) => r.outcome);
      return reduceHookVerdicts(event, verdicts, { outcomes, cancelled: runOptions.signal?.aborted ?? false });
    },

    describe() {
      const events = HOOK_EVENT_NAMES.map((event) => ({
        event,
        handlers: items
          .filter((item) => item.event === event)
          .map((item): HookHandlerDescription => {
            const last = lastRuns.get(item.id);
            const source: HookHandlerDescription["source"] = { scope: item.source.scope, file: item.source.file };
            if (item.source.pluginId !== undefined) source.pluginId = item.source.pluginId;
            const description: HookHandlerDescription = {
              itemId: item.id,
              source,
              path: item.path,
              matcher: item.matcher.source,
              hook: hookLabel(item.handler),
              timeoutSec: item.handler.timeoutSec ?? HOOK_EVENTS[event].defaultTimeoutSec,
              lastDiagnostics: last?.diagnostics ?? [],
            };
            if (item.handler.statusMessage !== undefined) description.statusMessage = item.handler.statusMessage;
            if (last) description.lastRun = last.run;
            return description;
          }),
      })).filter((entry) => entry.handlers.length > 0);
      return { events, loadDiagnostics: [...(options.loadDiagnostics ?? [])], files: [...(options.files ?? [])] };
    },
  };
}

function safely(fn: () => void, logger: Logger): void {
  try {
    fn();
  } catch (error) {
    logger.warn("hook status callback failed", error);
  }
}
