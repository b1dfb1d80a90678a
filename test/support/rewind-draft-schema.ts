// The v2 rewind RFD (docs/rfds/v2/session-rewind.mdx, spec PR #1321): not in SDK 2.4.0's schema yet.
// `lastMessageId` is null when an edit of the first message leaves nothing (the draft has no id for it).
export const HISTORY_TRUNCATED_NOTIFICATION = {
  type: "object",
  required: ["sessionId", "update"],
  properties: {
    sessionId: { type: "string" },
    update: {
      type: "object",
      required: ["sessionUpdate", "lastMessageId"],
      additionalProperties: false,
      properties: { sessionUpdate: { const: "history_truncated" }, lastMessageId: { type: ["string", "null"] } },
    },
  },
};
export const REWIND_RESPONSE = {
  type: "object",
  required: ["lastMessageId"],
  additionalProperties: false,
  properties: { lastMessageId: { type: "string" } },
};
export const EDIT_PROMPT_RESPONSE = {
  type: "object",
  required: ["messageId"],
  properties: { messageId: { type: "string" } },
};
