import { parse } from "yaml";
import { errorMessage } from "../util/errors.js";

// The Agent Skills spec's delimiter rule: the closing `---` must be followed by a newline.
const SKILL_FRONTMATTER = /^---\s*\n([\s\S]*?)\n---\s*\n/;
// Subagent files may end right after the closing delimiter (no body).
const LENIENT_FRONTMATTER = /^---\s*\n([\s\S]*?)\n---\s*(?:\n|$)/;

export type FrontmatterResult =
  { ok: true; data: Record<string, unknown>; body: string } | { ok: false; error: string };

export type FrontmatterOptions = {
  /** Accept a file that ends at the closing `---` without a newline. Default false (skills spec). */
  lenient?: boolean;
};

/** Splits `---` YAML frontmatter from the markdown body. Never throws. */
export function parseFrontmatter(content: string, options: FrontmatterOptions = {}): FrontmatterResult {
  // Windows line endings would otherwise leave a stray \r on the last frontmatter value.
  const text = (content.startsWith("\uFEFF") ? content.slice(1) : content).replace(/\r\n?/g, "\n");
  const match = (options.lenient ? LENIENT_FRONTMATTER : SKILL_FRONTMATTER).exec(text);
  if (!match) return { ok: false, error: "no YAML frontmatter (the file must start with a '---' delimited block)" };
  let data: unknown;
  try {
    // "error": malformed YAML throws, but yaml's warnings stay off stderr (one per file per load).
    data = parse(match[1] ?? "", { logLevel: "error" });
  } catch (error) {
    return { ok: false, error: `invalid YAML frontmatter: ${errorMessage(error)}` };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, error: "frontmatter must be a YAML mapping" };
  }
  return { ok: true, data: data as Record<string, unknown>, body: text.slice(match[0].length) };
}
