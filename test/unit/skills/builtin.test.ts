import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { materializeBuiltinSkills } from "../../../src/skills/builtin/index.js";
import { loadSkills } from "../../../src/skills/load.js";
import { makeTempDir } from "./temp-dir.js";

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir: root, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

describe("built-in skills", () => {
  it("materializes remember and skill-creator as valid skills", async () => {
    const dir = join(root, "builtin-skills");
    const result = await materializeBuiltinSkills(dir, { userMemoryFile: "/home/me/.deepagents/agent/AGENTS.md" });
    expect(result.written.sort()).toEqual([join(dir, "remember", "SKILL.md"), join(dir, "skill-creator", "SKILL.md")]);
    const loaded = await loadSkills({ sources: [{ dir, scope: "builtin", label: "Built-in" }] });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.items.map((skill) => skill.name).sort()).toEqual(["remember", "skill-creator"]);
    const remember = await readFile(join(dir, "remember", "SKILL.md"), "utf8");
    expect(remember).toContain("/home/me/.deepagents/agent/AGENTS.md");
    expect(remember).toMatch(/Never store secrets/);
    expect(remember).toContain("edit_file");
  });

  it("rewrites only files whose content differs", async () => {
    const dir = join(root, "builtin-skills");
    await materializeBuiltinSkills(dir);
    const path = join(dir, "remember", "SKILL.md");
    const before = (await stat(path)).mtimeMs;
    expect((await materializeBuiltinSkills(dir)).written).toEqual([]);
    expect((await stat(path)).mtimeMs).toBe(before);

    await writeFile(path, "tampered");
    expect((await materializeBuiltinSkills(dir)).written).toEqual([path]);
    expect(await readFile(path, "utf8")).toMatch(/^---\nname: remember\n/);
  });

  it("reports an unwritable directory as a diagnostic", async () => {
    await writeFile(join(root, "file"), "");
    const result = await materializeBuiltinSkills(join(root, "file"));
    expect(result.written).toEqual([]);
    expect(result.diagnostics).toHaveLength(2);
  });
});
