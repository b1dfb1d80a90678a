import type { Diagnostic } from "../util/diagnostics.js";
import { parseFrontmatter } from "./frontmatter.js";
import type { SkillMetadata } from "./types.js";

export const MAX_SKILL_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;
export const MAX_SKILL_COMPATIBILITY_LENGTH = 500;

/**
 * Spec name rules: 1-64 chars, Unicode lowercase letters and digits with single inner hyphens,
 * equal to the directory name. Returns the first violation, or undefined.
 */
export function skillNameProblem(name: string, directoryName: string): string | undefined {
  if (name.length > MAX_SKILL_NAME_LENGTH) return `name exceeds ${MAX_SKILL_NAME_LENGTH} characters`;
  if (!/^[\p{Ll}\p{Nd}]+(-[\p{Ll}\p{Nd}]+)*$/u.test(name)) {
    return "name must be lowercase letters and digits with single hyphens (no leading, trailing or double '-')";
  }
  if (name !== directoryName) return `name '${name}' does not match directory name '${directoryName}'`;
  return undefined;
}

/** The stricter ASCII rule used when we create skills ourselves. */
export function isStrictSkillName(name: string): boolean {
  return name.length <= MAX_SKILL_NAME_LENGTH && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
}

export type ParsedSkill = { metadata?: SkillMetadata; diagnostics: Diagnostic[] };

/**
 * Validates a SKILL.md per the Agent Skills spec. Missing name or description skips the skill;
 * name-rule violations only warn so skills written before the spec keep working.
 */
export function parseSkillFile(content: string, skillPath: string, directoryName: string): ParsedSkill {
  const diagnostics: Diagnostic[] = [];
  const warn = (message: string) => diagnostics.push({ severity: "warning", source: skillPath, message });
  const parsed = parseFrontmatter(content);
  if (!parsed.ok) {
    diagnostics.push({ severity: "error", source: skillPath, message: `skill skipped: ${parsed.error}` });
    return { diagnostics };
  }
  const data = parsed.data;
  const name = scalarText(data.name);
  const description = scalarText(data.description);
  if (!name || !description) {
    const missing = [!name && "name", !description && "description"].filter(Boolean).join(" and ");
    diagnostics.push({
      severity: "error",
      source: skillPath,
      message: `skill skipped: frontmatter is missing required ${missing}`,
    });
    return { diagnostics };
  }
  const nameProblem = skillNameProblem(name, directoryName);
  if (nameProblem) warn(`${nameProblem} (kept; rename it to follow the Agent Skills spec)`);

  const metadata: SkillMetadata = { name, description };
  if (description.length > MAX_SKILL_DESCRIPTION_LENGTH) {
    warn(`description exceeds ${MAX_SKILL_DESCRIPTION_LENGTH} characters; truncated`);
    metadata.description = description.slice(0, MAX_SKILL_DESCRIPTION_LENGTH);
  }
  const license = scalarText(data.license);
  if (license) metadata.license = license;
  const compatibility = scalarText(data.compatibility);
  if (compatibility) {
    if (compatibility.length > MAX_SKILL_COMPATIBILITY_LENGTH)
      warn(`compatibility exceeds ${MAX_SKILL_COMPATIBILITY_LENGTH} characters; truncated`);
    metadata.compatibility = compatibility.slice(0, MAX_SKILL_COMPATIBILITY_LENGTH);
  }
  const allowedTools = parseAllowedTools(data["allowed-tools"]);
  if (allowedTools.length > 0) metadata.allowedTools = allowedTools;
  const meta = coerceMetadata(data.metadata, warn);
  if (meta) metadata.metadata = meta;
  return { metadata, diagnostics };
}

function scalarText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return "";
  return String(value).trim();
}

/** A YAML list or a whitespace-separated string. */
function parseAllowedTools(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === "") return [];
  if (Array.isArray(raw)) return raw.map((tool) => String(tool).trim()).filter(Boolean);
  return String(raw).split(/\s+/).filter(Boolean);
}

function coerceMetadata(raw: unknown, warn: (message: string) => void): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    warn(`metadata must be a mapping (got ${Array.isArray(raw) ? "a list" : typeof raw}); ignored`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    out[key] = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
