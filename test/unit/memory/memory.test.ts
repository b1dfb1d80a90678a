import { link, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadMemory } from "../../../src/memory/load.js";
import { memoryPromptSection } from "../../../src/memory/prompt.js";
import { makeTempDir, writeTree } from "../skills/temp-dir.js";
import { projectFileRefusal } from "../../../src/gate/seams/project-file.js";

let root: string;
let cleanup: () => Promise<void>;
let userFile: string;
let project: string;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
  userFile = join(root, "home", ".deepagents", "agent", "AGENTS.md");
  project = join(root, "repo");
});
afterEach(() => cleanup());

describe("loadMemory", () => {
  it("concatenates user, project .deepagents and project root memory in that order", async () => {
    await writeTree(root, {
      "home/.deepagents/agent/AGENTS.md": "user prefs",
      "repo/.deepagents/AGENTS.md": "project deepagents",
      "repo/AGENTS.md": "project root",
    });
    const result = await loadMemory({ refuseProjectFile: projectFileRefusal, userFile, projectRoot: project });
    expect(result.items).toEqual([
      { path: userFile, scope: "user", content: "user prefs" },
      { path: join(project, ".deepagents", "AGENTS.md"), scope: "project", content: "project deepagents" },
      { path: join(project, "AGENTS.md"), scope: "project", content: "project root" },
    ]);
    expect(result.diagnostics).toEqual([]);
    expect(result.locations).toEqual({
      userFile,
      projectFiles: [join(project, ".deepagents", "AGENTS.md"), join(project, "AGENTS.md")],
    });
  });

  it("skips missing files silently", async () => {
    await writeTree(root, { "repo/AGENTS.md": "only root" });
    const result = await loadMemory({ refuseProjectFile: projectFileRefusal, userFile, projectRoot: project });
    expect(result.items.map((item) => item.content)).toEqual(["only root"]);
    expect(result.diagnostics).toEqual([]);
    expect(await loadMemory({ refuseProjectFile: projectFileRefusal, userFile })).toMatchObject({
      items: [],
      diagnostics: [],
    });
  });

  it("follows a project symlink inside the project but refuses one leading out", async () => {
    await writeTree(root, { "repo/docs/agents.md": "linked inside", "home/secret.txt": "do not load" });
    await writeTree(root, { "repo/.deepagents/keep": "" });
    await symlink(join(project, "docs", "agents.md"), join(project, ".deepagents", "AGENTS.md"));
    await symlink(join(root, "home", "secret.txt"), join(project, "AGENTS.md"));
    const result = await loadMemory({ refuseProjectFile: projectFileRefusal, userFile, projectRoot: project });
    expect(result.items.map((item) => item.content)).toEqual(["linked inside"]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: "warning",
        source: join(project, "AGENTS.md"),
        message: expect.stringMatching(/outside the project/),
      }),
    ]);
  });

  it("refuses a project AGENTS.md that is a hard link (the same file may live outside)", async () => {
    await writeTree(root, { "home/secret.txt": "do not load", "repo/.deepagents/keep": "" });
    await link(join(root, "home", "secret.txt"), join(project, "AGENTS.md"));
    const result = await loadMemory({ refuseProjectFile: projectFileRefusal, userFile, projectRoot: project });
    expect(result.items).toEqual([]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ source: join(project, "AGENTS.md"), message: expect.stringMatching(/2 hard links/) }),
    ]);
  });

  it("loads a file reachable twice only once", async () => {
    await writeTree(root, { "repo/AGENTS.md": "shared" });
    await writeTree(root, { "repo/.deepagents/keep": "" });
    await symlink(join(project, "AGENTS.md"), join(project, ".deepagents", "AGENTS.md"));
    const result = await loadMemory({ refuseProjectFile: projectFileRefusal, userFile, projectRoot: project });
    expect(result.items).toHaveLength(1);
    expect(result.diagnostics[0]?.severity).toBe("info");
  });
});

describe("memoryPromptSection", () => {
  it("wraps each path and content, then the guidelines", async () => {
    const text = memoryPromptSection(
      [
        { path: "/u/AGENTS.md", scope: "user", content: "Use tabs.\n" },
        { path: "/r/AGENTS.md", scope: "project", content: "npm test" },
      ],
      { userFile: "/u/AGENTS.md", projectFiles: ["/r/.deepagents/AGENTS.md", "/r/AGENTS.md"] },
    );
    expect(
      text.startsWith(
        "<agent_memory>\n/u/AGENTS.md\nUse tabs.\n\n/r/AGENTS.md\nnpm test\n</agent_memory>\n\n<memory_guidelines>",
      ),
    ).toBe(true);
    expect(text).toContain("User memory (applies to every project): `/u/AGENTS.md`");
    // The project file that exists is the one to edit.
    expect(text).toContain("Project memory (this repository; often committed and shared): `/r/AGENTS.md`");
    expect(text).toMatch(/Never store credentials or secrets/);
    expect(text).toContain("/memories/");
    expect(text.trimEnd().endsWith("</memory_guidelines>")).toBe(true);
  });

  it("says when no memory is loaded", () => {
    expect(memoryPromptSection([])).toMatch(/^<agent_memory>\n\(No memory loaded\)\n<\/agent_memory>/);
  });
});
