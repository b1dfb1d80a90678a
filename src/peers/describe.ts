import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { PeerAgentConfig } from "../config/config-file.js";
import type { PeerPool, PeerState } from "./peer-pool.js";

// `/agents`: the other ACP agents the user configured, whether each can start and how it is doing in
// this session, and, plainly, which of a child's actions pass through deep-acp's gate and which not.

export const PEER_BOUNDARY = [
  "**What goes through deep-acp:** the files a child reads and writes through its editor (`fs/read_text_file`, `fs/write_text_file`) and the commands it runs in the editor's terminals (`terminal/*`). Those run in this session's workspace under its file rules, protected paths and dialogs, and plan mode refuses the writes and commands. The child's own permission questions come to you as dialogs; one about a change to a path your file rules deny is refused without asking.",
  "**What does not:** a child's own built-in tools. When an agent edits files or runs commands itself, it works directly on this machine as that agent's own settings allow, and deep-acp's gate does not see it; only the questions it chooses to ask come here. claude-agent-acp (since 0.18) never uses the editor's files or terminals, so deep-acp serves it its own `write_file`, `edit_file`, `read_file`, `execute`, `ls`, `glob` and `grep` (an MCP server, `mcp__deep-acp__*`) and turns off its Write, Edit, MultiEdit, NotebookEdit, Bash, Read, Glob and Grep: its reads, edits and commands go through this gate (`gate_tools`, on by default for it); its own WebFetch and WebSearch still bypass it. codex-acp never uses them either: give it `approval_policy = \"untrusted\"` in Codex's config.toml so it asks first, or a container or sandbox of its own; with `gate_tools = false` claude-agent-acp needs `mode = \"default\"` (its own default asks nobody). Gemini CLI writes through the editor but runs its commands itself.",
].join("\n\n");

export function describePeers(
  agents: Readonly<Record<string, PeerAgentConfig>>,
  pool: PeerPool | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const names = Object.keys(agents);
  if (names.length === 0)
    return [
      "**Agents**",
      "",
      "No other ACP agents are configured. Add one to `~/.deepagents/config.toml`, for example:",
      "",
      '```toml\n[agents.gemini]\ncommand = "gemini"\nargs = ["--experimental-acp"]\ndescription = "Google\'s Gemini CLI"\n```',
      "",
      "Each becomes a `subagent_type` of the `task` tool.",
    ].join("\n");
  const lines = names.map((name) => {
    const agent = agents[name]!;
    const command = [agent.command, ...agent.args].join(" ");
    const found = onPath(agent.command, env) ? "" : " — **command not found**";
    return `- \`${name}\`: ${agent.description ?? "(no description)"} — \`${command}\`${found} — ${stateText(pool?.state(name) ?? { state: "not started" })}`;
  });
  return ["**Agents** (other ACP agents run as subagents)", "", ...lines, "", PEER_BOUNDARY].join("\n");
}

function stateText(state: PeerState): string {
  switch (state.state) {
    case "running":
      return `running (${state.agent}, pid ${state.pid ?? "?"})`;
    case "failed":
      return `stopped: ${state.reason}`;
    default:
      return state.state;
  }
}

function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (isAbsolute(command) || command.includes("/")) return executable(command);
  return (env.PATH ?? "").split(delimiter).some((dir) => dir && executable(join(dir, command)));
}
