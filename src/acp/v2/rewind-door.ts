import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { z } from "zod";
import { RewindError } from "../../session/errors.js";
import type { RewindTarget } from "../../transcript/index.js";
import { toRequestError, wireError } from "../errors.js";

// The v2 draft's rewind (ACP RFD "Session Rewind: truncate and edit history", docs/rfds/v2/
// session-rewind.mdx in spec PR #1321): another door to the session's one rewind (Session.rewind).
// `session/rewind { toMessageId }` keeps history up to and including that message and drops the
// rest; `session/edit_prompt { messageId, content }` drops that user message and everything after,
// then inserts `content` as a new prompt through v2's prompt lifecycle (answered with the new
// message's id; `user_message`, `state_update` running ... idle). Each first cancels a running turn
// (its idle `cancelled` state goes out first) and answers the prompts still held with -32800; each
// tells every client with a `history_truncated` update. As the RFD says, neither touches the files
// (our `_deep-acp/session/rewind` does), and there is no v1 door: the v1 agent does not list or
// answer these methods. An unknown id is -32002 with `reason: "unknown_message_id"`, an edit of a
// message that is not a user message -32602 with `reason: "not_a_user_message"`; either leaves
// the session as it was.

export const REWIND_METHOD = "session/rewind";
export const EDIT_PROMPT_METHOD = "session/edit_prompt";

export type V2RewindDoor = {
  /** Throws session-not-found unless the session is open on this connection. */
  checkOpen(sessionId: string): void;
  /** Throws a RewindError when the session has no point to cut at `target` (nothing changes). */
  check(sessionId: string, target: RewindTarget): Promise<void>;
  /** Cancels the running turn and drops held prompts; resolves once its idle state is out. */
  settle(sessionId: string): Promise<void>;
  /** Session.rewind, files left alone: the last message left (null when none is). */
  truncate(sessionId: string, target: RewindTarget): Promise<{ lastMessageId: string | null }>;
  notify(sessionId: string, update: v2.SessionUpdate): void;
  /** Inserts a prompt as session/prompt does; answered with its messageId once accepted. */
  insert(sessionId: string, prompt: v2.ContentBlock[]): Promise<v2.PromptResponse>;
};

const isContentBlock = (block: v2.ContentBlock) =>
  v2.ContentBlock.isText(block) ||
  v2.ContentBlock.isImage(block) ||
  v2.ContentBlock.isAudio(block) ||
  v2.ContentBlock.isResourceLink(block) ||
  v2.ContentBlock.isResource(block);

const rewindParams = z.object({ sessionId: z.string().min(1), toMessageId: z.string().min(1) });
const editParams = z.object({
  sessionId: z.string().min(1),
  messageId: z.string().min(1),
  // Checked before anything is cut: a bad block must not cost the user the message it replaces.
  content: z
    .array(z.custom<v2.ContentBlock>((block) => typeof block === "object" && block !== null))
    .min(1)
    .refine((blocks) => blocks.every(isContentBlock), "each block must be a v2 ContentBlock"),
});

/** `session.rewind` in the capabilities: truncation, and edit_prompt. */
export function withRewindCapability(capabilities: v2.AgentCapabilities): v2.AgentCapabilities {
  const session = (capabilities.session ?? {}) as Record<string, unknown>;
  return { ...capabilities, session: { ...session, rewind: { edit_prompt: true } } } as v2.AgentCapabilities;
}

/** The draft's error for a rewind that found no point to cut at; the usual map for the rest. */
function rewindError(error: unknown, sessionId: string, messageId: string): unknown {
  if (!(error instanceof RewindError)) return toRequestError(error, { sessionId, messageId });
  const data = { reason: error.reason, messageId };
  return error.reason === "unknown_message_id"
    ? wireError.resourceNotFound(data)
    : wireError.invalidParams(data, error.message);
}

/** Checks the target, then cancels what runs, then cuts: a bad id stops nothing and loses nothing. */
async function cut(door: V2RewindDoor, sessionId: string, messageId: string, target: RewindTarget) {
  door.checkOpen(sessionId);
  try {
    await door.check(sessionId, target);
    await door.settle(sessionId);
    return await door.truncate(sessionId, target);
  } catch (error) {
    throw rewindError(error, sessionId, messageId);
  }
}

export function registerV2Rewind(app: v2.AgentApp, door: V2RewindDoor): v2.AgentApp {
  return app
    .onRequest(REWIND_METHOD, rewindParams, async ({ params }) => {
      const { sessionId, toMessageId } = params;
      await cut(door, sessionId, toMessageId, { through: toMessageId });
      door.notify(sessionId, { sessionUpdate: "history_truncated", lastMessageId: toMessageId } as never);
      return { lastMessageId: toMessageId };
    })
    .onRequest(EDIT_PROMPT_METHOD, editParams, async ({ params }) => {
      const { sessionId, messageId, content } = params;
      const { lastMessageId } = await cut(door, sessionId, messageId, { before: messageId });
      // Nothing left before the first message: the draft has no id for that, so it is null.
      door.notify(sessionId, { sessionUpdate: "history_truncated", lastMessageId } as never);
      return door.insert(sessionId, content);
    });
}
