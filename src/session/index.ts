// The session room's public entry: one conversation (queue, cancel, mode and model, rewind) and the
// one factory that builds every Session. acp/ loads this lazily, after `initialize` is answered.
export { createSession, type BindCollaborators, type OpenedSession, type SessionSource } from "./factory.js";
export type { Session } from "./session.js";
export type {
  SessionCollaborators,
  SessionEvent,
  SessionEventSink,
  SessionFlags,
  SessionServices,
} from "./services.js";
export { selectRemote, selectWorkspace } from "./workspace/remote-workspace.js";
export { removeSessionWorkspace } from "./workspace/workspace.js";
export { removePlanDocument } from "./plan-document.js";
export { rememberedOf } from "./remembered-wiring.js";
