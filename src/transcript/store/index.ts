export { createSessionStore, isValidSessionId } from "./session-store.js";
export {
  InvalidAttachmentNameError,
  InvalidCursorError,
  InvalidMetaError,
  InvalidRecordError,
  InvalidSessionIdError,
  SessionExistsError,
  SessionNotFoundError,
  SessionStoreError,
  type SessionStoreErrorCode,
} from "./errors.js";
export type {
  ForkOptions,
  ListOptions,
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
