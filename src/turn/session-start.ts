import type { HookEngine } from "../hooks/index.js";

export type SessionStartSource = "startup" | "resume" | "clear";

/**
 * SessionStart hooks run once, before the first turn of a live session ("startup", or "resume" when
 * loaded) and again after /clear; their context joins the first prompt that reaches the model, even
 * when a hook blocked an earlier one.
 */
export function createSessionStart(source: SessionStartSource) {
  let pending: SessionStartSource | undefined = source;
  let context: string[] = [];
  return {
    /** Runs the hooks if they are due; the context not yet sent to the model. */
    async context(hooks: HookEngine, modelId: string, signal: AbortSignal): Promise<string[]> {
      const due = pending;
      pending = undefined;
      if (due && hooks.hasHandlers("SessionStart", due)) {
        const result = await hooks.run("SessionStart", { source: due, model: modelId }, { signal });
        context = [...context, ...result.additionalContext];
      }
      return context;
    },
    /** The model has the context now. */
    delivered(): void {
      context = [];
    },
    /** The hooks run again before the next turn (after /clear). */
    restart(next: SessionStartSource): void {
      pending = next;
    },
  };
}

export type SessionStart = ReturnType<typeof createSessionStart>;

/** A short title from the first prompt; no model call needed. */
export function titleFrom(text: string): string {
  const firstLine =
    text
      .trim()
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "New session";
  return firstLine.length > 60 ? `${firstLine.slice(0, 57).trimEnd()}...` : firstLine;
}
