// The MCP servers of one session: trust, connections in the background, tools, status, reload
// and shutdown. One server failing, hanging or crashing never blocks the session or the others.

import type { AnyTool, ToolContext, ToolResult } from "../../tools/types.js";
import type { Logger } from "../../util/logger.js";
import { silentLogger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import { callMcpTool } from "./call-tool.js";
import {
  connectMcpServer,
  McpConnectError,
  type FetchFunction,
  type McpConnection,
  type McpElicit,
} from "./connection.js";
import { fingerprintServer } from "../config/fingerprint.js";
import { interpolationLookup, type McpEnvPolicy } from "../config/environment.js";
import { resolveServerDefinition } from "../config/interpolate.js";
import { defaultMcpSdk, type McpSdk } from "./sdk.js";
import { reportServer, type McpServerReport, type McpServerStatus } from "./server-report.js";
import type { SpawnFunction } from "./stdio-transport.js";
import { applyToolFilter } from "../config/tool-filter.js";
import { adaptMcpTool, modelToolName } from "./tool-adapter.js";
import type { McpTrustResolver, McpTrustState } from "../trust/trust.js";
import { trustFingerprint } from "../trust/trust-request.js";
import { UNTRUSTED_SOURCES, type McpServerDefinition, type McpServerEntry } from "../config/types.js";

export type McpManagerOptions = {
  /** Merged servers from discoverMcpServers(). */
  entries: readonly McpServerEntry[];
  trust: McpTrustResolver;
  /** ~/.deepagents/.state (OAuth tokens live under it). */
  stateDir: string;
  /** Working directory of stdio servers. Default: trust.projectRoot. */
  cwd?: string;
  /** Source of ${VAR} values and of the stdio allowlist. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** config.toml `[mcp] project_env`: what project servers may read. Default: base variables only. */
  envPolicy?: McpEnvPolicy;
  /** config.toml [mcp].disabled_servers. Default: none. */
  disabledServers?: readonly string[];
  /** Built-in tool names MCP tools must not shadow (they get a hash suffix instead). Default: none. */
  reservedToolNames?: readonly string[];
  /** Per-server limit for spawn + initialize + tools/list. Default: 30000 ms. */
  connectTimeoutMs?: number;
  /** Per-call limit, extended by progress notifications. Default: 120000 ms. */
  callTimeoutMs?: number;
  /** stdio shutdown: wait after closing stdin, then after SIGTERM. Default: 2000 ms each. */
  stdinGraceMs?: number;
  termGraceMs?: number;
  /** Sent in initialize. Default: { name: "deep-acp", version: "0.1.0" }. */
  clientInfo?: { name: string; version: string };
  /** Default: dynamic imports of @modelcontextprotocol/sdk. */
  sdk?: McpSdk;
  /** Default: child_process.spawn. */
  spawn?: SpawnFunction;
  /** Default: global fetch. */
  fetch?: FetchFunction;
  /** Default: silent. */
  logger?: Logger;
  /** Shows servers' form elicitations to the user (the session's questioner); absent = not advertised. */
  elicit?: (server: string) => McpElicit | undefined;
};

export interface McpManager {
  /** Starts every server in the background and returns at once. Idempotent. */
  start(): void;
  /** Waits for the current trust decisions and connection attempts (or until `signal` aborts). */
  ready(signal?: AbortSignal): Promise<void>;
  /** Tools of connected servers, named `<server>_<tool>`. A fresh array on each call. */
  tools(): AnyTool[];
  describe(): McpServerReport[];
  /**
   * The servers this session may run (trusted, not disabled, `${VAR}`s expanded), connected or not:
   * what another ACP agent the user allowed (`pass_mcp_servers`) is handed. Never one still waiting
   * for, or refused, the user's trust.
   */
  runnable(): McpServerDefinition[];
  /**
   * Applies a new server list: removed servers are closed, changed ones restarted, and unchanged
   * ones that are not `ok` (error, unauthenticated, untrusted) tried again. Returns once the old
   * connections are closed; new attempts run in the background (await `ready()`).
   */
  reload(entries: readonly McpServerEntry[], options?: { disabledServers?: readonly string[] }): Promise<void>;
  /** Closes every connection; stdio servers get stdin EOF, then SIGTERM, then SIGKILL. */
  close(): Promise<void>;
  /** Called after any status or tool list change. Returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

type Slot = {
  entry: McpServerEntry;
  identity: string;
  status: McpServerStatus;
  reason?: string;
  trust: McpTrustState | null;
  connection?: McpConnection;
  /** The definition as run, once trusted and expanded. */
  resolved?: McpServerDefinition;
  attempt: Promise<void>;
  /** The activation finished (connected, failed or skipped). */
  settled: boolean;
  abort: AbortController;
};

export function createMcpManager(options: McpManagerOptions): McpManager {
  const logger = options.logger ?? silentLogger;
  const env = options.env ?? process.env;
  const sdk = options.sdk ?? defaultMcpSdk;
  const callTimeoutMs = options.callTimeoutMs ?? 120_000;
  const reserved = new Set(options.reservedToolNames ?? []);
  let disabled = new Set(options.disabledServers ?? []);
  let entries = [...options.entries];
  const slots = new Map<string, Slot>();
  const listeners = new Set<() => void>();
  let started = false;
  let closed = false;

  const changed = () => {
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        logger.warn("MCP change listener failed", errorMessage(error));
      }
    }
  };

  const set = (slot: Slot, status: McpServerStatus, reason?: string) => {
    if (slots.get(slot.entry.name) !== slot) return;
    slot.status = status;
    if (reason === undefined) delete slot.reason;
    else slot.reason = reason;
    changed();
  };

  function launch(entry: McpServerEntry): Slot {
    const slot: Slot = {
      entry,
      identity: identityOf(entry),
      status: "connecting",
      trust: null,
      attempt: Promise.resolve(),
      settled: false,
      abort: new AbortController(),
    };
    slots.set(entry.name, slot);
    slot.attempt = activate(slot)
      .catch((error: unknown) => {
        logger.error(`MCP server "${entry.name}" failed unexpectedly`, error);
        set(slot, "error", errorMessage(error));
      })
      .finally(() => {
        slot.settled = true;
      });
    return slot;
  }

  async function activate(slot: Slot): Promise<void> {
    const { entry } = slot;
    const log = logger.child(entry.name);
    if (!entry.definition) return set(slot, "error", `invalid definition: ${entry.errors.join("; ")}`);
    if (disabled.has(entry.name)) return set(slot, "disabled", "disabled in config.toml [mcp].disabled_servers");

    const first = await options.trust.check(entry);
    slot.trust = first.state;
    if (!first.allowed) {
      set(slot, "untrusted", first.state === "pending" ? "waiting for approval" : first.reason);
      // The dialog is the lead's code: do not let one that ignores the abort hang close().
      const verdict = await untilAborted(options.trust.resolve(entry, slot.abort.signal), slot.abort.signal);
      if (!verdict) return;
      slot.trust = verdict.state;
      if (!verdict.allowed) return set(slot, "untrusted", verdict.reason);
    }
    if (slot.abort.signal.aborted) return;

    let server = entry.definition;
    if (!entry.literal) {
      const lookup = interpolationLookup(entry, env, options.envPolicy ?? { projectEnv: [] });
      if (!lookup.ok) return set(slot, "error", lookup.error);
      const resolved = resolveServerDefinition(entry.definition, lookup.lookup);
      if (!resolved.ok) return set(slot, "error", resolved.error);
      server = resolved.server;
    }
    slot.resolved = server;
    set(slot, "connecting");
    let connection: McpConnection;
    try {
      connection = await connectMcpServer({
        server,
        sdk,
        cwd: options.cwd ?? options.trust.projectRoot,
        parentEnv: env,
        clientInfo: options.clientInfo ?? { name: "deep-acp", version: "0.1.0" },
        stateDir: options.stateDir,
        connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
        signal: slot.abort.signal,
        ...(options.spawn ? { spawn: options.spawn } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.stdinGraceMs !== undefined ? { stdinGraceMs: options.stdinGraceMs } : {}),
        ...(options.termGraceMs !== undefined ? { termGraceMs: options.termGraceMs } : {}),
        logger: log,
        onLost: (reason) => {
          log.warn(`disconnected: ${reason}`);
          set(slot, "error", reason);
        },
        onToolsChanged: () => changed(),
        ...(options.elicit?.(server.name) ? { elicit: options.elicit(server.name)! } : {}),
      });
    } catch (error) {
      if (slot.abort.signal.aborted) return;
      const status = error instanceof McpConnectError ? error.status : "error";
      log.warn(`not connected: ${errorMessage(error)}`);
      return set(slot, status, errorMessage(error));
    }
    if (slot.abort.signal.aborted || slots.get(entry.name) !== slot) {
      await connection.close();
      return;
    }
    slot.connection = connection;
    set(slot, "ok");
  }

  async function retire(slot: Slot): Promise<void> {
    slot.abort.abort(new Error("server removed"));
    await slot.attempt;
    await slot.connection?.close();
    delete slot.connection;
  }

  async function call(slot: Slot, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const current = slots.get(slot.entry.name);
    const connection = current === slot ? slot.connection : undefined;
    if (!connection || slot.status !== "ok") {
      const why =
        current && current !== slot
          ? "was reloaded; use its current tools"
          : `is ${slot.status}${slot.reason ? ` (${slot.reason})` : ""}`;
      return { content: [{ type: "text", text: `MCP server "${slot.entry.name}" ${why}` }], isError: true };
    }
    const outcome = await callMcpTool(connection, slot.entry.name, tool, args, ctx, callTimeoutMs);
    if (outcome.kind === "lost" && slot.connection === connection) {
      set(slot, outcome.status, outcome.reason);
      if (outcome.status === "unauthenticated") {
        delete slot.connection;
        void connection.close();
      }
    }
    return outcome.result;
  }

  /** Project servers' tools remember approvals per source, name and definition; the user's own keep their plain names. */
  function approvalScope(entry: McpServerEntry): string | undefined {
    if (!UNTRUSTED_SOURCES.has(entry.source)) return undefined;
    return `mcp:${entry.source}:${entry.name}:${trustFingerprint(entry, options.envPolicy ?? { projectEnv: [] })
      .replace(/^sha256:/, "")
      .slice(0, 16)}`;
  }

  function adaptedTools(): Array<{
    slot: Slot;
    tool: AnyTool;
    mcpName: string;
    readOnly: boolean;
    description: string;
  }> {
    const taken = new Set(reserved);
    const out: Array<{ slot: Slot; tool: AnyTool; mcpName: string; readOnly: boolean; description: string }> = [];
    for (const slot of slots.values()) {
      if (slot.status !== "ok" || !slot.connection) continue;
      const listed = slot.connection.tools;
      const { kept } = applyToolFilter(
        slot.entry.name,
        listed.map((tool) => tool.name),
        slot.entry.definition?.filter,
      );
      const keep = new Set(kept);
      for (const tool of listed) {
        if (!keep.has(tool.name)) continue;
        const name = modelToolName(slot.entry.name, tool.name, taken);
        taken.add(name);
        const adapted = adaptMcpTool(
          slot.entry.name,
          tool,
          name,
          (mcpName, args, ctx) => call(slot, mcpName, args, ctx),
          approvalScope(slot.entry),
        );
        out.push({ slot, ...adapted, description: adapted.tool.description });
      }
    }
    return out;
  }

  function describe(): McpServerReport[] {
    const tools = adaptedTools();
    return [...slots.values()].map((slot) =>
      reportServer(
        slot,
        tools.filter((item) => item.slot === slot),
      ),
    );
  }

  return {
    start() {
      if (started || closed) return;
      started = true;
      for (const entry of entries) launch(entry);
      if (entries.length > 0) changed();
    },
    async ready(signal) {
      const attempts = Promise.all([...slots.values()].map((slot) => slot.attempt));
      if (!signal) return void (await attempts);
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => resolve(), { once: true });
        void attempts.then(() => resolve());
      });
    },
    tools: () => adaptedTools().map((item) => item.tool),
    describe,
    async reload(next, reloadOptions) {
      if (closed) return;
      if (reloadOptions?.disabledServers) disabled = new Set(reloadOptions.disabledServers);
      entries = [...next];
      if (!started) return;
      const wanted = new Map(entries.map((entry) => [entry.name, entry]));
      const retiring: Promise<void>[] = [];
      for (const [name, slot] of slots) {
        const entry = wanted.get(name);
        const same = entry !== undefined && identityOf(entry) === slot.identity;
        // An attempt still in flight (connecting, or a dialog on screen) is left to finish.
        const healthy = disabled.has(name) ? slot.status === "disabled" : !slot.settled || slot.status === "ok";
        if (same && healthy) continue;
        slots.delete(name);
        retiring.push(retire(slot));
      }
      await Promise.all(retiring);
      for (const entry of entries) if (!slots.has(entry.name)) launch(entry);
      // Keep the configured order in reports and tool lists.
      const ordered = entries.map((entry) => [entry.name, slots.get(entry.name)!] as const);
      slots.clear();
      for (const [name, slot] of ordered) slots.set(name, slot);
      changed();
    },
    async close() {
      if (closed) return;
      closed = true;
      const all = [...slots.values()];
      slots.clear();
      await Promise.all(all.map((slot) => retire(slot)));
      changed();
      listeners.clear();
    },
    runnable() {
      return [...slots.values()].flatMap((slot) => (slot.resolved ? [slot.resolved] : []));
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener("abort", onAbort), reject(error)),
    );
  });
}

/** What makes a running server "the same" across reloads: its definition, source and variables. */
function identityOf(entry: McpServerEntry): string {
  return fingerprintServer({
    raw: entry.raw ?? null,
    source: entry.source,
    variables: entry.variables ?? null,
    literal: entry.literal ?? false,
  });
}
