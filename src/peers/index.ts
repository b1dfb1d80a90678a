export { createPeerPool, type PeerPool, type PeerState } from "./peer-pool.js";
export { runPeerTask, type PeerTaskOptions } from "./peer-task.js";
export { peerClientCapabilities } from "./peer-connection.js";
export { describePeers } from "./describe.js";
export type { PeerWireErrors } from "./peer-editor.js";
export { createSessionPeers, type PeerTurnParts, type SessionPeers } from "./session-peers.js";
