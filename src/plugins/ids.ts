import { createHash } from "node:crypto";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/** `plugin@marketplace`, split on the last `@`; undefined when either part is empty. */
export function splitPluginId(id: string): { name: string; marketplace: string } | undefined {
  const at = id.lastIndexOf("@");
  if (at <= 0 || at === id.length - 1) return undefined;
  return { name: id.slice(0, at), marketplace: id.slice(at + 1) };
}

/** Plugin and marketplace names: non-empty, no whitespace; marketplace names also no `@`. */
export function isValidPluginName(name: unknown, allowAt = true): name is string {
  return typeof name === "string" && /^\S+$/.test(name) && (allowAt || !name.includes("@"));
}

/** A directory name for an arbitrary id: readable slug plus a hash so distinct ids never collide. */
export function pluginDataKey(id: string): string {
  const slug =
    id
      .replace(/[^A-Za-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "plugin";
  return `${slug}-${sha256(id).slice(0, 16)}`;
}

/** One cache path segment: kept as-is when already safe, otherwise slugged with a hash. */
export function cacheSegment(value: string): string {
  if (/^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/.test(value)) return value;
  return pluginDataKey(value);
}

const NAME_PART_LIMIT = 48;

function safeMcpNamePart(value: string): string {
  const sanitized = value.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
  if (sanitized === value && sanitized.length > 0 && sanitized.length <= NAME_PART_LIMIT) return sanitized;
  return `${sanitized.slice(0, NAME_PART_LIMIT) || "unnamed"}_${sha256(value).slice(0, 8)}`;
}

/**
 * `plugin__<id>__<server>`: plugin MCP servers can never collide with user or project servers, and
 * the name stays within the `[A-Za-z0-9_-]+` rule MCP server names must follow.
 */
export function scopedMcpServerName(pluginId: string, serverName: string): string {
  return `plugin__${safeMcpNamePart(pluginId)}__${safeMcpNamePart(serverName)}`;
}
