import type * as acp from "@agentclientprotocol/sdk/unstable";
import { isStandaloneBinary } from "../util/standalone.js";
import { quotaShapesOf } from "./quota/editor-shapes.js";

/** ACP v1, the only stable version (the SDK's PROTOCOL_VERSION; a value here keeps the SDK off the early handshake). */
const PROTOCOL_VERSION = 1;

/** How to start this agent again: the terminal-auth command is this plus `login`. */
export type LaunchCommand = { command: string; args: string[] };

export type InitializeInput = {
  version: string;
  clientCapabilities: acp.ClientCapabilities;
  /** Default: process.execPath with the script path of this process (process.argv[1]); the standalone binary alone. */
  launch?: LaunchCommand;
};

/**
 * JetBrains' AIR extension (`_meta.jetbrains.air`, codex-acp's src/AirExtension.ts): a client lists
 * the capabilities it speaks with a version, the agent lists the ones it implements. Ours is
 * `sessionRewind` (`_session/rewind`, handlers/session-lifecycle.ts), offered only to a client that lists it.
 */
export const AIR_SESSION_REWIND = "sessionRewind";
const AIR_VERSION = 1;

export function clientSpeaksAir(capabilities: acp.ClientCapabilities, capability: string): boolean {
  const jetbrains = (capabilities._meta as Record<string, unknown> | null | undefined)?.jetbrains;
  const air = (jetbrains as Record<string, unknown> | null | undefined)?.air as Record<string, unknown> | undefined;
  const version = air?.version;
  const listed = air?.capabilities;
  return (
    typeof version === "number" &&
    Number.isInteger(version) &&
    version >= AIR_VERSION &&
    Array.isArray(listed) &&
    listed.includes(capability)
  );
}

/** `authenticate` re-reads the stored credentials; the same for both ids. */
export const AUTH_METHOD_IDS = { agent: "deep-acp-login", terminal: "deep-acp-terminal-login" } as const;

const LOGIN_ARGS = ["login"];

/** Drafts the SDK's schema does not have yet: the quotas-and-limits RFD's `quota` (quota/quota.ts). */
const DRAFT_CAPABILITIES = { quota: {} };

export function currentLaunch(): LaunchCommand {
  if (isStandaloneBinary()) return { command: process.execPath, args: [] };
  return { command: process.execPath, args: process.argv[1] ? [process.argv[1]] : [] };
}

/**
 * The handshake answer. Every capability listed here is implemented; the protocol version is always
 * 1 (the only stable version), whatever the client asked for.
 */
export function buildInitializeResponse({
  version,
  clientCapabilities,
  launch = currentLaunch(),
}: InitializeInput): acp.InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      // Only what is supported: a JSON false reads as true in some clients' languages (Emacs Lisp
      // decodes it to the non-nil `:false`), and an omitted capability means false to every client.
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: {
        list: {},
        resume: {},
        close: {},
        delete: {},
        fork: {},
        additionalDirectories: {},
        // The unstable ones (SDK ./unstable), each implemented: handlers/session-meta-handlers.ts and
        // client-system-prompt.ts.
        title: {},
        archive: {},
        status: {},
        systemPrompt: { mode: { override: {} } },
      },
      auth: { logout: {}, status: {} },
      providers: {},
      ...DRAFT_CAPABILITIES,
      // Prompts sent during a turn join it, for clients that opt in (handlers/steering.ts).
      // codex-acp's rate-limits push, for a client that reads it (quota/editor-shapes.ts).
      _meta: {
        claudeCode: { promptQueueing: true },
        ...(quotaShapesOf(clientCapabilities).accountRateLimits ? { rateLimits: {} } : {}),
      },
    },
    agentInfo: { name: "deep-acp", title: "deep-acp", version },
    authMethods: authMethods(clientCapabilities, launch),
    // codex-acp's steering extension: the `_session/steering` method (handlers/steering.ts).
    _meta: {
      steering: { supported: true },
      ...(clientSpeaksAir(clientCapabilities, AIR_SESSION_REWIND)
        ? { jetbrains: { air: { version: AIR_VERSION, capabilities: [AIR_SESSION_REWIND] } } }
        : {}),
    },
  };
}

/**
 * Always an agent method (set a key, or log in elsewhere, then `authenticate` re-reads it). A
 * `terminal` method only for clients that can run one (TCK AUTH-002). Clients that predate it read
 * the legacy `_meta["terminal-auth"]` descriptor, which names the full command line.
 */
function authMethods(capabilities: acp.ClientCapabilities, launch: LaunchCommand): acp.AuthMethod[] {
  const methods: acp.AuthMethod[] = [
    {
      id: AUTH_METHOD_IDS.agent,
      name: "Use a model API key",
      description:
        "Set a provider's key in the agent's environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, AZURE_OPENAI_API_KEY, ...; `deep-acp doctor` lists every provider and its variables), or run `deep-acp login` in a terminal, then retry.",
    },
  ];
  const terminal = capabilities.auth?.terminal === true;
  const legacy = (capabilities._meta as Record<string, unknown> | null | undefined)?.["terminal-auth"] === true;
  if (!terminal && !legacy) return methods;
  const login = {
    id: AUTH_METHOD_IDS.terminal,
    name: "Log in from a terminal",
    description:
      "Choose a provider and enter its API key; deep-acp stores it in ~/.deepagents/.state/credentials.json.",
    _meta: {
      "terminal-auth": {
        label: "deep-acp login",
        command: launch.command,
        args: [...launch.args, ...LOGIN_ARGS],
        env: {},
      },
    },
  };
  methods.push(terminal ? { type: "terminal", ...login, args: LOGIN_ARGS } : login);
  return methods;
}
