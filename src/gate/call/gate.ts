import { relative, resolve } from "node:path";
import {
  isWithin,
  nodeRealPathFs,
  realRoots,
  resolveRealTarget,
  type RealPathFs,
} from "../../backends/paths/real-path.js";
import type { CompiledFileRules } from "../rules/file-rules.js";
import type { ApprovalMemory } from "../memory/approval-memory.js";
import { programsChangedBy } from "../commands/command-inputs.js";
import {
  commandFingerprint,
  recordsFile,
  staleReason,
  type CommandFingerprint,
} from "../commands/command-fingerprint.js";
import { commandApproval, commandKeyUses, commandPathArguments } from "../commands/command-policy.js";
import type { ToolEffect } from "../../tools/types.js";
import type { SessionMode } from "../decide/modes.js";
import { fetchHost } from "../../web/fetch-host.js";
import { decide, type GateDecision, type GateTarget, type GateTool, type HookVerdict } from "../decide/decide.js";
import type { HostSurfaceCache } from "../surfaces/host-surface-cache.js";
import type { HostExecutionSurfaces } from "../surfaces/host-surfaces.js";
import { deniedNameOf } from "../rules/denied-names.js";
import { checkFileRules } from "../rules/path-rules.js";
import { secretInQuestion } from "../decide/secret-question.js";
import { createProtectedPaths, type ProtectedPaths } from "../surfaces/protected-paths.js";

// The one place that decides whether a file access or a command may run, and whether it asks.
// Callers (the tool runner for direct, eval-nested and subagent calls) hand it what the call
// touches; it resolves every target to its real path, applies mode, protected paths, file rules,
// hooks' verdicts and remembered choices, and answers with the decision plus the real targets the
// backend must then open (see backends/approved-targets.ts).

/** Session-wide settings of the gate. */
export type GatePolicy = {
  rules?: CompiledFileRules;
  /** Commands run in bubblewrap (file rules then need not ask for every command). */
  sandboxed?: boolean;
  protectedPaths?: ProtectedPaths;
  /**
   * What git and the protected list resolve as deciding what runs on the host, per root (local
   * workspaces). Without it only the protected patterns count (remote workspaces, tests).
   */
  surfaces?: HostSurfaceCache;
  /** Routes shared by every project: writes there count as outside (default ["/memories/"]). */
  sharedPrefixes?: readonly string[];
  /** Default node:fs/promises; a remote workspace's own, so its links are followed on the remote. */
  fs?: RealPathFs;
};

export type ToolCallGateRequest = {
  tool: GateTool;
  input: unknown;
  /** Absolute paths the call touches, as the tool presents them. */
  paths: readonly string[];
  cwd: string;
  roots: readonly string[];
  readRoots?: readonly string[];
  /** Route prefixes of the agent's own storage ("/memories/", ...). */
  virtualPrefixes: readonly string[];
  mode: SessionMode;
  hook?: HookVerdict;
  memory: ApprovalMemory;
  policy?: GatePolicy;
};

export type ToolCallGateResult = {
  decision: GateDecision;
  targets: GateTarget[];
  /** Requested path -> the real path decided on, for the backend to open exactly that. */
  approved: Map<string, string>;
  /**
   * Whether the dialog may show a preview read from the targets (a diff of the current text): not
   * when one is outside the project, hard-linked or unresolvable, since that read is what is asked.
   */
  previewable: boolean;
  /** The same request decided again with the PreToolUse hooks' verdict (same resolved targets). */
  withHook(hook: HookVerdict | undefined): GateDecision;
  /**
   * For a command "always" may cover: what decides what it runs now (command-fingerprint.ts). An
   * "always" is stored with it, and a remembered one approves only while it still matches.
   */
  fingerprint?: CommandFingerprint;
};

const DEFAULT_PROTECTED = createProtectedPaths();
const DEFAULT_SHARED = ["/memories/"];

