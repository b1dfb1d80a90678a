import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted and no whitespace, the same bytes Python's
 * `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` produces for
 * ordinary definitions (strings, integers, booleans, null, lists, objects), so approvals written
 * by dcode and by us agree. Keys sort by UTF-16 code units, which differs from Python only for
 * characters outside the Basic Multilingual Plane.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

/** `"sha256:" + hex sha256(canonical JSON)` of one server's raw definition. */
export function fingerprintServer(raw: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(raw), "utf8").digest("hex")}`;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
