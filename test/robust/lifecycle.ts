// The cycle an editor repeats for days with one agent: session/new with an MCP server, a prompt whose
// model calls one of that server's tools, session/close, session/load (the server again). Probed from
// outside the agent: its open file descriptors and descendant processes from procfs, and (through
// bench/heap-probe.mjs, preloaded) its live event-loop resources and V8 heap after a full GC.
// Used by test/robust/lifecycle.test.ts and `npm run bench -- robust`.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentProcess } from "../support/agent-process.js";
import { textTurn, toolTurn, type FakeTurnHandler } from "../support/fake-model/index.js";
import { heapAfterGc } from "../support/heap-probe.js";
import { pollUntil } from "../support/poll.js";

const EVERYTHING = resolve(
  import.meta.dirname,
  "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
/** The MCP server of every session, as an editor passes it. */
const MCP_SERVER = { name: "ev", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] };
const TOOL = "ev_echo";

/** The fake model: the MCP tool once per prompt, then an answer. */
export const lifecycleModel: FakeTurnHandler = (request) =>
  request.messages.at(-1)?.role === "tool"
    ? textTurn("echoed")
    : request.toolNames.includes(TOOL)
      ? toolTurn(TOOL, { message: "cycle" })
      : textTurn(`no ${TOOL} offered`);

export type LifecycleProbe = {
  fds: number;
  /** Live (not zombie) descendants: MCP servers, their reapers, shells. */
  children: number;
  /** process.getActiveResourcesInfo(), counted by kind. */
  resources: Record<string, number>;
  heapUsedMb: number;
  /** The heap without compiled code (which grows as more code is optimised): the objects. */
  objectsMb: number;
  rssMb: number;
};

function descendants(pid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z" && state !== "X") parents.set(Number(entry), Number(ppid));
    } catch {
      // gone meanwhile
    }
  }
  let count = 0;
  for (const start of parents.keys()) {
    for (let p = parents.get(start); p !== undefined && p > 1; p = parents.get(p))
      if (p === pid) {
        count++;
        break;
      }
  }
  return count;
}

/** Measures the agent (started with --expose-gc --import HEAP_PROBE and HEAP_PROBE_FILE=file). */
export async function probeAgent(agent: AgentProcess, file: string): Promise<LifecycleProbe> {
  const pid = agent.child.pid!;
  const memory = await heapAfterGc(agent.child, file);
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return {
    fds: readdirSync(`/proc/${pid}/fd`).length,
    children: descendants(pid),
    resources: memory.resources,
    heapUsedMb: memory.heapUsed / 1024 / 1024,
    objectsMb: (memory.heapUsed - memory.codeUsed) / 1024 / 1024,
    rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024,
  };
}

/**
 * probeAgent() once the process table is still (two probes 200 ms apart agree on descendants and
 * descriptors): closed sessions' MCP servers exit on their own time.
 */
export async function settledProbe(agent: AgentProcess, file: string): Promise<LifecycleProbe> {
  let last = await probeAgent(agent, file);
  await pollUntil(
    async () => {
      const now = await probeAgent(agent, file);
      const still = now.children === last.children && now.fds === last.fds;
      last = now;
      return still;
    },
    "the agent's processes and descriptors to settle",
    { intervalMs: 200, timeoutMs: 20_000 },
  );
  return last;
}

/** One cycle; throws when a step is not answered as an editor expects. Resolves with the session's id. */
export async function lifecycleCycle(agent: AgentProcess, cwd: string, i: number): Promise<string> {
  const created = await agent.request("session/new", { cwd, mcpServers: [MCP_SERVER] });
  const sessionId = created.result?.sessionId as string | undefined;
  if (!sessionId) throw new Error(`cycle ${i}: session/new failed: ${JSON.stringify(created.error)}`);
  const prompt = await agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: `cycle ${i}` }],
  });
  if (prompt.result?.stopReason !== "end_turn") throw new Error(`cycle ${i}: prompt: ${JSON.stringify(prompt)}`);
  const called = agent
    .updates(sessionId)
    .some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  if (!called) throw new Error(`cycle ${i}: the MCP tool call did not complete`);
  const closed = await agent.request("session/close", { sessionId });
  if (closed.error) throw new Error(`cycle ${i}: session/close: ${JSON.stringify(closed.error)}`);
  const loaded = await agent.request("session/load", { sessionId, cwd, mcpServers: [MCP_SERVER] });
  if (loaded.error) throw new Error(`cycle ${i}: session/load: ${JSON.stringify(loaded.error)}`);
  return sessionId;
}

/** What an editor does when its window closes: session/close for each (loaded or not). */
export async function closeAll(agent: AgentProcess, sessionIds: readonly string[]): Promise<void> {
  await Promise.all(sessionIds.map((sessionId) => agent.request("session/close", { sessionId })));
}

/** Growth of each figure from `before` to `after` (resources by kind, only those that changed). */
export function growth(before: LifecycleProbe, after: LifecycleProbe) {
  const kinds = new Set([...Object.keys(before.resources), ...Object.keys(after.resources)]);
  const resources: Record<string, number> = {};
  for (const kind of kinds) {
    const delta = (after.resources[kind] ?? 0) - (before.resources[kind] ?? 0);
    if (delta !== 0) resources[kind] = delta;
  }
  return {
    fds: after.fds - before.fds,
    children: after.children - before.children,
    resources,
    heapUsedMb: after.heapUsedMb - before.heapUsedMb,
    objectsMb: after.objectsMb - before.objectsMb,
    rssMb: after.rssMb - before.rssMb,
  };
}