export async function gateToolCall(request: ToolCallGateRequest): Promise<ToolCallGateResult> {
  const policy = request.policy ?? {};
  const fs = policy.fs ?? nodeRealPathFs;
  // Roots and targets resolve independently: together, a call waits for one round of file system
  // look-ups instead of two.
  const [roots, readRoots, targets] = await Promise.all([
    realRoots(request.roots, fs),
    realRoots(request.readRoots ?? [], fs),
    resolveTargets(request.paths, request.virtualPrefixes, policy.sharedPrefixes ?? DEFAULT_SHARED, fs),
  ]);
  if (policy.rules) await markDeniedNames(policy.rules, request.tool.effect, targets);
  const command =
    request.tool.effect === "execute" ? await approveCommand(request.input, request.cwd, roots, fs) : undefined;
  // bypass and plan never ask about a command, so nothing is remembered or checked there.
  const asks = request.mode !== "bypass" && request.mode !== "plan";
  const checked = command?.key && asks ? await checkRemembered(request, command, roots, fs) : undefined;
  const changes = request.tool.effect === "edit" || request.tool.effect === "delete";
  // A sandboxed command mounts the same answer read-only: resolved here, before it runs.
  const sandboxedCommand = request.tool.effect === "execute" && policy.sandboxed === true;
  const hostSurfaces = changes || sandboxedCommand ? await surfacesOf(policy, roots, request.cwd) : undefined;
  const asked = request.tool.question?.(request.input as never);
  const secretQuestion = asked ? secretInQuestion(asked.text, asked.options) : undefined;
  const decideWith = (hook: HookVerdict | undefined) =>
    decide({
      ...(secretQuestion ? { secretQuestion } : {}),
      tool: request.tool,
      mode: request.mode,
      roots,
      readRoots,
      targets,
      command,
      ...(checked?.stale ? { commandChanged: checked.stale } : {}),
      ...(request.tool.effect === "network" ? { host: fetchHost(request.input) } : {}),
      protectedPaths: policy.protectedPaths ?? DEFAULT_PROTECTED,
      ...(hostSurfaces ? { hostSurfaces } : {}),
      rules: policy.rules
        ? checkFileRules(policy.rules, policy.sandboxed ?? false, request.tool.effect, targets)
        : undefined,
      hook,
      // A remembered "always" whose files changed since is not used: the call asks, saying why.
      remembered: (key) => (checked?.stale && key === command?.key ? undefined : request.memory.lookup(key)),
    });
  const approved = new Map(targets.filter((t) => !t.virtual && !t.unresolved).map((t) => [t.requested, t.real]));
  const readable = [...roots, ...readRoots];
  const previewable = targets.every((t) =>
    t.virtual ? !t.shared : !t.unresolved && t.hardLinks <= 1 && readable.some((root) => isWithin(t.real, root)),
  );
  return {
    decision: decideWith(request.hook),
    targets,
    approved,
    previewable,
    withHook: decideWith,
    ...(checked?.fingerprint ? { fingerprint: checked.fingerprint } : {}),
  };
}

/**
 * The fingerprint of what the command would run now and, when an "always" is remembered for its
 * key, why that no longer holds (a decisive file changed, or it was stored without a fingerprint).
 * Read through the workspace's file system; PATH only for a local workspace, whose PATH it is.
 */
async function checkRemembered(
  request: ToolCallGateRequest,
  command: { key: string; label: string },
  roots: readonly string[],
  fs: RealPathFs,
): Promise<{ fingerprint?: CommandFingerprint; stale?: string }> {
  const input = request.input as { command?: unknown } | undefined;
  const text = typeof input?.command === "string" ? input.command : "";
  const cwd = await fs.realpath(resolve(request.cwd)).catch(() => resolve(request.cwd));
  const local = fs === nodeRealPathFs;
  const fingerprint = await commandFingerprint(text, {
    cwd,
    roots,
    fs,
    ...(local ? { path: process.env.PATH ?? "" } : {}),
  });
  const stale =
    request.memory.lookup(command.key) === "allow"
      ? staleReason(request.memory.fingerprint(command.key), fingerprint, command.label, roots)
      : undefined;
  return { ...(fingerprint ? { fingerprint } : {}), ...(stale ? { stale } : {}) };
}

/** Whether a remembered "always" for `key` still approves a call fingerprinted as `current`. */
export function rememberedAllows(
  memory: ApprovalMemory,
  key: string,
  current: CommandFingerprint | undefined,
): boolean {
  if (memory.lookup(key) !== "allow") return false;
  if (!key.startsWith("execute:")) return true;
  return staleReason(memory.fingerprint(key), current, key, []) === undefined;
}

