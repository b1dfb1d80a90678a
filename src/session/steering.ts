import type { PromptBlock } from "../tools/types.js";
import type { SteeringInbox, SteeringOutcome } from "../turn/index.js";

// Messages sent while a turn runs, for clients that steer (acp/handlers/steering.ts): the turn takes them at
// its next safe point (turn/run.ts, agent/loop.ts) and says what became of each.

/** What became of a steered message, and the prompt turn it was offered to (its user message id; none when no prompt turn ran). */
export type SteeringAnswer = { outcome: SteeringOutcome; turn?: string };

type Waiting = { blocks: readonly PromptBlock[]; messageId: string; settle(outcome: SteeringOutcome): void };

export function createSteeringInbox() {
  let waiting: Waiting[] = [];
  const inbox = {
    pending: () => waiting.length > 0,
    take(): Waiting[] {
      const taken = waiting;
      waiting = [];
      return taken;
    },
    /** Waits for the running turn's next safe point. */
    add(blocks: readonly PromptBlock[], messageId: string): Promise<SteeringOutcome> {
      return new Promise((settle) => waiting.push({ blocks, messageId, settle }));
    },
    /** The turn ended (`left`: each runs as a turn of its own) or was cancelled: nothing waits any more. */
    release(outcome: "left" | "cancelled"): void {
      for (const item of inbox.take()) item.settle(outcome);
    },
  } satisfies SteeringInbox & Record<string, unknown>;
  return inbox;
}
