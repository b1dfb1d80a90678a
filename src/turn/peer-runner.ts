import type { TurnOptions } from "../agent/loop.js";
import type { PeerAgentConfig } from "../config/config-file.js";
import type { HookEngine } from "../hooks/index.js";
import { runPeerTask, type PeerTurnParts } from "../peers/index.js";
import type { AnyTool, ToolResult } from "../tools/types.js";
import { createHookBridge } from "./hook-bridge.js";
import type { PeerRun } from "./subagent-runner.js";

/** What a session gives its turns to run other ACP agents (peers/session-peers.ts). */
export type TurnPeers = PeerTurnParts;

/**
 * `task` on an `[agents.NAME]`: the child runs in the session's working directory with the parent
 * turn's gate settings, tool context and the tools a subagent gets, its events go up as a child
 * session's, and its requests meet the parent's hooks as a subagent's would (agent_type: the name).
 */
export function createPeerRunner(input: {
  peers: TurnPeers;
  agents: Readonly<Record<string, PeerAgentConfig>>;
  parent: Pick<TurnOptions, "toolCalls" | "emit">;
  tools: readonly AnyTool[];
  cwd: string;
  hooks: () => HookEngine;
  running?: Map<string, AbortController>;
}): (run: PeerRun) => Promise<ToolResult> {
  return async (run) => {
    const name = run.definition.agent;
    const config = input.agents[name];
    if (!config)
      return {
        content: [{ type: "text", text: `Error: agent ${name} is not configured ([agents.${name}] in config.toml)` }],
        isError: true,
      };
    const mcpServers = config.pass_mcp_servers ? input.peers.mcpServers?.() : undefined;
    return runPeerTask({
      name,
      config,
      pool: input.peers.pool,
      prompt: run.prompt,
      description: run.request.description,
      parentToolCallId: run.parentToolCallId,
      signal: run.signal,
      toolCalls: input.parent.toolCalls,
      tools: input.tools,
      hooks: createHookBridge(input.hooks, { id: run.agentId, type: run.definition.name }),
      emit: input.parent.emit,
      cwd: input.peers.localCwd,
      workspaceCwd: input.cwd,
      ...(mcpServers ? { mcpServers: mcpServers as never } : {}),
      errors: input.peers.errors,
      ...(input.running ? { running: input.running } : {}),
    });
  };
}
