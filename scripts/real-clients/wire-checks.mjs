// What both real-client checks read off the JSON-RPC log the same way (each client logs in its own
// shape, so the caller says which entries came from the agent).

/** The last status of every tool call the agent announced ("pending" until one says otherwise). */
export function lastToolCallStatuses(entries, fromAgent) {
  const last = new Map();
  for (const entry of entries) {
    const update = entry.message.params?.update;
    if (!fromAgent(entry) || !update?.toolCallId) continue;
    if (!last.has(update.toolCallId)) last.set(update.toolCallId, "pending");
    if (update.status) last.set(update.toolCallId, update.status);
  }
  return last;
}

/** The calls that never reached completed or failed. */
export const unfinishedCalls = (statuses) => [...statuses].filter(([, s]) => s !== "completed" && s !== "failed");
