import { readFile } from "node:fs/promises";
import { errorMessage } from "../util/errors.js";
import { isPlainObject } from "./manifest.js";

/** One handler as the user should see it before consenting. */
export type HookCommandSummary = { event: string; matcher?: string; command: string; file: string };

/** Parsed hooks documents of a plugin (file path -> document), for consent text and fingerprints. */
export async function readHookDocuments(
  files: readonly string[],
): Promise<{ documents: Record<string, unknown>; errors: string[] }> {
  const documents: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const file of files) {
    try {
      documents[file] = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      errors.push(`${file}: ${errorMessage(error)}`);
    }
  }
  return { documents, errors };
}

/** Every command a hooks.json document would run, read leniently: consent must show all of it. */
export function summarizeHooks(document: unknown, file: string): HookCommandSummary[] {
  const out: HookCommandSummary[] = [];
  const events = isPlainObject(document) && isPlainObject(document.hooks) ? document.hooks : {};
  for (const [event, groups] of Object.entries(events)) {
    for (const group of Array.isArray(groups) ? groups : []) {
      if (!isPlainObject(group)) continue;
      const matcher = typeof group.matcher === "string" && group.matcher !== "" ? group.matcher : undefined;
      for (const handler of Array.isArray(group.hooks) ? group.hooks : []) {
        if (!isPlainObject(handler)) continue;
        const command = Array.isArray(handler.argv)
          ? handler.argv.map((arg) => JSON.stringify(String(arg))).join(" ")
          : typeof handler.command === "string"
            ? handler.command
            : `(${String(handler.type ?? "unknown")} handler)`;
        out.push({ event, ...(matcher ? { matcher } : {}), command, file });
      }
    }
  }
  return out;
}
