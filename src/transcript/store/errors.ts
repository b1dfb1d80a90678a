// Typed failures of the session store. acp/ maps them to wire errors (SessionNotFoundError ->
// -32002 resource not found, InvalidCursorError -> -32602 invalid params, the rest -> internal).

export type SessionStoreErrorCode =
  | "session_not_found"
  | "session_exists"
  | "invalid_session_id"
  | "invalid_cursor"
  | "invalid_record"
  | "invalid_meta"
  | "invalid_attachment_name";

export class SessionStoreError extends Error {
  override readonly name: string = "SessionStoreError";
  constructor(
    readonly code: SessionStoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class SessionNotFoundError extends SessionStoreError {
  override readonly name = "SessionNotFoundError";
  constructor(readonly sessionId: string) {
    super("session_not_found", `session not found: ${sessionId}`);
  }
}

export class SessionExistsError extends SessionStoreError {
  override readonly name = "SessionExistsError";
  constructor(readonly sessionId: string) {
    super("session_exists", `session already exists: ${sessionId}`);
  }
}

export class InvalidSessionIdError extends SessionStoreError {
  override readonly name = "InvalidSessionIdError";
  constructor(readonly sessionId: string) {
    super("invalid_session_id", `invalid session id ${JSON.stringify(sessionId)} (expected 1-128 of A-Z a-z 0-9 _ -)`);
  }
}

export class InvalidCursorError extends SessionStoreError {
  override readonly name = "InvalidCursorError";
  constructor(readonly cursor: string) {
    super("invalid_cursor", "invalid session list cursor");
  }
}

export class InvalidRecordError extends SessionStoreError {
  override readonly name = "InvalidRecordError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("invalid_record", message, options);
  }
}

export class InvalidMetaError extends SessionStoreError {
  override readonly name = "InvalidMetaError";
  constructor(message: string) {
    super("invalid_meta", message);
  }
}

export class InvalidAttachmentNameError extends SessionStoreError {
  override readonly name = "InvalidAttachmentNameError";
  constructor(readonly attachmentName: string) {
    super(
      "invalid_attachment_name",
      `invalid attachment name ${JSON.stringify(attachmentName)} (expected 1-200 of A-Z a-z 0-9 . _ -, not starting with ".")`,
    );
  }
}

export { isNotFound } from "../../util/errors.js";
