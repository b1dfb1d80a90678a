/** Message of anything thrown, on one line. */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
  return (text ?? String(error)).replace(/\s*\n\s*/g, " ").trim() || "unknown error";
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** A missing file or directory (ENOENT). */
export function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
}
