import type { AgentEvent } from "../agent/events.js";
import {
  BackgroundLimitError,
  createBackgroundProcesses,
  describeExit,
} from "../backends/processes/background-processes.js";
import type { SandboxBackendProtocol } from "../backends/protocol.js";
import type { BackgroundHost } from "../tools/types.js";
import type { SessionOptions } from "./services.js";
import { createSessionPeers } from "../peers/index.js";

// The session's background processes and how the editor follows them: each stays an in-progress
// tool call whose output streams live (Zed's display-only terminal) or, for other editors, as a
// periodically refreshed tail; its exit completes the call, also long after the turn that started it.

export type SessionBackgroundOptions = {
  /** Where updates go at any time (the session's out-of-turn channel). */
  sink: (event: AgentEvent) => void;
  /** Minimum time between text refreshes for editors without live terminals. */
  refreshMs?: number;
  /** The session's other ACP agents are its long-lived processes too (peers/session-peers.ts). */
  peers?: Pick<SessionOptions, "cwd" | "services" | "peerErrors" | "peerMcpServers">;
};

const TAIL_CHARS = 2000;

export function createSessionBackground(options: SessionBackgroundOptions) {
  const limits = { maxProcesses: 8, keepChars: 200_000 };
  const processes = createBackgroundProcesses({
    get maxProcesses() {
      return limits.maxProcesses;
    },
    get keepChars() {
      return limits.keepChars;
    },
  });
  const refreshMs = options.refreshMs ?? 1000;
  const given = options.peers;
  const peers = given
    ? createSessionPeers({
        cwd: given.cwd,
        env: given.services.env,
        ...(given.peerErrors ? { errors: given.peerErrors } : {}),
        ...(given.peerMcpServers ? { mcpServers: given.peerMcpServers } : {}),
        agents: async () => (await given.services.config()).config.agents,
      })
    : undefined;
  /** The tool call each process was started by (its terminal in the editor). */
  const toolCalls = new Map<string, string>();

  const host: BackgroundHost & { shell?: SandboxBackendProtocol } = {
    launch(command, cwd, toolCallId, signal) {
      const shell = host.shell;
      const spec = shell?.backgroundSpec?.(command, cwd);
      if (!spec) return "background processes are not available in this session (no local or sandboxed shell)";
      if (typeof spec === "string") return spec;
      // After the user cancels the turn that started it, its tool call is theirs: no more updates.
      let quiet = signal.aborted;
      signal.addEventListener("abort", () => (quiet = true), { once: true });
      const emit = (event: AgentEvent) => {
        if (!quiet) options.sink(event);
      };
      let tail = "";
      let timer: NodeJS.Timeout | undefined;
      const refresh = () => {
        timer = undefined;
        emit({
          type: "tool_call_update",
          toolCallId,
          content: [{ type: "text", text: "```\n" + tail + "\n```" }],
          fallbackOnly: true,
        });
      };
      try {
        const started = processes.start(command, spec, {
          onOutput(data) {
            emit({ type: "tool_output", toolCallId, terminalId: toolCallId, data });
            tail = (tail + data).slice(-TAIL_CHARS);
            timer ??= setTimeout(refresh, refreshMs);
          },
          onExit(exit) {
            if (timer) clearTimeout(timer);
            const text = "```\n" + (tail || "<no output>") + "\n```\n" + describeExit(exit);
            emit({
              type: "tool_call_update",
              toolCallId,
              status: exit.stopped || exit.exitCode === 0 ? "completed" : "failed",
              content: [{ type: "text", text }],
              rawOutput: { exitCode: exit.exitCode, signal: exit.signal, stopped: exit.stopped },
            });
          },
        });
        toolCalls.set(started.id, toolCallId);
        return started;
      } catch (error) {
        if (error instanceof BackgroundLimitError) return error.message;
        return `cannot start: ${(error as Error).message}`;
      }
    },
    read: (id, maxChars) => processes.read(id, maxChars),
    stop: (id) => processes.stop(id),
    list: () => processes.list(),
  };

  return {
    host,
    peers,
    /** Limits from config.toml and the shell commands run in (local or bubblewrap); returns what tools use. */
    prepare(
      config: { max_background_processes: number; background_output_chars: number },
      shell: SandboxBackendProtocol | undefined,
    ): BackgroundHost {
      limits.maxProcesses = config.max_background_processes;
      limits.keepChars = config.background_output_chars;
      host.shell = shell;
      return host;
    },
    /** The tool calls of the processes still running (each is shown as that call's terminal). */
    runningToolCalls(): string[] {
      return processes.list().flatMap((p) => (p.exit ? [] : [toolCalls.get(p.id) ?? []].flat()));
    },
    /** Markdown for /ps. */
    describe(now: Date): string {
      const list = processes.list();
      if (list.length === 0)
        return "No background processes. The agent starts them with `execute` and `background: true`.";
      const lines = list.map(
        (p) =>
          `- \`${p.id}\` ${p.exit ? describeExit(p.exit) : `running for ${duration(now.getTime() - p.startedAt.getTime())}`} (pid ${p.pid ?? "?"}): \`${p.command}\``,
      );
      return `**Background processes**\n\n${lines.join("\n")}\n\nStop one with \`/ps stop ID\`.`;
    },
    /** `/ps stop ID`: a line for the user. */
    async stopById(id: string): Promise<string> {
      if (!processes.get(id)) return `There is no background process "${id}". Run /ps to see them.`;
      const exit = await processes.stop(id);
      return `Stopped ${id} ${exit ? describeExit(exit) : ""}`.trim();
    },
    close: async () => {
      await Promise.all([processes.closeAll(), peers?.close()]);
    },
  };
}

export type SessionBackground = ReturnType<typeof createSessionBackground>;

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60
    ? `${s} s`
    : s < 3600
      ? `${Math.floor(s / 60)} min ${s % 60} s`
      : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
