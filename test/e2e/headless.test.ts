import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { dirname } from "node:path";

const suite = useAgentSuite({ name: "headless" });

/** Runs `deep-acp ARGS` to completion in the project, `env` laid over HOME and the fake model's key and URL. */
const run = (args: string[], env: Record<string, string> = {}) => suite.run(args, { env });

describe("headless -n", () => {
  it("prints the answer on stdout, tool activity on stderr, and exits 0", async () => {
    suite.model.enqueue(toolTurn("ls", { path: suite.project }), textTurn("The project is empty."));
    const result = await run(["-n", "what is here?"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("The project is empty.\n");
    expect(result.stderr).toContain("List .");
  });

  it("refuses anything that would ask, unless --yes", async () => {
    suite.model.enqueue(toolTurn("execute", { command: "echo made > made.txt" }), textTurn("tried"));
    const refused = await run(["-n", "make a file"]);
    expect(refused.stderr).toContain("rerun with --yes");
    // No user was there: the model hears that the call needs approval, not that someone said no.
    const told = suite.model.requests.at(-1)!.messages.find((m) => m.role === "tool")!;
    expect(told.text).toContain("needs approval");
    expect(told.text).toContain("--yes");
    expect(told.text).not.toMatch(/the user rejected/i);
    await expect(readFile(join(suite.project, "made.txt"))).rejects.toThrow();
    suite.model.enqueue(toolTurn("execute", { command: "echo made > made.txt" }), textTurn("made it"));
    const allowed = await run(["-n", "make a file", "--yes"]);
    expect(allowed.code).toBe(0);
    expect(await readFile(join(suite.project, "made.txt"), "utf8")).toBe("made\n");
  });

  it("exits 1 with a clear message when no model is configured", async () => {
    const result = await run(["-n", "hi"], { ANTHROPIC_API_KEY: "" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No model configured");
  });

  it("prints help and version, and rejects bad flags with exit 2", async () => {
    expect((await run(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await run(["--help"])).stdout).toContain("deep-acp -n");
    const bad = await run(["--no-mcp", "--mcp-config", "x.json"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("cannot be used together");
  });

  it("continues the latest session of the directory with --resume, and lists and shows sessions", async () => {
    suite.model.enqueue(textTurn("Noted: the password hint is 'blue'."));
    expect((await run(["-n", "remember the hint blue"])).code).toBe(0);
    suite.model.enqueue(textTurn("It was blue."));
    const resumed = await run(["-n", "what was the hint?", "--resume"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("resuming session");
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("remember the hint blue");
    const list = await run(["sessions", "list", "--json"]);
    const sessions = JSON.parse(list.stdout) as Array<{ id: string; cwd: string; title: string }>;
    expect(sessions.some((s) => s.title === "remember the hint blue" && s.cwd === suite.project)).toBe(true);
    const id = sessions.find((s) => s.title === "remember the hint blue")!.id;
    const shown = await run(["sessions", "show", id]);
    expect(shown.stdout).toContain("It was blue.");
    // A saved plan (plan mode's, named by the session id) goes with the session.
    const plan = join(suite.home, ".deepagents", "plans", `${id}.md`);
    await mkdir(dirname(plan), { recursive: true });
    await writeFile(plan, "## Plan\n");
    expect((await run(["sessions", "delete", id])).code).toBe(0);
    await expect(readFile(plan)).rejects.toMatchObject({ code: "ENOENT" });
    expect((await run(["sessions", "show", id])).code).toBe(1);
    expect((await run(["-n", "x", "--resume", "no-such-id"])).code).toBe(1);
  });

  describe("slash commands run headless, through the same dispatch as the editor's", () => {
    it("/context and /cost answer on stdout and send the model nothing", async () => {
      const context = await run(["-n", "/context"]);
      expect(context.code).toBe(0);
      expect(context.stdout).toContain("System prompt");
      expect(context.stdout).toContain("Built-in tool schemas");
      const cost = await run(["-n", "/cost"]);
      expect(cost.code).toBe(0);
      expect(cost.stdout).toContain("**Cost of this session**");
      expect(cost.stdout).toContain("- No model requests yet.");
      expect(suite.model.requests).toHaveLength(0);
    });

    it("/compact --resume summarizes the stored conversation", async () => {
      await mkdir(join(suite.home, ".deepagents"), { recursive: true });
      await writeFile(join(suite.home, ".deepagents", "config.toml"), "[compaction]\nkeep_messages = 2\n");
      suite.model.setHandler((request) =>
        request.system.includes("summar") ? textTurn("SUMMARY OF EARLIER WORK") : textTurn("ok"),
      );
      expect((await run(["-n", "message number 0"])).code).toBe(0);
      for (let i = 1; i < 4; i++) expect((await run(["-n", `message number ${i}`, "--resume"])).code).toBe(0);
      const before = suite.model.requests.length;
      const compacted = await run(["-n", "/compact keep the numbers", "--resume"]);
      expect(compacted.code).toBe(0);
      expect(compacted.stdout).toMatch(/Compacted \d+ earlier messages/);
      // One request, the summary's, which carried the conversation and the instructions.
      expect(suite.model.requests).toHaveLength(before + 1);
      const summary = JSON.stringify(suite.model.requests.at(-1)!.body);
      expect(summary).toContain("message number 0");
      expect(summary).toContain("keep the numbers");
      expect((await run(["-n", "next", "--resume"])).code).toBe(0);
      const next = JSON.stringify(suite.model.requests.at(-1)!.body);
      expect(next).toContain("SUMMARY OF EARLIER WORK");
      expect(next).not.toContain("message number 0");
    });

    it("/skill:x sends the skill's instructions and the request to the model", async () => {
      const dir = join(suite.project, ".deepagents", "skills", "deploy");
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, "SKILL.md"),
        "---\nname: deploy\ndescription: How to deploy\n---\n\nRun make deploy, then verify.\n",
      );
      suite.model.enqueue(textTurn("deploying"));
      const result = await run(["-n", "/skill:deploy to staging"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("deploying\n");
      const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
      expect(sent).toContain("Run make deploy, then verify.");
      expect(sent).toContain("to staging");
      expect(sent).not.toContain("/skill:deploy");
      const missing = await run(["-n", "/skill:nope"]);
      expect(missing.stdout).toContain("nope");
      expect(suite.model.requests).toHaveLength(1);
    });
  });
});