/** Hard-linked targets that are another name of a file a deny rule names (compared by device and inode). */
async function markDeniedNames(rules: CompiledFileRules, effect: ToolEffect, targets: GateTarget[]): Promise<void> {
  const op = effect === "read" ? "read" : effect === "edit" || effect === "delete" ? "write" : undefined;
  if (!op || !rules.rules.some((rule) => rule.mode === "deny")) return;
  for (const target of targets) {
    if (target.virtual || target.hardLinks <= 1 || !target.identity) continue;
    const found = await deniedNameOf(rules, op, target.identity);
    if (found) target.deniedName = found;
  }
}

/** The host execution surfaces of each root, when the workspace resolves them (see host-surfaces.ts). */
async function surfacesOf(
  policy: GatePolicy,
  roots: readonly string[],
  cwd: string,
): Promise<HostExecutionSurfaces[] | undefined> {
  const cache = policy.surfaces;
  if (!cache) return undefined;
  return Promise.all(roots.map((root) => cache.get(root, isWithin(cwd, root) ? cwd : undefined)));
}

/** Targets of a call, resolved with `fs` (a remote workspace's own follows the remote's links). */
async function resolveTargets(
  paths: readonly string[],
  virtualPrefixes: readonly string[],
  sharedPrefixes: readonly string[],
  fs: RealPathFs,
): Promise<GateTarget[]> {
  return Promise.all(
    paths.map(async (path): Promise<GateTarget> => {
      if (isVirtualPath(path, virtualPrefixes)) {
        return {
          requested: path,
          real: path,
          exists: true,
          isDirectory: false,
          hardLinks: 0,
          virtual: true,
          shared: isVirtualPath(path, sharedPrefixes),
        };
      }
      return resolveRealTarget(path, fs);
    }),
  );
}

async function approveCommand(input: unknown, cwd: string, roots: readonly string[], fs: RealPathFs) {
  const command =
    typeof (input as { command?: unknown })?.command === "string" ? (input as { command: string }).command : "";
  const paths = new Map<string, { real: string; inside: boolean }>();
  for (const arg of commandPathArguments(command, cwd)) {
    const target = await resolveRealTarget(arg, fs);
    // Only arguments that name something (or a path-like word) count; "status" in `git status` does not.
    if (!target.exists && !/[/.]/.test(relative(cwd, arg))) continue;
    paths.set(arg, {
      real: target.real,
      inside: !target.unresolved && roots.some((root) => isWithin(target.real, root)),
    });
  }
  return commandApproval(command, { cwd, paths });
}

/**
 * After a change to files is allowed: remembered command approvals whose program reads those files
 * to decide what it runs are dropped (package.json scripts before a remembered `npm test`, git's
 * config and its includes before `git status`, a Makefile's includes before `make build`), so the
 * next run asks again. Which program reads what is found as the tools find it (command-inputs.ts).
 */
export async function forgetCommandsChangedBy(
  targets: readonly GateTarget[],
  roots: readonly string[],
  memory: ApprovalMemory,
  policy: GatePolicy = {},
): Promise<void> {
  if (!memory.forgetMatching) return;
  const real = await realRoots(roots, policy.fs ?? nodeRealPathFs);
  const local = !policy.fs || policy.fs === nodeRealPathFs;
  for (const target of targets) {
    if (target.virtual) continue;
    const root = real.find((r) => isWithin(target.real, r));
    const surfaces = root && policy.surfaces ? await policy.surfaces.get(root) : undefined;
    // Make includes and node_modules/.bin are read from the local disk only.
    const programs = await programsChangedBy(target.real, root, { surfaces, readIncludes: local });
    // One whose fingerprint holds the file stays: its next use compares and says what changed.
    if (programs === "all" || programs.length > 0)
      memory.forgetMatching(
        (key, fingerprint) => commandKeyUses(key, programs) && !recordsFile(fingerprint, target.real),
      );
  }
}

export function isVirtualPath(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path.startsWith(prefix) || path === prefix.replace(/\/$/, ""));
}
