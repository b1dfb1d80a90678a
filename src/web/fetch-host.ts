// Kept apart from the web_fetch tool: the gate needs only this, and importing the tool would load
// the schema library on the path to the first session (the gate is loaded by the session store's
// neighbours in the bundle).

/** The host a web_fetch call reaches, for "always allow" keys; undefined for an unparsable URL. */
export function fetchHost(input: unknown): string | undefined {
  const url = (input as { url?: unknown } | undefined)?.url;
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url).host.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}
