import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BINARY } from "../support/agent-process.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";
import { runCommand, type CommandResult } from "../support/processes.js";

let model: FakeModelServer;
let home: string;
let project: string;
beforeAll(async () => {
  model = await createFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "deep-acp-headless-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-headless-project-"));
});
afterAll(async () => {
  await model.close();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  return runCommand(process.execPath, [BINARY, ...args], {
    cwd: project,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
      ...env,
    },
  });
}

describe("headless -n", () => {
  it("prints the answer on stdout, tool activity on stderr, and exits 0", async () => {
    model.enqueue(toolTurn("ls", { path: project }), textTurn("The project is empty."));
    const result = await run(["-n", "what is here?"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("The project is empty.\n");
    expect(result.stderr).toContain("List .");
  });

  it("refuses anything that would ask, unless --yes", async () => {
    model.enqueue(toolTurn("execute", { command: "echo made > made.txt" }), textTurn("tried"));
    const refused = await run(["-n", "make a file"]);
    expect(refused.stderr).toContain("rerun with --yes");
    // No user was there: the model hears that the call needs approval, not that someone said no.
    const told = model.requests.at(-1)!.messages.find((m) => m.role === "tool")!;
    expect(told.text).toContain("needs approval");
    expect(told.text).toContain("--yes");
    expect(told.text).not.toMatch(/the user rejected/i);
    await expect(readFile(join(project, "made.txt"))).rejects.toThrow();
    model.enqueue(toolTurn("execute", { command: "echo made > made.txt" }), textTurn("made it"));
    const allowed = await run(["-n", "make a file", "--yes"]);
    expect(allowed.code).toBe(0);
    expect(await readFile(join(project, "made.txt"), "utf8")).toBe("made\n");
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
    model.enqueue(textTurn("Noted: the password hint is 'blue'."));
    expect((await run(["-n", "remember the hint blue"])).code).toBe(0);
    model.enqueue(textTurn("It was blue."));
    const resumed = await run(["-n", "what was the hint?", "--resume"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("resuming session");
    expect(JSON.stringify(model.requests.at(-1)!.body)).toContain("remember the hint blue");
    const list = await run(["sessions", "list", "--json"]);
    const sessions = JSON.parse(list.stdout) as Array<{ id: string; cwd: string; title: string }>;
    expect(sessions.some((s) => s.title === "remember the hint blue" && s.cwd === project)).toBe(true);
    const id = sessions.find((s) => s.title === "remember the hint blue")!.id;
    const shown = await run(["sessions", "show", id]);
    expect(shown.stdout).toContain("It was blue.");
    expect((await run(["sessions", "delete", id])).code).toBe(0);
    expect((await run(["sessions", "show", id])).code).toBe(1);
    expect((await run(["-n", "x", "--resume", "no-such-id"])).code).toBe(1);
  });
});
