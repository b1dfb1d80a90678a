import type { Diagnostic } from "../util/diagnostics.js";

/** Where a skill comes from; also its rank (builtin lowest, project highest). */
export type SkillScope = "builtin" | "plugin" | "user" | "project";

/**
 * One place skills are discovered. A `dir` holding `SKILL.md` is itself a skill; otherwise every
 * subdirectory holding `SKILL.md` is one (plugin sources are walked recursively and namespaced).
 */
export type SkillSource = {
  dir: string;
  scope: SkillScope;
  /** Shown in listings and the system prompt, e.g. "User", "Project", "Plugin: review@acme". */
  label: string;
  /** `plugin@marketplace` for plugin sources: skill names become `plugin@marketplace:<sub>:<name>`. */
  pluginId?: string;
  /**
   * The folder this source's real path must stay inside: the project root for project sources, the
   * plugin's folder for plugin sources, the home directory for the user's. A source whose real path
   * leaves it (`<project>/.agents/skills -> /`) is a link out of its owner and is asked about like
   * a linked skill. Default: none (built-ins).
   */
  owner?: string;
};

/** Frontmatter fields of a SKILL.md that passed validation. */
export type SkillMetadata = {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  /** Display only: the skill's own statement of the tools it expects to use. */
  allowedTools?: string[];
  metadata?: Record<string, string>;
};

export type Skill = SkillMetadata & {
  /** Absolute SKILL.md path as discovered (symlinks not resolved): what the model is told to read. */
  path: string;
  /** Absolute skill directory as discovered. */
  dir: string;
  scope: SkillScope;
  /** The source's label. */
  source: string;
  /** The source's `dir`. */
  sourceDir: string;
  pluginId?: string;
  /** SKILL.md paths of lower-priority skills with the same name that this one replaces. */
  overrides?: string[];
};

/** A skill (or a whole skills folder) refused because it resolves outside its owner; the user may approve `target`. */
export type PendingSymlink = {
  /** The skill's name, or `skills folder <dir>` for a whole source. */
  skillName: string;
  /** "folder" when a whole skills folder leads out of its owner. Default "skill". */
  kind?: "skill" | "folder";
  /** The discovered path that leads outside (skill dir or SKILL.md). */
  linkPath: string;
  /** Canonical (realpath) directory to approve. */
  target: string;
};

export type SkillsLoad = {
  /** Lowest-priority source first; a higher source's same-named skill replaced the lower one whole. */
  items: Skill[];
  diagnostics: Diagnostic[];
  pendingSymlinks: PendingSymlink[];
  /**
   * Canonical directories of the loaded skills (each skill's folder, and the folder of its SKILL.md
   * when that is elsewhere): what the model may read without asking. Never a whole source such as
   * `/` or `$HOME`.
   */
  roots: string[];
};
