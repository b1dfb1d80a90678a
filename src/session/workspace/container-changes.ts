import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Approver, ApprovalRequest } from "../../gate/call/approver.js";
import type { ContainerWorkspace } from "../../backends/container/container-workspace.js";
import {
  applyToHost,
  changeContent,
  diffTree,
  helperTree,
  hostConflict,
  type Change,
} from "../../backends/container/workspace-changes.js";
import { looksBinary } from "../../backends/files/mime.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { ToolDisplay } from "../../tools/types.js";
import { hostExecutionPaths } from "./host-execution-paths.js";
import type { SessionEventSink } from "../services.js";

// /changes and /apply for a copy-mode container: what the session changed inside, and bringing it to
// the host project. One dialog covers every ordinary change; a change to a path that decides what runs
// on the host (git's config and hooks, editor tasks, the agent's own hooks and MCP servers, ...) is
// never part of it: each asks on its own and is skipped when rejected. A host file changed since the
// copy is a conflict: named, never overwritten.

export type ListedChange = Change & { protectedBy?: string; conflict?: string };

export async function listContainerChanges(
  workspace: ContainerWorkspace,
  config: DeepAcpConfig,
): Promise<ListedChange[] | { error: string }> {
  const { record } = workspace;
  if (record.mount === "bind")
    return { error: `${record.url} mounts the project: edits are already on the host, there is nothing to apply` };
  if (!record.baseline) return { error: "the record of what was copied into this container is missing" };
  const tree = await helperTree(workspace.backend.link, record.containerRoot);
  const changes = await diffTree(record.baseline, tree);
  const guard = await hostExecutionPaths(config, record.hostRoot);
  return Promise.all(
    changes.map(async (change): Promise<ListedChange> => {
      const protectedBy = guard.matchRelative(change.path);
      const conflict = await hostConflict(record.hostRoot, change, record.baseline![change.path]);
      return { ...change, ...(protectedBy ? { protectedBy } : {}), ...(conflict ? { conflict } : {}) };
    }),
  );
}

const line = (c: ListedChange) =>
  `- ${c.kind} \`${c.path}\`${c.type === "link" ? " (link)" : ""}${
    c.conflict
      ? ` — conflict: ${c.conflict}; not overwritten`
      : c.protectedBy
        ? ` — protected, decides what runs on the host (${c.protectedBy}): asks on its own`
        : ""
  }`;

/** Markdown for /changes. */
export function describeChanges(workspace: ContainerWorkspace, listed: ListedChange[]): string {
  const { record } = workspace;
  if (listed.length === 0)
    return `No changes: the container's copy of \`${record.hostRoot}\` is as it was copied in (or as last applied).`;
  return [
    `**Changes in the container** (${record.url}, container ${record.containerId.slice(0, 12)}): ${listed.length}, not on the host until \`/apply\``,
    "",
    ...listed.map(line),
  ].join("\n");
}

async function preview(workspace: ContainerWorkspace, change: ListedChange): Promise<ToolDisplay | undefined> {
  const path = join(workspace.record.hostRoot, change.path);
  if (change.type === "link")
    return { type: "text", text: `${change.kind} link \`${change.path}\` -> ${change.entry?.target ?? ""}` };
  const after = change.kind === "deleted" ? Buffer.alloc(0) : await changeContent(change);
  const before = change.kind === "added" ? undefined : await readFile(path).catch(() => undefined);
  if ((after && looksBinary(after)) || (before && looksBinary(before)))
    return { type: "text", text: `${change.kind} binary file \`${change.path}\`` };
  return { type: "diff", path, oldText: before?.toString("utf8") ?? null, newText: after?.toString("utf8") ?? "" };
}

export type ApplyReport = { applied: string[]; skipped: string[]; conflicts: string[]; failed: string[]; text: string };

export type ApplyOptions = {
  workspace: ContainerWorkspace;
  config: DeepAcpConfig;
  signal: AbortSignal;
  /** Asks the editor; absent (headless --apply): ordinary changes are applied, protected ones listed. */
  approver?: Approver;
  events?: SessionEventSink;
};

export async function applyContainerChanges(options: ApplyOptions): Promise<ApplyReport> {
  const { workspace, approver, signal } = options;
  const { record } = workspace;
  const listed = await listContainerChanges(workspace, options.config);
  const report: ApplyReport = { applied: [], skipped: [], conflicts: [], failed: [], text: "" };
  if ("error" in listed) return { ...report, text: listed.error };
  if (listed.length === 0) return { ...report, text: describeChanges(workspace, listed) };
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
    if (!approver) return false;
    const outcome = await approver.requestApproval(
      { ...request, toolCallId, toolName: "apply", kind: "edit", alwaysLabel: null },
      signal,
    );
    return outcome === "allow_once" || outcome === "allow_always";
  };
  const apply = async (c: ListedChange) => {
    try {
      const entry = await applyToHost(record.hostRoot, record.containerRoot, c);
      if (entry) record.baseline![c.path] = entry;
      else delete record.baseline![c.path];
      report.applied.push(c.path);
    } catch (error) {
      report.failed.push(`${c.path}: ${(error as Error).message}`);
    }
  };
  for (const c of listed) if (c.conflict) report.conflicts.push(`${c.path}: ${c.conflict}`);
  const ordinary = listed.filter((c) => !c.conflict && !c.protectedBy);
  if (ordinary.length > 0) {
    const previews = (await Promise.all(ordinary.slice(0, 100).map((c) => preview(workspace, c)))).filter(
      (p): p is ToolDisplay => p !== undefined,
    );
    const approved =
      !approver ||
      (await ask({
        title: `Apply ${ordinary.length} change${ordinary.length === 1 ? "" : "s"} to ${record.hostRoot}`,
        rawInput: { changes: ordinary.map((c) => ({ path: c.path, kind: c.kind })) },
        locations: ordinary.map((c) => ({ path: host(c) })),
        preview: [{ type: "text", text: ordinary.map(line).join("\n") }, ...previews],
        reason: "writes what the session changed in the container to the host project",
      }));
    for (const c of ordinary) {
      if (signal.aborted) break;
      if (approved) await apply(c);
      else report.skipped.push(`${c.path}: rejected`);
    }
  }
  for (const c of listed.filter((x) => !x.conflict && x.protectedBy)) {
    if (signal.aborted) break;
    const shown = await preview(workspace, c);
    const approved = await ask({
      title: `Apply the change to protected path ${c.path}`,
      rawInput: { path: c.path, kind: c.kind },
      locations: [{ path: host(c) }],
      ...(shown ? { preview: [shown] } : {}),
      reason: `${c.path} decides what runs on the host: ${c.protectedBy}`,
    });
    if (approved) await apply(c);
    else
      report.skipped.push(`${c.path}: protected (${c.protectedBy}), ${approver ? "rejected" : "not applied headless"}`);
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
