/** Session modes (DESIGN.md §1); mirrored as ACP modes and the `mode` config option. */
export type SessionMode = "default" | "accept-edits" | "plan" | "bypass";

export const SESSION_MODES: ReadonlyArray<{ id: SessionMode; name: string; description: string }> = [
  {
    id: "default",
    name: "Default",
    description: "Ask before edits, deletes, shell commands, non-read-only MCP tools and anything outside the project",
  },
  {
    id: "accept-edits",
    name: "Accept Edits",
    description: "File edits inside the project run without asking; everything else as in Default",
  },
  { id: "plan", name: "Plan", description: "Read-only: explore and plan; no writes, deletes or shell commands" },
  { id: "bypass", name: "Bypass Permissions", description: "Nothing asks; deny rules and hooks still apply" },
];

export function isSessionMode(value: string): value is SessionMode {
  return SESSION_MODES.some((m) => m.id === value);
}

/** Hook payloads use Claude Code's permission_mode names. */
export function hookPermissionMode(mode: SessionMode): string {
  switch (mode) {
    case "accept-edits":
      return "acceptEdits";
    case "bypass":
      return "bypassPermissions";
    default:
      return mode;
  }
}
