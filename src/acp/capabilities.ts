import * as acp from "@agentclientprotocol/sdk/unstable";

export type InitializeInput = {
  version: string;
  clientCapabilities: acp.ClientCapabilities;
};

/**
 * The handshake answer. Every capability listed here is implemented; the protocol version is always
 * 1 (the only stable version), whatever the client asked for.
 */
export function buildInitializeResponse({ version, clientCapabilities }: InitializeInput): acp.InitializeResponse {
  const authMethods: acp.AuthMethod[] = [
    {
      id: "deep-acp-login",
      name: "Use a model API key",
      description:
        "Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or OPENAI_COMPATIBLE_BASE_URL) for the agent, or run `deep-acp login` in a terminal, then retry.",
    },
  ];
  if (clientCapabilities.auth?.terminal === true) {
    authMethods.push({ type: "terminal", id: "deep-acp-terminal-login", name: "Log in from a terminal", description: "Store an API key with `deep-acp login`", args: ["login"] });
  }
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: {
        list: {},
        resume: {},
        close: {},
        delete: {},
        fork: {},
        additionalDirectories: {},
      },
    },
    agentInfo: { name: "deep-acp", title: "deep-acp", version },
    authMethods,
  };
}
