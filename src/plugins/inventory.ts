import { realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../util/diagnostics.js";
import { resolveComponentPath } from "./component-path.js";
import type { PluginManifest } from "./manifest.js";
import { isWithin } from "../util/path-within.js";

/** What a plugin contributes, all paths real and inside the plugin root. */
export type PluginInventory = {
  /** Skill source directories (a plugin-root SKILL.md makes the root itself one). */
  skillDirs: string[];
  mcpFiles: string[];
  hookFiles: string[];
  /** Component folders present but not supported (agents/, commands/). */
  unsupported: string[];
  diagnostics: Diagnostic[];
};

/**
 * Default discovery plus manifest declarations: `skills/` (root `SKILL.md` only when there is no
 * skills dir and the manifest declares none), `.mcp.json`, `hooks/hooks.json`; a declared hooks
 * path that is a directory means its `hooks.json`.
 */
export async function buildInventory(root: string, manifest: PluginManifest): Promise<PluginInventory> {
  const diagnostics: Diagnostic[] = [];
  const existing = async (declaration: string, field: string, want: "dir" | "file"): Promise<string | undefined> => {
    const resolved = await resolveComponentPath(declaration, root, field);
    if (!resolved.ok) {
      if ((await kind(join(root, declaration))) !== "missing")
        diagnostics.push({ severity: "warning", source: root, message: resolved.error });
      return undefined;
    }
    return (await kind(resolved.path)) === want ? resolved.path : undefined;
  };

  const defaultSkills = await existing("./skills", "skills/", "dir");
  const rootSkill =
    !defaultSkills && manifest.skills.length === 0 ? await existing("./SKILL.md", "SKILL.md", "file") : undefined;
  const skillDirs = unique([
    ...(defaultSkills ? [defaultSkills] : []),
    ...manifest.skills,
    ...(rootSkill ? [join(rootSkill, "..")] : []),
  ]);
  for (const dir of manifest.skills) {
    if ((await kind(dir)) === "missing")
      diagnostics.push({
        severity: "warning",
        source: manifest.manifestPath ?? root,
        message: `skills path ${dir} does not exist`,
      });
  }

  const defaultMcp = await existing("./.mcp.json", ".mcp.json", "file");
  const mcpFiles = unique([...(defaultMcp ? [defaultMcp] : []), ...manifest.mcpFiles]);

  const hookFiles: string[] = [];
  const defaultHooks = await existing("./hooks/hooks.json", "hooks/hooks.json", "file");
  if (defaultHooks) hookFiles.push(defaultHooks);
  for (const path of manifest.hookPaths) {
    const file = (await kind(path)) === "dir" ? join(path, "hooks.json") : path;
    const source = manifest.manifestPath ?? root;
    const real = await realpath(file).catch(() => undefined);
    if (real === undefined || (await kind(real)) !== "file")
      diagnostics.push({ severity: "warning", source, message: `hooks: ${file} does not exist; ignored` });
    else if (!(await isInsideRoot(real, root)))
      diagnostics.push({
        severity: "warning",
        source,
        message: `hooks: ${file} resolves to ${real}, outside the plugin root; ignored`,
      });
    else hookFiles.push(real);
  }

  const unsupported: string[] = [];
  for (const name of ["agents", "commands"]) {
    if ((await kind(join(root, name))) === "dir") {
      unsupported.push(name);
      diagnostics.push({
        severity: "info",
        source: join(root, name),
        message: `plugin ${name}/ are not supported by deep-acp; ignored`,
      });
    }
  }
  return { skillDirs, mcpFiles, hookFiles: unique(hookFiles), unsupported, diagnostics };
}

async function kind(path: string): Promise<"missing" | "dir" | "file"> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

async function isInsideRoot(real: string, root: string): Promise<boolean> {
  const realRoot = await realpath(root).catch(() => undefined);
  return realRoot !== undefined && isWithin(real, realRoot);
}
