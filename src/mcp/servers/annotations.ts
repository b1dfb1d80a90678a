// MCP tool annotations are the server's own claims about itself; nothing verifies them. A tool
// counts as read-only only when the claim is coherent: readOnlyHint is exactly true,
// destructiveHint is not true, and every standard hint is a boolean or null (a string "false" or
// an object suggests a confused or hostile server, so it gets no benefit of the doubt).

const STANDARD_HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

export function isCoherentlyReadOnly(annotations: unknown): boolean {
  if (typeof annotations !== "object" || annotations === null) return false;
  const hints = annotations as Record<string, unknown>;
  for (const key of STANDARD_HINTS) {
    const value = hints[key];
    if (value !== undefined && value !== null && typeof value !== "boolean") return false;
  }
  return hints.readOnlyHint === true && hints.destructiveHint !== true;
}
