import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { ApprovalRequest } from "../../gate/door/approver.js";
import type { ReviewAsker } from "../../gate/seams/through-door.js";
import type { ContainerWorkspace } from "../../backends/container/container-workspace.js";
import {
  applyToHost,
  conflictWith,
  diffTree,
  freezeContainer,
  helperTree,
  hostConflict,
  takeSnapshot,
} from "../../backends/container/workspace-changes.js";
import { hostRootOf, readHostEntry } from "../../backends/paths/host-apply.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import { hostExecutionPaths } from "./host-execution-paths.js";
import type { SessionEventSink } from "../services.js";
import { APPLY_BOUNDS, changeLine, changePreview, dialogContent, type ListedChange } from "./apply-dialog.js";
import {
  afterApplyWrite,
  applyPermissionHook,
  screenApplyChange,
  type ApplyGateOptions,
  type Screened,
} from "../../gate/seams/apply-change.js";

// /changes and /apply for a copy-mode container: what the session changed inside, and bringing it to
// the host project. One dialog covers every ordinary change; a change to a path that decides what runs
// on the host (git's config and hooks, editor tasks, the agent's own hooks and MCP servers, ...) is
// never part of it: each asks on its own and is skipped when rejected. A host file changed since the
// copy is a conflict: named, never overwritten, checked again right before each write.
//
// One snapshot per decision: /apply freezes the container's processes (freezeContainer), lists the
// changes and takes their content once, shows that, writes exactly that, and thaws them after the
// last write. Each change goes through the gate's procedure as a Write or Delete (gate/seams/apply-change.ts).

export type { ListedChange };

/** The changes; with `snapshot`, each file's content is taken once (takeSnapshot) before the conflict check. */
export async function listContainerChanges(
  workspace: ContainerWorkspace,
  config: DeepAcpConfig,
  options: { snapshot?: boolean } = {},
): Promise<ListedChange[] | { error: string }> {
  const { record } = workspace;
  if (record.mount === "bind")
    return { error: `${record.url} mounts the project: edits are already on the host, there is nothing to apply` };
  if (!record.baseline) return { error: "the record of what was copied into this container is missing" };
  const tree = await helperTree(workspace.backend.link, record.containerRoot);
  const changes = await diffTree(record.baseline, tree);
  if (options.snapshot) await takeSnapshot(changes, APPLY_BOUNDS.keepBytes);
  const guard = await hostExecutionPaths(config, record.hostRoot);
  return Promise.all(
    changes.map(async (change): Promise<ListedChange> => {
      const protectedBy = guard.matchRelative(change.path);
      const conflict = await hostConflict(record.hostRoot, change, record.baseline![change.path]);
      return { ...change, ...(protectedBy ? { protectedBy } : {}), ...(conflict ? { conflict } : {}) };
    }),
  );
}

/** Markdown for /changes. */
export function describeChanges(workspace: ContainerWorkspace, listed: ListedChange[]): string {
  const { record } = workspace;
  if (listed.length === 0)
    return `No changes: the container's copy of \`${record.hostRoot}\` is as it was copied in (or as last applied).`;
  return [
    `**Changes in the container** (${record.url}, container ${record.containerId.slice(0, 12)}): ${listed.length}, not on the host until \`/apply\``,
    "",
    ...listed.map(changeLine),
  ].join("\n");
}

export type ApplyReport = { applied: string[]; skipped: string[]; conflicts: string[]; failed: string[]; text: string };

