import { rm } from "node:fs/promises";
import { basename, join } from "node:path";
import type { AgentEvent } from "../agent/events.js";
import type { Message } from "../model/types.js";
import { writeFileAtomic } from "../util/atomic-file.js";
import type { Logger } from "../util/logger.js";

/** The one Markdown plan of a session; a later `plan`-mode turn replaces it. */
export const PLAN_DOCUMENT_ID = "plan";

export type PlanDocumentOptions = {
  sessionId: string;
  /** Where to save it (~/.deepagents/plans); absent: not saved. */
  plansDir?: string;
  logger: Logger;
};

/**
 * The plan a `plan`-mode turn ended with: the model's last answer (plan mode's prompt asks it to end
 * with a concrete plan), as a Markdown plan document, saved to `<plansDir>/<session>.md` so the
 * editor can open it. Undefined when the turn ended without an answer of its own.
 */
export async function planDocument(
  history: readonly Message[],
  options: PlanDocumentOptions,
): Promise<Extract<AgentEvent, { type: "plan_document" }> | undefined> {
  const last = history.at(-1);
  if (last?.role !== "assistant") return undefined;
  const content = last.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("")
    .trim();
  if (!content) return undefined;
  let path: string | undefined;
  if (options.plansDir) {
    const file = join(options.plansDir, `${options.sessionId}.md`);
    try {
      // Private like the session log it comes from; the editor runs as the same user.
      await writeFileAtomic(file, `${content}\n`, { mode: 0o600, dirMode: 0o700 });
      path = file;
    } catch (error) {
      options.logger.warn(`session ${options.sessionId}: cannot save the plan to ${file}`, error);
    }
  }
  return { type: "plan_document", planId: PLAN_DOCUMENT_ID, content, ...(path ? { path } : {}) };
}

/**
 * session/delete and `sessions delete`: the session's saved plan goes with it. Only a plain session
 * id names a file here (the callers have the store check it first); a missing file is no error.
 */
export async function removePlanDocument(plansDir: string, sessionId: string): Promise<void> {
  if (sessionId === "" || basename(sessionId) !== sessionId || sessionId.startsWith(".")) return;
  await rm(join(plansDir, `${sessionId}.md`), { force: true });
}
