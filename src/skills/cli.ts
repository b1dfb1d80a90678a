import { lstat, mkdir, rm, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatDiagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { parseFrontmatter } from "./frontmatter.js";
import type { ProjectFileCheck } from "../util/project-file-check.js";
import { loadSkills, readSkillContent } from "./load.js";
import type { Skill, SkillSource, SkillsLoad } from "./types.js";
import { isStrictSkillName, MAX_SKILL_NAME_LENGTH } from "./validate.js";

/** What a `deep-acp skills ...` subcommand prints (stdout) and its exit code. */
export type CliResult = { text: string; exitCode: number };

export type SkillsCliOptions = {
  /** Full discovery order, as for loadSkills. */
  sources: readonly SkillSource[];
  /** `create` target by default: ~/.deepagents/<agent>/skills. */
  userSkillsDir: string;
  /** `create --project` target: <root>/.deepagents/skills. Without it, --project fails. */
  projectSkillsDir?: string;
  /** Default none. */
  extraAllowedDirs?: readonly string[];
  /** Default none. */
  approvedTargets?: Iterable<string>;
  /** Default os.homedir() (for `~` in extraAllowedDirs). */
  home?: string;
  /** The gate's check on project skill files (see LoadSkillsOptions). */
  refuseProjectFile?: ProjectFileCheck;
};

export type SkillsCli = {
  list(): Promise<CliResult>;
  info(name: string): Promise<CliResult>;
  create(name: string, options?: { project?: boolean }): Promise<CliResult>;
  /** Deletes without asking; the CLI layer asks for confirmation first. */
  delete(name: string): Promise<CliResult>;
};

export function createSkillsCli(options: SkillsCliOptions): SkillsCli {
  const load = () => loadSkills(options);

  return {
    async list() {
      const loaded = await load();
      const lines: string[] = [];
      if (loaded.items.length === 0) {
        lines.push(
          "No skills found.",
          `Create one with: deep-acp skills create <name> (writes ${options.userSkillsDir}/<name>/SKILL.md)`,
        );
      }
      for (const source of options.sources) {
        const skills = loaded.items.filter((skill) => skill.sourceDir === source.dir && skill.source === source.label);
        if (skills.length === 0) continue;
        lines.push(`${source.label} skills (${source.dir}):`);
        for (const skill of skills) {
          const overrides = skill.overrides?.length
            ? ` [overrides ${skill.overrides.length} lower-priority skill${skill.overrides.length > 1 ? "s" : ""}]`
            : "";
          lines.push(`  ${skill.name}${overrides}`, `    ${skill.description}`, `    ${skill.path}`);
        }
      }
      lines.push(...problemLines(loaded));
      return { text: lines.join("\n"), exitCode: 0 };
    },

    async info(name) {
      const loaded = await load();
      const skill = loaded.items.find((candidate) => candidate.name === name);
      if (!skill) return notFound(name, loaded);
      const lines = [
        `Name: ${skill.name}`,
        `Description: ${skill.description}`,
        `Source: ${skill.source} (${skill.scope})`,
        `Path: ${skill.path}`,
      ];
      if (skill.license) lines.push(`License: ${skill.license}`);
      if (skill.compatibility) lines.push(`Compatibility: ${skill.compatibility}`);
      if (skill.allowedTools) lines.push(`Allowed tools: ${skill.allowedTools.join(", ")}`);
      for (const [key, value] of Object.entries(skill.metadata ?? {})) lines.push(`Metadata ${key}: ${value}`);
      for (const path of skill.overrides ?? []) lines.push(`Overrides: ${path}`);
      const content = await readSkillContent(skill, loaded.roots, options.refuseProjectFile);
      if (!content.ok) return { text: [...lines, "", content.error].join("\n"), exitCode: 1 };
      const parsed = parseFrontmatter(content.content);
      lines.push("", (parsed.ok ? parsed.body : content.content).trim());
      return { text: lines.join("\n"), exitCode: 0 };
    },

    async create(name, createOptions = {}) {
      if (!isStrictSkillName(name)) {
        return {
          text: `Invalid skill name '${name}': use 1-${MAX_SKILL_NAME_LENGTH} lowercase letters, digits and single hyphens (e.g. 'code-review').`,
          exitCode: 1,
        };
      }
      const base = createOptions.project ? options.projectSkillsDir : options.userSkillsDir;
      if (!base) return { text: "No project found for --project (run it inside a project directory).", exitCode: 1 };
      const dir = join(base, name);
      const path = join(dir, "SKILL.md");
      try {
        await mkdir(base, { recursive: true });
        await mkdir(dir);
        await writeFile(path, skillTemplate(name), { flag: "wx" });
      } catch (error) {
        const exists = (error as NodeJS.ErrnoException).code === "EEXIST";
        return {
          text: exists ? `Skill directory already exists: ${dir}` : `Cannot create ${path}: ${errorMessage(error)}`,
          exitCode: 1,
        };
      }
      const shadow = (await load()).items.find((skill) => skill.name === name && skill.path !== path);
      const note = shadow ? `\nNote: a higher-priority skill with this name exists at ${shadow.path}; it wins.` : "";
      return {
        text: `Created ${path}\nEdit its description and instructions, then run /reload in the editor.${note}`,
        exitCode: 0,
      };
    },

    async delete(name) {
      const loaded = await load();
      const skill = loaded.items.find((candidate) => candidate.name === name);
      if (!skill) return notFound(name, loaded);
      if (skill.scope === "builtin")
        return { text: `'${name}' is a built-in skill and cannot be deleted.`, exitCode: 1 };
      if (skill.scope === "plugin") {
        return {
          text: `'${name}' comes from plugin ${skill.pluginId}; disable the plugin with: deep-acp plugins disable ${skill.pluginId}`,
          exitCode: 1,
        };
      }
      if (options.sources.some((source) => source.dir === skill.dir)) {
        return {
          text: `${skill.dir} is a configured skills directory itself; remove its SKILL.md by hand if that is intended.`,
          exitCode: 1,
        };
      }
      try {
        // A symlinked skill is removed by its link only: the shared target may belong to someone else.
        if ((await lstat(skill.dir)).isSymbolicLink()) await unlink(skill.dir);
        else await rm(skill.dir, { recursive: true, force: true });
      } catch (error) {
        return { text: `Cannot delete ${skill.dir}: ${errorMessage(error)}`, exitCode: 1 };
      }
      const next = (await load()).items.find((candidate) => candidate.name === name);
      const note = next ? `\nThe lower-priority skill at ${next.path} is now active.` : "";
      return { text: `Deleted skill '${name}' (${skill.dir}).${note}`, exitCode: 0 };
    },
  };
}

function notFound(name: string, loaded: SkillsLoad): CliResult {
  const pending = loaded.pendingSymlinks.find((entry) => entry.skillName === name);
  if (pending) {
    return {
      text: `Skill '${name}' was refused: ${pending.linkPath} resolves to ${pending.target}, outside the skill directories.`,
      exitCode: 1,
    };
  }
  const names = loaded.items.map((skill: Skill) => skill.name).sort();
  return {
    text: `Skill '${name}' not found.${names.length > 0 ? ` Available: ${names.join(", ")}` : ""}`,
    exitCode: 1,
  };
}

function problemLines(loaded: SkillsLoad): string[] {
  const lines: string[] = [];
  if (loaded.diagnostics.length > 0) {
    lines.push("", "Problems:");
    for (const diagnostic of loaded.diagnostics) lines.push(`  ${formatDiagnostic(diagnostic)}`);
  }
  if (loaded.pendingSymlinks.length > 0) {
    lines.push("", "Refused symlinks (approve in the editor, or add the target to [skills].extra_allowed_dirs):");
    for (const entry of loaded.pendingSymlinks)
      lines.push(`  ${entry.skillName}: ${entry.linkPath} -> ${entry.target}`);
  }
  return lines;
}

function skillTemplate(name: string): string {
  const title = name
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
  return `---
name: ${name}
description: Describe what this skill does and when to use it, in the words a user would say (for example "Use when the user asks to ...").
---

# ${title}

## When to use

State the requests or situations this skill is for.

## Steps

1. First step, in the imperative ("Run ...", "Read ...").
2. Next step.

## Pitfalls

- Mistakes to avoid and why.
`;
}