export type ApplyOptions = {
  workspace: ContainerWorkspace;
  config: DeepAcpConfig;
  signal: AbortSignal;
  /** The session's door; absent (headless --apply): ordinary changes are applied, protected ones listed. */
  door?: ReviewAsker;
  events?: SessionEventSink;
  /** The gate's side: file rules, hooks, remembered choices (gate/seams/apply-change.ts). */
  gate: ApplyGateOptions;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export async function applyContainerChanges(options: ApplyOptions): Promise<ApplyReport> {
  const empty: ApplyReport = { applied: [], skipped: [], conflicts: [], failed: [], text: "" };
  const { record } = options.workspace;
  if (record.mount === "bind" || !record.baseline) {
    const listed = await listContainerChanges(options.workspace, options.config);
    return { ...empty, text: "error" in listed ? listed.error : "" };
  }
  // Nothing in the container runs from here to the last write: what is listed, shown and written is one state.
  let frozen: Awaited<ReturnType<typeof freezeContainer>>;
  try {
    frozen = await freezeContainer(options.workspace.backend.link);
  } catch (error) {
    return {
      ...empty,
      text: `Nothing applied: the container's processes could not be frozen (${(error as Error).message}).`,
    };
  }
  try {
    return await applyFrozen(options, empty, frozen.notFrozen);
  } finally {
    await frozen.thaw();
  }
}

async function applyFrozen(options: ApplyOptions, report: ApplyReport, notFrozen?: string): Promise<ApplyReport> {
  const { workspace, door, signal } = options;
  const { record } = workspace;
  const listed = await listContainerChanges(workspace, options.config, { snapshot: true });
  if ("error" in listed) return { ...report, text: listed.error };
  if (listed.length === 0) return { ...report, text: describeChanges(workspace, listed) };
  const realRoot = await hostRootOf(record.hostRoot);
  const toolCallId = `apply-${randomUUID()}`;
  const host = (c: ListedChange) => join(record.hostRoot, c.path);
  options.events?.({
    type: "tool_call",
    toolCallId,
    name: "apply",
    title: `Apply the container's changes to ${record.hostRoot}`,
    kind: "edit",
    status: "pending",
    locations: listed.map((c) => ({ path: host(c) })),
    rawInput: { changes: listed.map((c) => ({ path: c.path, kind: c.kind })) },
  });
  const ask = async (request: Omit<ApprovalRequest, "toolCallId" | "toolName" | "kind" | "alwaysLabel">) => {
    if (!door) return false;
    // No "always": each /apply is its own decision.
    const outcome = await door.review(
      { ...request, toolCallId, toolName: "apply", kind: "edit", alwaysLabel: null },
      signal,
    );
    return outcome === "allow_once";
  };
  const screened = new Map<ListedChange, Screened>();
  const apply = async (c: ListedChange) => {
    try {
      // Again at the write: the host may have changed while the dialog was open.
      const now = await conflictWith(await readHostEntry(realRoot, c.path), c, record.baseline![c.path]);
      if (now) {
        report.conflicts.push(`${c.path}: ${now} (found at the write)`);
        return;
      }
      const entry = await applyToHost(record.hostRoot, record.containerRoot, c);
      if (entry) record.baseline![c.path] = entry;
      else delete record.baseline![c.path];
      report.applied.push(c.path);
      await afterApplyWrite(options.gate, record.hostRoot, screened.get(c)!);
    } catch (error) {
      report.failed.push(`${c.path}: ${(error as Error).message}`);
    }
  };
  for (const c of listed) if (c.conflict) report.conflicts.push(`${c.path}: ${c.conflict}`);
  // The file rules and PreToolUse hooks, per file, before any dialog.
  const open: ListedChange[] = [];
  for (const c of listed.filter((x) => !x.conflict)) {
    if (signal.aborted) break;
    const change = {
      path: c.path,
      deleted: c.kind === "deleted",
      ...(c.snapshot?.data ? { data: c.snapshot.data } : {}),
      ...(c.type === "link" ? { linkTarget: c.entry?.target ?? "" } : {}),
    };
    const screen = await screenApplyChange(
      options.gate,
      record.hostRoot,
      change,
      `${toolCallId}-${open.length}`,
      signal,
    );
    screened.set(c, screen);
    if (screen.refused) report.skipped.push(`${c.path}: ${screen.refused}`);
    else open.push(c);
  }
  // The PermissionRequest hooks, per file, before the dialog that would ask for it.
  const hookAnswer = async (c: ListedChange) => {
    const answer = await applyPermissionHook(options.gate, screened.get(c)!, signal);
    if (answer && answer !== "allow") report.skipped.push(`${c.path}: ${answer.refused}`);
    return answer;
  };
  const ordinary: ListedChange[] = [];
  const preapproved: ListedChange[] = [];
  for (const c of open.filter((x) => !x.protectedBy)) {
    if (signal.aborted) break;
    const answer = door ? await hookAnswer(c) : undefined;
    if (answer === "allow") preapproved.push(c);
    else if (answer === undefined) ordinary.push(c);
  }
  for (const c of preapproved) if (!signal.aborted) await apply(c);
  if (ordinary.length > 0 && !signal.aborted) {
    const approved =
      !door ||
      (await ask({
        title: `Apply ${plural(ordinary.length, "change")} to ${record.hostRoot}`,
        rawInput: { changes: ordinary.map((c) => ({ path: c.path, kind: c.kind })) },
        locations: ordinary.slice(0, APPLY_BOUNDS.names).map((c) => ({ path: host(c) })),
        preview: [
          ...(await dialogContent(realRoot, record.hostRoot, ordinary)),
          ...(notFrozen ? [{ type: "text" as const, text: `Note: ${notFrozen}.` }] : []),
        ],
        reason: "writes what the session changed in the container to the host project",
      }));
    for (const c of ordinary) {
      if (signal.aborted) break;
      if (approved) await apply(c);
      else report.skipped.push(`${c.path}: rejected`);
    }
  }
  for (const c of open.filter((x) => x.protectedBy)) {
    if (signal.aborted) break;
    if (!door) {
      report.skipped.push(`${c.path}: protected (${c.protectedBy}), not applied headless`);
      continue;
    }
    const answer = await hookAnswer(c);
    if (answer !== undefined && answer !== "allow") continue;
    const shown = await changePreview(realRoot, record.hostRoot, c);
    const approved =
      answer === "allow" ||
      (await ask({
        title: `Apply the change to protected path ${c.path}`,
        rawInput: { path: c.path, kind: c.kind },
        locations: [{ path: host(c) }],
        preview: [{ type: "text", text: changeLine(c) }, shown],
        reason: `${c.path} decides what runs on the host: ${c.protectedBy}`,
      }));
    if (approved) await apply(c);
    else report.skipped.push(`${c.path}: protected (${c.protectedBy}), rejected`);
  }
  await workspace.state.save(record);
  const section = (title: string, items: string[]) =>
    items.length ? [`**${title}** (${items.length})`, ...items.map((i) => `- ${i}`), ""] : [];
  report.text = [
    ...section("Applied", report.applied),
    ...section("Skipped", report.skipped),
    ...section("Conflicts, not overwritten", report.conflicts),
    ...section("Failed", report.failed),
  ]
    .join("\n")
    .trim();
  options.events?.({
    type: "tool_call_update",
    toolCallId,
    status: report.failed.length > 0 ? "failed" : "completed",
    content: [{ type: "text", text: report.text }],
  });
  return report;
}
