import * as acp from "@agentclientprotocol/sdk/unstable";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { TurnResult } from "../../agent/events.js";
import type { PromptBlock } from "../../tools/types.js";
import type { ConnectionState, LiveSession } from "../connection-state.js";
import { toPromptBlocks } from "../prompt-content.js";
import type { SteeringOutcome } from "../../turn/index.js";
import { parseSlashCommand } from "../../commands/index.js";
import { wireError } from "../errors.js";

// Steering: a prompt sent while a turn runs joins that turn at its next safe point (after the
// current tool calls, before the next model request) instead of waiting for it to end. Only for
// clients that ask, in one of the vendor adapters' two ways; everyone else's prompts queue:
//
// - claude-agent-acp's prompt queueing: we advertise `agentCapabilities._meta.claudeCode.promptQueueing`,
//   and a client opts in with the same key in its capabilities. Its `session/prompt` sent during a
//   turn joins it; the request that held the turn then answers `end_turn` (all it streamed is out),
//   and the joining request carries the turn to its end and answers with its stop reason.
// - codex-acp's `_session/steering` {sessionId, prompt}, advertised as `_meta.steering.supported`
//   on the initialize answer: `{outcome: "injected"}` once the message joined the running turn,
//   `startedNewTurn` when no turn was running (or it ended first), `failed` when a hook stopped it.
//
// A prompt that is a slash command is never steered. After session/cancel a waiting message joins
// nothing: its prompt answers `cancelled` (a steering request gets an error).
//
// ACP v2 clients need no opt-in: v2's prompt answer acknowledges insertion, not the end of a turn,
// so a v2 prompt sent during a turn joins it the same way (steerV2Prompt; v2-agent.ts).

export const STEERING_METHOD = "_session/steering";
const steeringParams = z.object({ sessionId: z.string().min(1), prompt: z.array(z.any()) });

/** Whether the client opted in to claude-agent-acp's prompt queueing (see above). */
export function wantsPromptQueueing(capabilities: acp.ClientCapabilities): boolean {
  const meta = capabilities._meta as { claudeCode?: { promptQueueing?: unknown } } | null | undefined;
  return meta?.claudeCode?.promptQueueing === true;
}

/**
 * Which prompt request holds each running turn, by the turn's user message id, so a joining prompt
 * takes over exactly the turn it joined (not a prompt queued behind it, such as a slash command's).
 */
export function createTurnOwners() {
  const owners = new Map<string, { turn: Promise<TurnResult>; handOff: () => void }>();
  const own = async (turnId: string, turn: Promise<TurnResult>): Promise<TurnResult | "handed-off"> => {
    let handOff!: () => void;
    const handed = new Promise<"handed-off">((resolve) => (handOff = () => resolve("handed-off")));
    const owner = { turn, handOff };
    owners.set(turnId, owner);
    try {
      return await Promise.race([turn, handed]);
    } finally {
      if (owners.get(turnId) === owner) owners.delete(turnId);
    }
  };
  return {
    /** Waits for the turn unless a steered prompt takes it over first ("handed-off"). */
    own,
    /** A steered prompt joined: it now waits for the turn; the request that held it is released. */
    takeOver(turnId: string): Promise<TurnResult | "handed-off"> | undefined {
      const owner = owners.get(turnId);
      if (!owner) return undefined;
      owner.handOff();
      return own(turnId, owner.turn);
    },
  };
}

export type TurnOwners = ReturnType<typeof createTurnOwners>;

/**
 * A prompt for a running turn (claude's convention). The turn's end when it joined (or "handed-off"
 * when yet another prompt took over), "cancelled", "blocked" (a hook stopped it; already said), or
 * undefined when it did not join: the caller runs it as a turn of its own.
 */
export async function steerPrompt(
  owners: TurnOwners,
  entry: LiveSession,
  blocks: readonly PromptBlock[],
  messageId: string,
): Promise<TurnResult | "handed-off" | "blocked" | undefined> {
  const { outcome, turn } = await entry.session.steer(blocks, messageId);
  if (outcome === "cancelled") return { stopReason: "cancelled" };
  if (outcome === "blocked") return "blocked";
  if (outcome === "left" || turn === undefined) return undefined;
  // A turn no prompt request holds (started by _session/steering) answers this request at once.
  return owners.takeOver(turn) ?? { stopReason: "end_turn" };
}

/** codex-acp's `_session/steering`. */
export function registerSteering(app: acp.AgentApp, state: ConnectionState): acp.AgentApp {
  return app.onRequest(STEERING_METHOD, steeringParams, async ({ params }) => {
    const entry = await state.live(params.sessionId);
    const blocks = toPromptBlocks(params.prompt as acp.ContentBlock[], entry.session.cwd);
    const { outcome } = await entry.session.steer(blocks, randomUUID());
    if (outcome === "joined") return { outcome: "injected" };
    if (outcome === "blocked") return { outcome: "failed" };
    if (outcome === "cancelled")
      throw wireError.invalidRequest({ sessionId: params.sessionId }, "the turn was cancelled first");
    // Nothing to join: the message starts a turn of its own, which streams like any other.
    const push = (event: Parameters<LiveSession["translate"]>[0]) => {
      for (const update of entry.translate(event)) entry.stream.push(update);
    };
    void entry.session
      .prompt(blocks, push, randomUUID())
      .then(() => state.refreshCommands(entry))
      .catch((error) => state.logger.warn("a steering turn failed", error));
    return { outcome: "startedNewTurn" };
  });
}

/**
 * A v2 prompt for a running turn, under the message id the v2 agent will answer with: "joined" (the
 * message is inserted; its echo goes out on the session's stream, after everything the turn sent
 * before it), "left" (no prompt turn runs, or it ended first, or the prompt is a slash command: the
 * caller runs it as a turn of its own), "cancelled" or "blocked" (a hook stopped it; already said).
 */
export async function steerV2Prompt(
  state: ConnectionState,
  sessionId: string,
  prompt: acp.ContentBlock[],
  messageId: string,
): Promise<SteeringOutcome> {
  const entry = state.sessions.get(sessionId);
  if (!entry) return "left";
  const blocks = toPromptBlocks(prompt, entry.session.cwd);
  if (parseSlashCommand(blocks)) return "left";
  const { outcome } = await entry.session.steer(blocks, messageId);
  if (outcome === "joined")
    for (const content of prompt) entry.stream.push({ sessionUpdate: "user_message_chunk", messageId, content });
  return outcome;
}
