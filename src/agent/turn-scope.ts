import type { TurnScope } from "../tools/types.js";

export type OwnedTurnScope = TurnScope & { end(): void };

/** Per-turn state; `end()` runs the registered disposers once, newest first. */
export function createTurnScope(id: string): OwnedTurnScope {
  const disposers: Array<() => void> = [];
  let ended = false;
  return {
    id,
    state: new Map(),
    onEnd(dispose) {
      if (ended) dispose();
      else disposers.push(dispose);
    },
    end() {
      if (ended) return;
      ended = true;
      for (const dispose of disposers.reverse()) {
        try {
          dispose();
        } catch {
          // A failing disposer must not keep the others from running.
        }
      }
    },
  };
}
