import * as acp from "@agentclientprotocol/sdk/unstable";
import type { EditorBridge } from "../../backends/editor/editor-bridge.js";

/**
 * The editor's file system and terminals for one session, as the backends layer sees them. Only
 * what the client advertised is offered (ACP forbids calling the rest).
 */
export function createEditorBridge(
  client: acp.AgentContext,
  sessionId: string,
  caps: acp.ClientCapabilities,
): EditorBridge | undefined {
  const canReadFiles = caps.fs?.readTextFile === true;
  const canWriteFiles = caps.fs?.writeTextFile === true;
  const canRunTerminals = caps.terminal === true;
  if (!canReadFiles && !canWriteFiles && !canRunTerminals) return undefined;
  return {
    canReadFiles,
    canWriteFiles,
    canRunTerminals,
    async readTextFile(path, line, limit) {
      const response = await client.request(acp.methods.client.fs.readTextFile, {
        sessionId,
        path,
        ...(line !== undefined ? { line } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      return response.content;
    },
    async writeTextFile(path, content) {
      await client.request(acp.methods.client.fs.writeTextFile, { sessionId, path, content });
    },
    async createTerminal(request) {
      const handle = await client.createTerminal({
        sessionId,
        command: request.command,
        args: request.args,
        cwd: request.cwd,
        ...(request.env ? { env: Object.entries(request.env).map(([name, value]) => ({ name, value })) } : {}),
        ...(request.outputByteLimit !== undefined ? { outputByteLimit: request.outputByteLimit } : {}),
      });
      return {
        id: handle.id,
        waitForExit: async () => {
          const exit = await handle.waitForExit();
          return { exitCode: exit.exitCode ?? null, signal: exit.signal ?? null };
        },
        currentOutput: async () => {
          const out = await handle.currentOutput();
          return {
            output: out.output,
            truncated: out.truncated,
            ...(out.exitStatus
              ? { exitStatus: { exitCode: out.exitStatus.exitCode ?? null, signal: out.exitStatus.signal ?? null } }
              : {}),
          };
        },
        kill: async () => void (await handle.kill()),
        release: async () => void (await handle.release()),
      };
    },
  };
}
