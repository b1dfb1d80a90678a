import type { ToolEffect } from "../../tools/types.js";
import type { SessionMode } from "./modes.js";

// What a mode offers, decided here with the rest of "may this run?": the tools the model is given
// for a turn, and the tools code in `eval` may call. A tool left out is never seen, so it needs no
// dialog; what is offered still goes through the gate call by call.

/** Plan mode: tools that cannot change anything. Fetching changes nothing locally, so it stays. */
const PLAN_OFFERS: ReadonlySet<ToolEffect> = new Set(["read", "network", "none"]);
/** Calls that only read. Code in plan mode may make only these, so `eval` itself stays `none`. */
const READS_ONLY: ReadonlySet<ToolEffect> = new Set(["read", "none"]);

/** The tools the model is offered in `mode` (plan mode: only those that cannot change anything). */
export function offeredInMode<T extends { effect: ToolEffect }>(tools: readonly T[], mode: SessionMode): T[] {
  return mode === "plan" ? tools.filter((t) => PLAN_OFFERS.has(t.effect)) : [...tools];
}

/** Whether code may call this tool in `mode` (plan mode: only tools that read). */
export function callableFromCode(tool: { effect: ToolEffect }, mode: SessionMode): boolean {
  return mode !== "plan" || readsOnly(tool);
}

/** Whether a call of this tool only reads: code calling only such tools runs without a dialog. */
export function readsOnly(tool: { effect: ToolEffect }): boolean {
  return READS_ONLY.has(tool.effect);
}
