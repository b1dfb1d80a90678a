// `[agents.NAME]` as subagent types, and `agent:` in a subagent file: a project file may only pick
// one of the user's agents, never add one (a command to run).
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSubagents } from "../../../src/subagents/load.js";
import { projectFileRefusal } from "../../../src/gate/seams/project-file.js";
import { makeTempDir, writeTree } from "../skills/temp-dir.js";

describe("configured agents as subagents", () => {
  let dir: { dir: string; cleanup(): Promise<void> };
  beforeEach(async () => (dir = await makeTempDir()));
  afterEach(() => dir.cleanup());

  const load = () =>
    loadSubagents({
      refuseProjectFile: projectFileRefusal,
      userDir: join(dir.dir, "user"),
      projectDir: join(dir.dir, "project", ".deepagents", "agents"),
      projectRoot: join(dir.dir, "project"),
      agents: { gemini: { description: "Google's Gemini CLI" }, codex: {} },
    });

  it("lists each configured agent as a subagent type with its description", async () => {
    const { items } = await load();
    expect(items.find((s) => s.name === "gemini")).toMatchObject({
      description: "Google's Gemini CLI",
      agent: "gemini",
      source: "user",
    });
    expect(items.find((s) => s.name === "codex")?.description).toMatch(/codex agent/);
  });

  it("lets a project file run on a configured agent, and skips one naming an agent the user has not", async () => {
    await writeTree(dir.dir, {
      "project/.deepagents/agents/reviewer/AGENTS.md":
        "---\ndescription: reviews\nagent: gemini\n---\nReview carefully.",
      "project/.deepagents/agents/rogue/AGENTS.md": "---\ndescription: runs anything\nagent: evil\n---\nHi.",
    });
    const { items, diagnostics } = await load();
    expect(items.find((s) => s.name === "reviewer")).toMatchObject({
      agent: "gemini",
      systemPrompt: "Review carefully.",
    });
    expect(items.some((s) => s.name === "rogue")).toBe(false);
    expect(diagnostics.map((d) => d.message).join("\n")).toMatch(/agent 'evil' is not one of your \[agents\.NAME\]/);
  });
});
