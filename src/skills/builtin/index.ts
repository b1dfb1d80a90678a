import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-file.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import { errorMessage } from "../../util/errors.js";
import { resolveBuiltinContext, type BuiltinSkillContext } from "./context.js";
import { rememberSkillText } from "./remember.js";
import { skillCreatorSkillText } from "./skill-creator.js";

export type { BuiltinSkillContext } from "./context.js";

/** The skills shipped inside the bundle; their text is embedded because .md files are not shipped. */
export const BUILTIN_SKILL_NAMES = ["remember", "skill-creator"] as const;
export type BuiltinSkillName = (typeof BUILTIN_SKILL_NAMES)[number];

/** SKILL.md text of each built-in skill. */
export function builtinSkillTexts(context: BuiltinSkillContext = {}): Record<BuiltinSkillName, string> {
  const ctx = resolveBuiltinContext(context);
  return { remember: rememberSkillText(ctx), "skill-creator": skillCreatorSkillText(ctx) };
}

export type MaterializeResult = {
  /** The directory to use as the built-in skill source. */
  dir: string;
  /** SKILL.md files that were (re)written; empty when everything was current. */
  written: string[];
  diagnostics: Diagnostic[];
};

/**
 * Writes `<dir>/<name>/SKILL.md` for each built-in skill so the model can read it with read_file.
 * A file is rewritten only when its content differs, so repeated startups touch nothing.
 */
export async function materializeBuiltinSkills(
  dir: string,
  context: BuiltinSkillContext = {},
): Promise<MaterializeResult> {
  const written: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const [name, text] of Object.entries(builtinSkillTexts(context))) {
    const path = join(dir, name, "SKILL.md");
    try {
      const current = await readFile(path, "utf8").catch(() => undefined);
      if (current === text) continue;
      await writeFileAtomic(path, text, { mode: 0o644, dirMode: 0o700 });
      written.push(path);
    } catch (error) {
      diagnostics.push({
        severity: "error",
        source: path,
        message: `cannot write built-in skill: ${errorMessage(error)}`,
      });
    }
  }
  return { dir, written, diagnostics };
}
