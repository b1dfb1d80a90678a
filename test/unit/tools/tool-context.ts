import { createFilesystemBackend } from "../../../src/backends/local/filesystem-backend.js";
import { createLocalShellBackend } from "../../../src/backends/local/local-shell.js";
import type { ToolContext, ToolProgress } from "../../../src/tools/types.js";
import { createTurnScope } from "../../../src/agent/turn-scope.js";

/** A real tool context over a temp directory: local files and a local shell. */
export function toolContext(
  root: string,
  overrides: Partial<ToolContext> = {},
): ToolContext & { progressEvents: ToolProgress[] } {
  const progressEvents: ToolProgress[] = [];
  return {
    sessionId: "test-session",
    toolCallId: "call-1",
    cwd: root,
    roots: [root],
    backend: createFilesystemBackend({ rootDir: root }),
    executor: createLocalShellBackend({ rootDir: root }),
    signal: new AbortController().signal,
    limits: { shellTimeoutMs: 20_000, shellOutputChars: 30_000 },
    turn: createTurnScope("turn-1"),
    progress: (event) => progressEvents.push(event),
    progressEvents,
    ...overrides,
  };
}
