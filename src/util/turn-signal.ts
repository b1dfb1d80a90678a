import { setMaxListeners } from "node:events";

/**
 * Every parallel tool call of a turn, each call's hooks and processes, and its subagents listen on the
 * turn's one abort signal, and each removes its listener when it ends (the lifecycle soak shows no
 * growth). Node warns of a leak past 10 listeners, which a fan-out of eleven calls reaches; this is the
 * turn's real bound, high enough for the interpreter's task() fan-out and parallel calls.
 */
const TURN_SIGNAL_LISTENERS = 256;

/** An AbortController for a turn (or a subagent's child turn). */
export function createTurnAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(TURN_SIGNAL_LISTENERS, controller.signal);
  return controller;
}
