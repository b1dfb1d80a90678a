import * as acp from "@agentclientprotocol/sdk/unstable";
import { startGateToolsServer, type GateToolsServer } from "./gate-tools-server.js";
import { spawnPeer, type PeerLaunch, type PeerProcess } from "./peer-process.js";

// One child agent process and the ACP connection to it, deep-acp on the client side. Every child
// session it opens (one per task) gets a host: what the child asks of its editor for that session
// (files, terminals, permission) is answered by that task's host, under the parent's gate.

/** What deep-acp serves the child for one of its sessions (peer-editor.ts builds it per task). */
export type PeerSessionHost = {
  update(update: acp.SessionUpdate): void;
  requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse>;
  createTerminal(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse>;
  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse>;
  createElicitation?(params: acp.CreateElicitationRequest): Promise<acp.CreateElicitationResponse>;
  /** The flow behind one of its URL elicitations finished. */
  completeElicitation?(params: acp.CompleteElicitationNotification): void;
};

export type PeerConnection = {
  readonly name: string;
  readonly initialize: acp.InitializeResponse;
  readonly pid: number | undefined;
  /** Set once the child is gone; the connection cannot be used again. */
  readonly gone: string | undefined;
  newSession(params: acp.NewSessionRequest): Promise<acp.NewSessionResponse>;
  setMode(params: acp.SetSessionModeRequest): Promise<unknown>;
  setConfigOption(params: acp.SetSessionConfigOptionRequest): Promise<unknown>;
  prompt(params: acp.PromptRequest): Promise<acp.PromptResponse>;
  cancel(sessionId: string): void;
  /** Routes the child's requests for `sessionId` to `host` until the returned function is called. */
  host(sessionId: string, host: PeerSessionHost): () => void;
  /** The MCP server of our tools for this child (gate-tools.ts), started on first use, closed with the connection. */
  gateTools(): Promise<GateToolsServer>;
  /** Resolves with the reason when the child is gone. */
  exited: Promise<string>;
  close(): Promise<void>;
};

/**
 * The capabilities deep-acp serves a child: files and terminals through its own backends and gate,
 * forms, and URL elicitations when the session's editor can open them (`urls`).
 */
export function peerClientCapabilities(urls = false): acp.ClientCapabilities {
  return {
    fs: { readTextFile: true, writeTextFile: true },
    terminal: true,
    elicitation: { form: {}, ...(urls ? { url: {} } : {}) },
  };
}

export type PeerConnectOptions = {
  name: string;
  launch: PeerLaunch;
  /** How long initialize (and authenticate) may take. */
  timeoutMs: number;
  /** An id of the child's authMethods to sign in with before any session (the key is in its env). */
  authMethod?: string;
  /** The session's editor opens URL elicitations: the child may send them. */
  urls?: boolean;
};

/** Starts the child and initializes it; rejects with a readable reason when it cannot. */
export async function connectPeer(options: PeerConnectOptions): Promise<PeerConnection> {
  const child: PeerProcess = spawnPeer(options.launch);
  const hosts = new Map<string, PeerSessionHost>();
  const urlHosts = new Map<string, PeerSessionHost>();
  let gone: string | undefined;
  const describeExit = (reason: string) => {
    const stderr = child.stderrTail();
    return `${options.name} ${reason}${stderr ? `; its last words on stderr: ${stderr.slice(-600)}` : ""}`;
  };
  const exited = child.exited.then(({ reason }) => (gone = describeExit(reason)));
  const hostOf = (sessionId: string): PeerSessionHost => {
    const host = hosts.get(sessionId);
    // A plain Error: the SDK answers it as an internal error, the child learns nothing about other sessions.
    if (!host) throw new Error(`no session ${sessionId} of this client`);
    return host;
  };
  const app = acp
    .client({ name: "deep-acp" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      hosts.get(params.sessionId)?.update(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) =>
      hostOf(params.sessionId).requestPermission(params),
    )
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => hostOf(params.sessionId).readTextFile(params))
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => hostOf(params.sessionId).writeTextFile(params))
    .onRequest(acp.methods.client.terminal.create, ({ params }) => hostOf(params.sessionId).createTerminal(params))
    .onRequest(acp.methods.client.terminal.output, ({ params }) => hostOf(params.sessionId).terminalOutput(params))
    .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) =>
      hostOf(params.sessionId).waitForTerminalExit(params),
    )
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => hostOf(params.sessionId).killTerminal(params))
    .onRequest(acp.methods.client.terminal.release, ({ params }) => hostOf(params.sessionId).releaseTerminal(params))
    .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
      const sessionId = "sessionId" in params ? (params.sessionId as string) : undefined;
      const host = sessionId ? hosts.get(sessionId) : undefined;
      if (!host?.createElicitation) return { action: "cancel" } as acp.CreateElicitationResponse;
      // Its completion names only the elicitation: remember whose it is.
      if (params.mode === "url" && "elicitationId" in params) urlHosts.set(String(params.elicitationId), host);
      return host.createElicitation(params);
    })
    .onNotification(acp.methods.client.elicitation.complete, ({ params }) => {
      const host = urlHosts.get(params.elicitationId);
      urlHosts.delete(params.elicitationId);
      host?.completeElicitation?.(params);
    });
  const connection = app.connect(child.stream);
  const agent = connection.agent;
  /**
   * A request that fails with the child's exit when it dies first. The SDK may notice the closed
   * stream before the process's exit is reported; the exit (with its stderr) is the better reason.
   */
  const request = async <T>(work: Promise<T>): Promise<T> => {
    try {
      return await Promise.race([
        work,
        exited.then((reason) => {
          throw new Error(reason);
        }),
      ]);
    } catch (error) {
      const reason =
        gone ?? (await Promise.race([exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000))]));
      throw reason ? new Error(reason) : error;
    }
  };

  let initialize: acp.InitializeResponse;
  try {
    initialize = await withTimeout(
      request(
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: peerClientCapabilities(options.urls),
        }),
      ),
      options.timeoutMs,
      `${options.name} did not answer initialize within ${Math.round(options.timeoutMs / 1000)} s`,
    );
    if (options.authMethod)
      await withTimeout(
        request(agent.request(acp.methods.agent.authenticate, { methodId: options.authMethod })),
        options.timeoutMs,
        `${options.name} did not answer authenticate within ${Math.round(options.timeoutMs / 1000)} s`,
      );
  } catch (error) {
    await child.stop(200);
    connection.close();
    throw new Error(gone ?? (error as Error).message);
  }

  let gateTools: Promise<GateToolsServer> | undefined;
  const closeGateTools = () => gateTools?.then((server) => server.close()).catch(() => undefined);
  void exited.then(closeGateTools);
  return {
    name: options.name,
    initialize,
    pid: child.pid,
    get gone() {
      return gone;
    },
    newSession: (params) => request(agent.request(acp.methods.agent.session.new, params)),
    setMode: (params) => request(agent.request(acp.methods.agent.session.setMode, params)),
    setConfigOption: (params) => request(agent.request(acp.methods.agent.session.setConfigOption, params)),
    prompt: (params) => request(agent.request(acp.methods.agent.session.prompt, params)),
    cancel: (sessionId) => void agent.notify(acp.methods.agent.session.cancel, { sessionId }).catch(() => undefined),
    host(sessionId, host) {
      hosts.set(sessionId, host);
      return () => void hosts.delete(sessionId);
    },
    gateTools: () => (gateTools ??= startGateToolsServer()),
    exited,
    async close() {
      await child.stop();
      connection.close();
      await closeGateTools();
    },
  };
}

/** `work`, or a rejection with `message` after `ms`. */
export function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
