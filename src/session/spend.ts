import type { AgentEvent } from "../agent/events.js";

// What a session has cost: the sum of each model request's price from the catalog (or config.toml
// overrides). One request with an unknown price makes the total unknown, so a partial sum is never
// shown as the cost. Restored from the transcript, so a reloaded session keeps counting.

export type SpendTotals = {
  usd: number;
  unpriced: number;
  requests: number;
  inputTokens: number;
  outputTokens: number;
};

export function emptySpend(): SpendTotals {
  return { usd: 0, unpriced: 0, requests: 0, inputTokens: 0, outputTokens: 0 };
}

export function createSpendTracker(initial: SpendTotals = emptySpend()) {
  const totals = { ...initial };
  return {
    /** Adds one request; returns the event with the session total attached (when it is known). */
    add(event: Extract<AgentEvent, { type: "usage" }>): Extract<AgentEvent, { type: "usage" }> {
      totals.requests++;
      totals.inputTokens +=
        event.usage.inputTokens + (event.usage.cacheReadTokens ?? 0) + (event.usage.cacheWriteTokens ?? 0);
      totals.outputTokens += event.usage.outputTokens;
      if (event.costUsd === undefined) totals.unpriced++;
      else totals.usd += event.costUsd;
      return totals.unpriced === 0 ? { ...event, sessionCostUsd: totals.usd } : event;
    },
    totals: (): SpendTotals => ({ ...totals }),
    /** A message that stops the turn once the spend reached `limitUsd`. */
    overLimit(limitUsd: number | undefined): string | undefined {
      if (limitUsd === undefined || totals.usd < limitUsd) return undefined;
      return `Spend limit reached: this session has cost ${usd(totals.usd)} of its ${usd(limitUsd)} limit ([cost] max_session_usd in config.toml). The turn stops here; raise the limit or start a new session to continue.`;
    },
    /** Markdown for /cost. */
    report(limitUsd: number | undefined, model: string): string {
      const lines = [
        totals.requests === 0
          ? "- No model requests yet."
          : totals.unpriced === 0
            ? `- Spent: **${usd(totals.usd)}**`
            : `- Spent: unknown (${totals.unpriced} of ${totals.requests} requests used a model without prices${totals.usd > 0 ? `; the priced ones cost ${usd(totals.usd)}` : ""})`,
        `- Model requests: ${totals.requests} (${totals.inputTokens.toLocaleString("en-US")} input and ${totals.outputTokens.toLocaleString("en-US")} output tokens)`,
        `- Model: \`${model}\``,
        limitUsd === undefined
          ? "- Spend limit: none (set `[cost] max_session_usd` in config.toml)"
          : `- Spend limit: ${usd(limitUsd)} per session${totals.unpriced > 0 ? " (requests without prices are not counted)" : ""}`,
      ];
      return `**Cost of this session**\n\n${lines.join("\n")}`;
    },
  };
}

export type SpendTracker = ReturnType<typeof createSpendTracker>;

function usd(amount: number): string {
  return amount >= 1 ? `$${amount.toFixed(2)}` : `$${amount.toFixed(4)}`;
}
