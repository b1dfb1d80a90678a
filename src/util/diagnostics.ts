/** A problem found while loading configuration. Loaders report these instead of throwing. */
export type Diagnostic = {
  severity: "error" | "warning" | "info";
  /** File (or other origin) the problem is in. */
  source: string;
  message: string;
};

export type Loaded<T> = { items: T; diagnostics: Diagnostic[] };

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.severity}: ${d.source}: ${d.message}`;
}
