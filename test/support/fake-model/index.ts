export { createFakeModelServer, textTurn, toolTurn, NO_SCRIPT_TEXT } from "./server.js";
export type { FakeModelServer, FakeModelServerOptions } from "./server.js";
export { chunkWords, fakeSignature } from "./render.js";
export type { FakeApi, FakePart, FakeTurn, FakeTurnHandler, LooseMessage, RecordedRequest } from "./types.js";
export { limitHeaders, rateLimitedTurn, type LimitState } from "./limits.js";
