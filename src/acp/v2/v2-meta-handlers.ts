import type * as v1 from "@agentclientprotocol/sdk/unstable";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";

// The v2 methods the v1 agent answers in the same shape (the two schemas' types are equal): a
// session's title, archive and status (handlers/session-meta-handlers.ts), the editor's providers and
// auth/status (handlers/provider-handlers.ts). Each goes to the v1 agent with the fields its schema names;
// what it sends back unasked (set_title's `session_info_update`, `auth/status_update`) reaches the v2
// client through the v2 agent's notification relay. Only session/status differs: v2 adds the
// session's foreground state, which the v2 agent keeps.

export type V2Forwarding = {
  /** A request to the v1 agent, its errors as v2 errors. */
  call<T>(method: string, params: unknown): Promise<T>;
  /** The last state snapshot of a session open on this connection; undefined for any other. */
  stateOf(sessionId: string): v2.StateUpdate | undefined;
  /** Runs a v1 request that closes the session (archive), then sends nothing more for it, as session/close. */
  closing<T>(sessionId: string, close: () => Promise<T>): Promise<T>;
};

export function registerV2MetaHandlers(app: v2.AgentApp, f: V2Forwarding): v2.AgentApp {
  return app
    .onRequest(v2.methods.agent.session.setTitle, ({ params }) =>
      f.call<v2.SetSessionTitleResponse>("session/set_title", { sessionId: params.sessionId, title: params.title }),
    )
    .onRequest(v2.methods.agent.session.archive, ({ params }) =>
      f.closing(params.sessionId, () =>
        f.call<v2.ArchiveSessionResponse>("session/archive", { sessionId: params.sessionId }),
      ),
    )
    .onRequest(v2.methods.agent.session.unarchive, ({ params }) =>
      f.call<v2.UnarchiveSessionResponse>("session/unarchive", { sessionId: params.sessionId }),
    )
    .onRequest(v2.methods.agent.session.status, async ({ params }) => {
      const { status } = await f.call<v1.SessionStatusResponse>("session/status", { sessionId: params.sessionId });
      const state = status === "open" ? f.stateOf(params.sessionId) : undefined;
      return { status, ...(state ? { state } : {}) };
    })
    .onRequest(v2.methods.agent.auth.status, () => f.call<v2.AuthStatusResponse>("auth/status", {}))
    .onRequest(v2.methods.agent.providers.list, () => f.call<v2.ListProvidersResponse>("providers/list", {}))
    .onRequest(v2.methods.agent.providers.set, ({ params }) =>
      f.call<v2.SetProviderResponse>("providers/set", {
        providerId: params.providerId,
        apiType: params.apiType,
        baseUrl: params.baseUrl,
        ...(params.headers ? { headers: params.headers } : {}),
      }),
    )
    .onRequest(v2.methods.agent.providers.disable, ({ params }) =>
      f.call<v2.DisableProviderResponse>("providers/disable", { providerId: params.providerId }),
    );
}

/** The v2 capabilities of what the v1 agent advertised and these handlers (and the v2 agent) serve. */
export function toV2Capabilities(agent: v1.AgentCapabilities): v2.AgentCapabilities {
  const session = agent.sessionCapabilities ?? {};
  const prompt = agent.promptCapabilities ?? {};
  return {
    session: {
      prompt: {
        ...(prompt.image ? { image: {} } : {}),
        ...(prompt.audio ? { audio: {} } : {}),
        ...(prompt.embeddedContext ? { embeddedContext: {} } : {}),
      },
      mcp: { stdio: {}, ...(agent.mcpCapabilities?.http ? { http: {} } : {}) },
      ...(session.delete ? { delete: {} } : {}),
      ...(session.additionalDirectories ? { additionalDirectories: {} } : {}),
      ...(session.systemPrompt ? { systemPrompt: session.systemPrompt } : {}),
      ...(session.title ? { title: {} } : {}),
      ...(session.archive ? { archive: {} } : {}),
      ...(session.status ? { status: {} } : {}),
    },
    ...(agent.auth?.status ? { auth: { status: {} } } : {}),
    ...(agent.providers ? { providers: {} } : {}),
  } as v2.AgentCapabilities;
}
