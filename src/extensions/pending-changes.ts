import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import { relativeWithin } from "../util/path-within.js";
import type { ConfigChange, WatchTarget } from "../watch/index.js";

// What a /reload would pick up, in words an editor can show next to the command (Zed has no
// notices outside a turn, so its slash-command list is where "reload due" can appear at once).

const LABELS: Record<string, string> = {
  memory: "memory changed",
  hooks: "hooks changed",
  mcp: "MCP servers changed",
  subagents: "subagents changed",
  plugins: "plugins changed",
  config: "config.toml changed",
  skills: "skills changed",
};

export type PendingChangesOptions = {
  /** Watched folders whose direct children are skill folders. */
  skillRoots: readonly string[];
  /** Skill folders loaded now: a folder not among them that exists was added. */
  loadedSkillDirs: readonly string[];
  /** Default existsSync. */
  exists?: (path: string) => boolean;
};

/** Collects changes until the next /reload and describes them ("skill review added; memory changed"). */
export function createPendingChanges(options: PendingChangesOptions) {
  const exists = options.exists ?? existsSync;
  const loaded = new Set(options.loadedSkillDirs);
  const items = new Map<string, string>();

  function skillOf(path: string): { dir: string; name: string } | undefined {
    for (const root of options.skillRoots) {
      // Strictly below the root: the root itself ("") and paths outside it are no skill's.
      const rel = relativeWithin(root, path);
      if (!rel) continue;
      const name = rel.split(sep)[0]!;
      return { dir: join(root, name), name };
    }
    return undefined;
  }

  return {
    add(change: ConfigChange): void {
      for (const path of change.paths) {
        const skill = skillOf(path);
        if (skill) {
          const state = !exists(skill.dir)
            ? loaded.has(skill.dir)
              ? "removed"
              : undefined
            : loaded.has(skill.dir)
              ? "changed"
              : "added";
          if (state) items.set(`skill:${skill.dir}`, `skill ${skill.name} ${state}`);
          else items.delete(`skill:${skill.dir}`);
        }
      }
      const touchedSkill = change.paths.some((path) => skillOf(path) !== undefined);
      for (const label of change.labels) {
        // A skill folder's change is described by name above; "skills" alone is for the trust file.
        if (label === "skills" && touchedSkill) continue;
        items.set(label, LABELS[label] ?? `${label} changed`);
      }
    },
    /** "" when nothing is pending. */
    describe(): string {
      return [...items.values()].join("; ");
    },
  };
}

export type PendingChanges = ReturnType<typeof createPendingChanges>;

/** The watched skill folders of a session's targets. */
export function skillRootsOf(targets: readonly WatchTarget[]): string[] {
  return targets
    .filter((target) => target.label === "skills" && !target.path.endsWith(".json"))
    .map((target) => target.path);
}
