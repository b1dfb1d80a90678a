import { readFile, realpath, stat } from "node:fs/promises";
import { projectPaths } from "../config/paths.js";
import type { ProjectFileCheck } from "../util/project-file-check.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";

const MAX_MEMORY_FILE_BYTES = 10 * 1024 * 1024;

export type MemoryScope = "user" | "project";

/** One AGENTS.md that was read. */
export type MemorySource = { path: string; scope: MemoryScope; content: string };

/** Where memory may be written, whether or not the files exist yet. */
export type MemoryLocations = {
  /** ~/.deepagents/<agent>/AGENTS.md */
  userFile: string;
  /** <root>/.deepagents/AGENTS.md, <root>/AGENTS.md (empty without a project). */
  projectFiles: string[];
};

export type MemoryLoad = { items: MemorySource[]; diagnostics: Diagnostic[]; locations: MemoryLocations };

export type LoadMemoryOptions = {
  /** The gate's verdict on each project file (gate/project-file.ts `projectFileRefusal`). */
  refuseProjectFile: ProjectFileCheck;
  /** userPaths(agent).agentMemoryFile. */
  userFile: string;
  /** The session's `<root>`; omit for no project memory. */
  projectRoot?: string;
};

/**
 * Reads user memory, then `<root>/.deepagents/AGENTS.md`, then `<root>/AGENTS.md`, in that order.
 * Missing files are skipped silently. A project file whose symlink leads outside the project is
 * refused: a repository must not be able to pull arbitrary files into the prompt.
 */
export async function loadMemory(options: LoadMemoryOptions): Promise<MemoryLoad> {
  const diagnostics: Diagnostic[] = [];
  const projectFiles = options.projectRoot !== undefined ? projectPaths(options.projectRoot).memoryFiles : [];
  const locations: MemoryLocations = { userFile: options.userFile, projectFiles };
  const items: MemorySource[] = [];
  const seen = new Set<string>();
  const projectRoot =
    options.projectRoot !== undefined ? await realpath(options.projectRoot).catch(() => undefined) : undefined;

  const candidates: { path: string; scope: MemoryScope }[] = [
    { path: options.userFile, scope: "user" },
    ...projectFiles.map((path) => ({ path, scope: "project" as const })),
  ];
  for (const { path, scope } of candidates) {
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        diagnostics.push({ severity: "warning", source: path, message: `cannot resolve: ${errorMessage(error)}` });
      }
      continue;
    }
    if (scope === "project" && projectRoot !== undefined) {
      const info = await stat(real).catch(() => undefined);
      const hardLinks = info?.isFile() ? info.nlink : 1;
      const refusal = options.refuseProjectFile({ real, projectRoot, hardLinks });
      if (refusal) {
        diagnostics.push({ severity: "warning", source: path, message: refusal });
        continue;
      }
    }
    if (seen.has(real)) {
      diagnostics.push({ severity: "info", source: path, message: "same file as another memory source; loaded once" });
      continue;
    }
    seen.add(real);
    try {
      const info = await stat(real);
      if (!info.isFile()) {
        diagnostics.push({ severity: "warning", source: path, message: "not a regular file; ignored" });
        continue;
      }
      if (info.size > MAX_MEMORY_FILE_BYTES) {
        diagnostics.push({
          severity: "error",
          source: path,
          message: `larger than 10 MiB (${info.size} bytes); not loaded`,
        });
        continue;
      }
      items.push({ path, scope, content: await readFile(real, "utf8") });
    } catch (error) {
      diagnostics.push({ severity: "error", source: path, message: `cannot read: ${errorMessage(error)}` });
    }
  }
  return { items, diagnostics, locations };
}
