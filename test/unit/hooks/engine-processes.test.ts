import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FIXTURES, emit, hooksJson, isAlive, makeProject, readJson, waitFor, type Project } from "./helpers.js";

let project: Project;
const started: number[] = [];
beforeEach(async () => {
  project = await makeProject();
});
afterEach(async () => {
  // Belt and braces: never leave a fixture process behind, even when an assertion failed.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await project.cleanup();
});

function pidsFrom(file: string): number[] {
  const pids = readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
  started.push(...pids);
  return pids;
}

describe("timeouts and cancellation", () => {
  it("kills a hanging hook and its child at the timeout and fails open", async () => {
    const pidFile = project.out("pids");
    await project.write(
      "user",
      hooksJson({ PreToolUse: [{ command: `sh '${join(FIXTURES, "hang.sh")}' '${pidFile}'`, timeout: 0.5 }] }),
    );
    const result = await (
      await project.engine()
    ).run("PreToolUse", { tool_name: "Bash", tool_input: {}, tool_use_id: "c" });

    expect(result.blocked).toBe(false);
    expect(result.permissionDecision).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(["timeout"]);
    expect(result.diagnostics[0]!.message).toContain("0.5s");
    expect(result.outcomes[0]!.timedOut).toBe(true);
    const [child, parent] = pidsFrom(pidFile);
    await waitFor(() => !isAlive(child!) && !isAlive(parent!), "hook processes to die", 3000);
  });

  it("aborting the turn kills running hooks and marks the result cancelled", async () => {
    const pidFile = project.out("pids");
    await project.write("user", hooksJson({ Stop: [{ command: `sh '${join(FIXTURES, "hang.sh")}' '${pidFile}'` }] }));
    const engine = await project.engine();
    const controller = new AbortController();
    const running = engine.run("Stop", { stop_hook_active: false }, { signal: controller.signal });
    await waitFor(() => existsSync(pidFile), "the hook to start");
    const [child, parent] = pidsFrom(pidFile);
    expect(isAlive(child!)).toBe(true);
    controller.abort();

    const result = await running;
    expect(result.cancelled).toBe(true);
    expect(result.blocked).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["cancelled"]);
    await waitFor(() => !isAlive(child!) && !isAlive(parent!), "hook processes to die", 3000);
  });

  it("an already-aborted signal starts nothing", async () => {
    await project.write("user", hooksJson({ Stop: [{ argv: emit("--record", project.out("ran.json")) }] }));
    const controller = new AbortController();
    controller.abort();
    const result = await (
      await project.engine()
    ).run("Stop", { stop_hook_active: false }, { signal: controller.signal });
    expect(result.cancelled).toBe(true);
    expect(existsSync(project.out("ran.json"))).toBe(false);
  });
});

describe("environment", () => {
  it("scrubs secrets, keeps PATH, sets CLAUDE_PROJECT_DIR and runs in the project root", async () => {
    await project.write("user", hooksJson({ SessionStart: [{ argv: emit("--env", project.out("env.json")) }] }));
    const engine = await project.engine({
      cwd: join(project.root, "sub"),
      env: {
        PATH: process.env.PATH,
        HOME: project.home,
        MY_API_KEY: "k1",
        GITHUB_TOKEN: "t1",
        DB_PASSWORD: "p1",
        AWS_SECRET_ACCESS_KEY: "s1",
        OPENAI_APIKEY: "a1",
        LANG: "C.UTF-8",
      },
    });
    await engine.run("SessionStart", { source: "startup" });
    const { env, cwd } = await readJson<{ env: Record<string, string>; cwd: string }>(project.out("env.json"));
    for (const name of ["MY_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "OPENAI_APIKEY"]) {
      expect(env[name], name).toBeUndefined();
    }
    expect(JSON.stringify(env)).not.toMatch(/"(k1|t1|p1|s1|a1)"/);
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.CLAUDE_PROJECT_DIR).toBe(project.root);
    expect(env.CLAUDE_PLUGIN_ROOT).toBeUndefined();
    expect(cwd).toBe(project.root);
  });

  it("never interpolates the payload into the command line", async () => {
    await project.write("user", hooksJson({ UserPromptSubmit: [{ argv: emit("--env", project.out("env.json")) }] }));
    await (await project.engine()).run("UserPromptSubmit", { prompt: "$(touch pwned) `touch pwned2`" });
    const { argv } = await readJson<{ argv: string[] }>(project.out("env.json"));
    expect(argv).toEqual(["--env", project.out("env.json")]);
    expect(existsSync(join(project.root, "pwned"))).toBe(false);
    expect(existsSync(join(project.root, "pwned2"))).toBe(false);
  });
});

describe("concurrency and limits", () => {
  it("runs matching handlers concurrently", async () => {
    const a = project.out("a.json");
    const b = project.out("b.json");
    await project.write("project", hooksJson({ Stop: [{ argv: emit("--stamp", a, "--sleep", "1000") }] }));
    await project.write("user", hooksJson({ Stop: [{ argv: emit("--stamp", b, "--sleep", "1000") }] }));
    await (await project.engine()).run("Stop", { stop_hook_active: false });
    const first = await readJson<{ start: number; end: number }>(a);
    const second = await readJson<{ start: number; end: number }>(b);
    // Each started before the other ended: their run times overlapped.
    expect(first.start).toBeLessThan(second.end);
    expect(second.start).toBeLessThan(first.end);
  });

  it("caps stdout and stderr at 100,000 bytes each with a truncation diagnostic", async () => {
    await project.write(
      "user",
      hooksJson({ SessionStart: [{ argv: emit("--stdout-bytes", "250000", "--stderr-bytes", "150000") }] }),
    );
    const result = await (await project.engine()).run("SessionStart", { source: "startup" });
    expect(result.additionalContext).toHaveLength(1);
    expect(Buffer.byteLength(result.additionalContext[0]!)).toBe(100_000);
    expect(result.diagnostics.filter((d) => d.code === "output_truncated").map((d) => d.message.split(" ")[0])).toEqual(
      ["stdout", "stderr"],
    );
  });

  it("exit 2 reasons are capped too", async () => {
    await project.write("user", hooksJson({ PreCompact: [{ argv: emit("--stderr-bytes", "120000", "--exit", "2") }] }));
    const result = await (await project.engine()).run("PreCompact", { trigger: "auto", custom_instructions: "" });
    expect(result.blocked).toBe(true);
    expect(result.reason).toHaveLength(100_000);
  });
});
