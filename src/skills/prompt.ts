import type { Skill, SkillSource } from "./types.js";

/** Skill files are longer than a default read; the prompt asks the model to read this many lines. */
export const SKILL_READ_LINE_LIMIT = 1000;

/**
 * The "## Skills System" section: sources and, per skill, name, description and the SKILL.md path.
 * Bodies are never inlined (progressive disclosure): the model reads a skill when it applies.
 */
export function skillsPromptSection(skills: readonly Skill[], sources: readonly SkillSource[]): string {
  const lines = [
    "## Skills System",
    "",
    "You have a library of skills: packaged instructions, workflows and reference material for specific kinds of task.",
    "",
    formatSources(sources),
    "",
    "**Available Skills:**",
    "",
    formatSkillList(skills, sources),
    "",
    "**How to use skills (progressive disclosure):**",
    "Only each skill's name and description are shown above. When a task matches a skill's description:",
    `1. Read its SKILL.md with \`read_file\` using the path shown, passing \`limit: ${SKILL_READ_LINE_LIMIT}\` (the default read is too short for most skill files).`,
    "2. Follow its instructions; they take precedence over your general habits for that task.",
    "3. Open any scripts, references or assets it mentions with absolute paths inside the skill's directory.",
    "Check the list before starting specialised work. Do not read every skill up front; read the ones that apply.",
  ];
  return lines.join("\n");
}

function formatSources(sources: readonly SkillSource[]): string {
  if (sources.length === 0) return "**Skill sources:** none configured";
  const lines = ["**Skill sources** (lowest to highest priority; a higher source's skill replaces a same-named one):"];
  sources.forEach((source, index) => {
    const suffix = index === sources.length - 1 ? " (highest priority)" : "";
    lines.push(`- **${source.label}**: \`${source.dir}\`${suffix}`);
  });
  return lines.join("\n");
}

function formatSkillList(skills: readonly Skill[], sources: readonly SkillSource[]): string {
  if (skills.length === 0) {
    const writable = sources
      .filter((source) => source.scope === "user" || source.scope === "project")
      .map((source) => `\`${source.dir}\``);
    return writable.length > 0
      ? `(No skills available yet. Skills can be created in ${writable.join(" or ")}.)`
      : "(No skills available.)";
  }
  const lines: string[] = [];
  for (const skill of skills) {
    const notes = [
      skill.license && `License: ${skill.license}`,
      skill.compatibility && `Compatibility: ${skill.compatibility}`,
    ].filter(Boolean);
    lines.push(`- **${skill.name}**: ${skill.description}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`);
    if (skill.allowedTools && skill.allowedTools.length > 0)
      lines.push(`  → Allowed tools: ${skill.allowedTools.join(", ")}`);
    lines.push(`  → Read \`${skill.path}\` for full instructions`);
  }
  return lines.join("\n");
}

/** The user message for `/skill:<name> [args]`: the whole SKILL.md plus the request. */
export function skillInvocationPrompt(skill: Pick<Skill, "name">, content: string, args = ""): string {
  let prompt =
    `I'm invoking the skill \`${skill.name}\`. Below are the full instructions from the skill's SKILL.md file. ` +
    `Follow these instructions to complete the task.\n\n---\n${content}\n---`;
  if (args.trim()) prompt += `\n\n**User request:** ${args.trim()}`;
  return prompt;
}
