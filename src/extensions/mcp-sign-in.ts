// OAuth sign-in without a terminal: when a session's MCP server needs a login and the editor can
// open URLs (`elicitation.url`), the next turn runs the same flow as `deep-acp mcp login` (loopback
// listener, PKCE, tokens in the same file) with the authorization URL shown as a URL elicitation,
// then reconnects the server. Each server is offered once per session; a refusal leaves it
// unauthenticated with a notice saying how to sign in later.

import { randomUUID } from "node:crypto";
import type { AgentEvent } from "../agent/events.js";
import {
  mcpLogin,
  type McpManager,
  type McpServerEntry,
  type McpEnvPolicy,
  type McpTrustResolver,
} from "../mcp/index.js";
import type { Questioner } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import type { ExtensionServices } from "./services.js";

/** How long a turn waits for the browser to come back from the authorization server. */
const SIGN_IN_TIMEOUT_MS = 180_000;
/** How long the turn then waits for the reconnected server before going on without it. */
const RECONNECT_WAIT_MS = 10_000;

export type McpSignInOptions = {
  services: Pick<ExtensionServices, "env" | "logger"> & { paths: Pick<ExtensionServices["paths"], "stateDir"> };
  projectRoot: string;
  questioner: Questioner;
  timeoutMs?: number;
};

export type McpSignInTarget = {
  mcp: McpManager;
  mcpEntries: readonly McpServerEntry[];
  mcpEnvPolicy: McpEnvPolicy;
  /**
   * The session's own trust resolver (the one its MCP manager asks): a project server the user
   * allowed once in this session is allowed for its sign-in too, and a rejection holds.
   */
  mcpTrust: McpTrustResolver;
};

class SignInRefused extends Error {
  constructor(readonly answer: string) {
    super(answer);
  }
}

export function createMcpSignIn(options: McpSignInOptions) {
  /** Servers already offered a sign-in in this session (whatever the outcome). */
  const offered = new Set<string>();

  async function signIn(
    target: McpSignInTarget,
    entry: McpServerEntry,
    signal: AbortSignal,
    sink: (event: AgentEvent) => void,
  ): Promise<void> {
    const name = entry.name;
    const { services } = options;
    const elicitationId = randomUUID();
    let shown = false;
    try {
      await mcpLogin(name, {
        entries: target.mcpEntries,
        trust: target.mcpTrust,
        stateDir: services.paths.stateDir,
        env: services.env,
        envPolicy: target.mcpEnvPolicy,
        signal,
        timeoutMs: options.timeoutMs ?? SIGN_IN_TIMEOUT_MS,
        logger: services.logger.child("mcp"),
        openUrl: async (url) => {
          const message = `MCP server "${name}" needs you to sign in. Open the link to authorize deep-acp; the server's tools are available once you have.`;
          const answer = await options.questioner.openUrl!({ message, url, elicitationId }, signal);
          if (answer !== "accept") throw new SignInRefused(answer);
          shown = true;
        },
      });
    } catch (error) {
      const refused = error instanceof SignInRefused ? error.answer : undefined;
      const title =
        refused === "decline" || refused === "cancel" || signal.aborted
          ? `MCP server "${name}" stays signed out (sign-in ${signal.aborted ? "cancelled" : refused === "decline" ? "declined" : "cancelled"})`
          : `MCP server "${name}": sign-in failed: ${errorMessage(error)}`;
      sink({
        type: "notice",
        severity: "warning",
        title,
        description: `run \`deep-acp mcp login ${name}\` in a terminal, then /reload`,
      });
      return;
    } finally {
      if (shown) options.questioner.urlDone?.(elicitationId);
    }
    await target.mcp.reload(target.mcpEntries);
    await Promise.race([target.mcp.ready(signal), delay(RECONNECT_WAIT_MS)]);
    const status = target.mcp.describe().find((server) => server.name === name);
    if (status?.status === "ok")
      sink({ type: "notice", severity: "info", title: `Signed in to MCP server "${name}"; its tools are available.` });
    else
      sink({
        type: "notice",
        severity: "warning",
        title: `Signed in to MCP server "${name}", but it is ${status?.status ?? "gone"}${status?.reason ? ` (${status.reason})` : ""}`,
      });
  }

  return {
    /** Offers a sign-in for every OAuth server that needs one and was not offered yet, one at a time. */
    async run(target: McpSignInTarget, signal: AbortSignal, sink: (event: AgentEvent) => void): Promise<void> {
      if (!options.questioner.urls || !options.questioner.openUrl) return;
      for (const report of target.mcp.describe()) {
        if (signal.aborted) return;
        if (report.status !== "unauthenticated" || offered.has(report.name)) continue;
        const entry = target.mcpEntries.find((candidate) => candidate.name === report.name);
        const definition = entry?.definition;
        if (!entry || !definition || definition.transport === "stdio" || definition.auth !== "oauth") continue;
        offered.add(report.name);
        await signIn(target, entry, signal, sink);
      }
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
