export { createSessionStore } from "./session-store.js";
export {
  InvalidAttachmentNameError,
  InvalidCursorError,
  InvalidMetaError,
  InvalidRecordError,
  InvalidSessionIdError,
  SessionExistsError,
  SessionNotFoundError,
} from "./errors.js";
export type {
  ListPage,
  MetaExtra,
  MetaPatch,
  NewSessionMeta,
  ReadResult,
  SessionMeta,
  SessionStore,
  SessionStoreOptions,
  StoreRecord,
} from "./types.js";
