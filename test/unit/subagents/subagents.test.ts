import { link, symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GENERAL_PURPOSE_SUBAGENT } from "../../../src/subagents/general-purpose.js";
import { loadSubagents } from "../../../src/subagents/load.js";
import {
  subagentTypeDescription,
  taskToolDescription,
  unknownSubagentMessage,
} from "../../../src/subagents/task-description.js";
import { makeTempDir, writeTree } from "../skills/temp-dir.js";
import { projectFileRefusal } from "../../../src/gate/seams/project-file.js";

const fixtures = fileURLToPath(new URL("../../fixtures/subagents/", import.meta.url));
const userDir = join(fixtures, "user");
const projectDir = join(fixtures, "project");

describe("loadSubagents on the fixture tree", () => {
  it("starts with general-purpose and lets project definitions override user ones by name", async () => {
    const result = await loadSubagents({
      refuseProjectFile: projectFileRefusal,
      userDir,
      projectDir,
      projectRoot: fixtures,
    });
    expect(result.items[0]).toBe(GENERAL_PURPOSE_SUBAGENT);
    const reviewer = result.items.find((agent) => agent.name === "reviewer");
    expect(reviewer).toEqual({
      name: "reviewer",
      description: "Project reviewer that knows this repository's rules.",
      systemPrompt: "Project reviewer prompt.",
      model: "anthropic:claude-haiku-4-5",
      source: "project",
      path: join(projectDir, "reviewer", "AGENTS.md"),
    });
    expect(result.items.filter((agent) => agent.name === "reviewer")).toHaveLength(1);
  });

  it("defaults the name to the folder and warns on collisions (last folder wins)", async () => {
    const result = await loadSubagents({ refuseProjectFile: projectFileRefusal, userDir });
    const researcher = result.items.find((agent) => agent.name === "researcher");
    // Folders load in name order: "renamed" (declaring name: researcher) first, then "researcher".
    expect(researcher).toMatchObject({
      systemPrompt: "You are a careful researcher.",
      source: "user",
      path: join(userDir, "researcher", "AGENTS.md"),
    });
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: "warning",
        message: expect.stringMatching(/also used by .*renamed\/AGENTS\.md/),
      }),
    );
  });

  it("turns invalid files into diagnostics", async () => {
    const result = await loadSubagents({ refuseProjectFile: projectFileRefusal, userDir });
    const names = result.items.map((agent) => agent.name);
    expect(names.sort()).toEqual(["general-purpose", "odd-model", "researcher", "reviewer"]);
    const messageFor = (folder: string) =>
      result.diagnostics
        .filter((d) => d.source.includes(`/${folder}`))
        .map((d) => d.message)
        .join("\n");
    expect(messageFor("empty-name")).toMatch(/name \(non-empty string required when present\)/);
    expect(messageFor("no-description")).toMatch(/description \(non-empty string required\)/);
    expect(messageFor("bad-model")).toMatch(/model/);
    expect(messageFor("no-frontmatter")).toMatch(/no YAML frontmatter/);
    expect(messageFor("wrong-file")).toMatch(/expected AGENTS\.md but found agent\.md/);
    expect(messageFor("stray.md")).toMatch(/not as files directly/);
    expect(messageFor("odd-model")).toMatch(/not in 'provider:model' form/);
  });

  it("reports unsupported frontmatter keys", async () => {
    const result = await loadSubagents({ refuseProjectFile: projectFileRefusal, projectDir, projectRoot: fixtures });
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ severity: "info", message: expect.stringMatching(/'tools' is not supported/) }),
    );
  });

  it("returns only general-purpose when no directories exist", async () => {
    expect(await loadSubagents({ refuseProjectFile: projectFileRefusal, userDir: join(fixtures, "nope") })).toEqual({
      items: [GENERAL_PURPOSE_SUBAGENT],
      diagnostics: [],
    });
  });
});

describe("file-defined subagents in temp dirs", () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir: root, cleanup } = await makeTempDir()));
  afterEach(() => cleanup());

  it("may replace general-purpose, e.g. with a cheaper model", async () => {
    await writeTree(root, {
      "agents/general-purpose/AGENTS.md": "---\ndescription: Cheap helper.\nmodel: openai:gpt-4.1-mini\n---\nHelp.",
    });
    const result = await loadSubagents({ refuseProjectFile: projectFileRefusal, userDir: join(root, "agents") });
    expect(result.items).toEqual([
      expect.objectContaining({ name: "general-purpose", model: "openai:gpt-4.1-mini", source: "user" }),
    ]);
  });

  it.each([
    { kind: "a symbolic link outside the project", makeLink: symlink, reason: /outside the project/ },
    { kind: "a hard link", makeLink: link, reason: /2 hard links/ },
  ])("refuses a project definition that is $kind", async ({ makeLink, reason }) => {
    await writeTree(root, {
      "outside/AGENTS.md": "---\ndescription: outside\n---\n",
      "repo/.deepagents/agents/evil/.keep": "",
    });
    await makeLink(
      join(root, "outside", "AGENTS.md"),
      join(root, "repo", ".deepagents", "agents", "evil", "AGENTS.md"),
    );
    const result = await loadSubagents({
      refuseProjectFile: projectFileRefusal,
      projectDir: join(root, "repo", ".deepagents", "agents"),
    });
    expect(result.items.map((agent) => agent.name)).toEqual(["general-purpose"]);
    expect(result.diagnostics[0]?.message).toMatch(reason);
  });
});

describe("task tool text", () => {
  const agents = [
    GENERAL_PURPOSE_SUBAGENT,
    { name: "reviewer", description: "Reviews diffs.", systemPrompt: "", source: "user" as const },
  ];

  it("lists each subagent and the usage notes", () => {
    const text = taskToolDescription(agents);
    expect(text).toContain(`- general-purpose: ${GENERAL_PURPOSE_SUBAGENT.description}`);
    expect(text).toContain("- reviewer: Reviews diffs.");
    expect(text).toMatch(/in parallel: make multiple task calls in a single message/);
    expect(text).toMatch(/stateless/);
    expect(text).toMatch(/not shown to the user/);
  });

  it("describes subagent_type and the unknown-type error", () => {
    expect(subagentTypeDescription(agents)).toBe("Name of the subagent to use. Available: general-purpose, reviewer");
    expect(unknownSubagentMessage("x", agents)).toBe(
      "invoked agent of type x, the only allowed types are `general-purpose`, `reviewer`",
    );
  });
});
