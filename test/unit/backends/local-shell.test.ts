import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLocalShellBackend, type LocalShellBackendOptions } from "../../../src/backends/local/local-shell.js";
import { isSandboxBackend } from "../../../src/backends/protocol.js";
import { buildShellEnv } from "../../../src/backends/processes/shell-env.js";
import { groupsIn, isRunning, killIfRunning, pidsIn } from "./process-helpers.js";

let dir: string;
const started: number[] = [];
const groups: number[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "deep-acp-shell-"));
});
afterEach(async () => {
  killIfRunning(started.splice(0), groups.splice(0));
  await rm(dir, { recursive: true, force: true });
});

const shell = (options: Partial<LocalShellBackendOptions> = {}) =>
  createLocalShellBackend({ rootDir: dir, killGraceMs: 300, ...options });

/** Collects streamed output and remembers printed pids so afterEach can clean up on failure. */
function recorder() {
  const chunks: string[] = [];
  return {
    chunks,
    onOutput: (chunk: string) => {
      chunks.push(chunk);
      started.push(...pidsIn(chunk));
      groups.push(...groupsIn(chunk));
    },
    text: () => chunks.join(""),
  };
}

describe("local shell execute", () => {
  it("is a sandbox backend with an id", () => {
    const backend = shell();
    expect(isSandboxBackend(backend)).toBe(true);
    expect(backend.id).toBe(`local:${dir}`);
  });

  it("streams stdout and stderr live, in arrival order, and reports the exit code", async () => {
    const out = recorder();
    const result = await shell().execute(
      "printf 'a\\n'; sleep 0.1; printf 'b\\n' >&2; sleep 0.1; printf 'c\\n'; exit 3",
      { onOutput: out.onOutput },
    );
    expect(out.chunks.length).toBeGreaterThanOrEqual(3);
    expect(out.text()).toBe("a\nb\nc\n");
    expect(result).toMatchObject({ output: "a\nb\nc\n", exitCode: 3, signal: null, truncated: false, timedOut: false });
  });

  it("keeps head and tail of large output with a truncation marker", async () => {
    const result = await shell({ maxOutputChars: 1000 }).execute("seq 1 100000");
    const full = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join("");
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith(full.slice(0, 500))).toBe(true);
    expect(result.output.endsWith(full.slice(-500))).toBe(true);
    expect(result.output).toContain(`[... ${full.length - 1000} characters truncated ...]`);
    expect(result.exitCode).toBe(0);
  });

  it("runs in the given cwd with stdin closed", async () => {
    await mkdir(join(dir, "sub"));
    expect((await shell().execute("pwd; cat", { cwd: join(dir, "sub") })).output).toBe(`${join(dir, "sub")}\n`);
    const missing = await shell().execute("pwd", { cwd: join(dir, "nope") });
    expect(missing.output).toMatch(/working directory does not exist/);
    expect(missing.exitCode).toBeNull();
  });

  it("on timeout kills the whole process group, grandchildren included", async () => {
    const out = recorder();
    const result = await shell().execute(
      "echo group:$$; sh -c 'sleep 100 & echo pid:$!; sleep 100 & echo pid:$!; wait' & echo pid:$!; wait",
      {
        timeoutMs: 500,
        onOutput: out.onOutput,
      },
    );
    const pids = pidsIn(result.output);
    expect(pids).toHaveLength(3);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe("SIGTERM");
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
  });

  it("escalates to SIGKILL for processes that ignore SIGTERM", async () => {
    const out = recorder();
    const result = await shell().execute(
      "echo group:$$; trap '' TERM; sh -c \"trap '' TERM; echo pid:\\$\\$; sleep 100\"",
      { timeoutMs: 300, onOutput: out.onOutput },
    );
    const pids = pidsIn(result.output);
    expect(pids).toHaveLength(1);
    expect(result.timedOut).toBe(true);
    expect(isRunning(pids[0]!)).toBe(false);
  });

  it("on abort kills the process group and reports it", async () => {
    const controller = new AbortController();
    const out = recorder();
    const running = shell().execute("echo group:$$; sleep 100 & echo pid:$!; sleep 100", {
      signal: controller.signal,
      onOutput: (chunk) => {
        out.onOutput(chunk);
        if (out.text().includes("pid:")) controller.abort();
      },
    });
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    const [pid] = pidsIn(result.output);
    expect(isRunning(pid!)).toBe(false);
    const again = await shell().execute("echo never", { signal: controller.signal });
    expect(again).toMatchObject({ output: "", aborted: true, exitCode: null });
  });

  it("ends background jobs when the command exits (unless told not to)", async () => {
    const result = await shell().execute("sleep 100 & echo pid:$!");
    started.push(...pidsIn(result.output));
    expect(result.exitCode).toBe(0);
    expect(isRunning(pidsIn(result.output)[0]!)).toBe(false);

    const kept = await shell({ killBackgroundOnExit: false }).execute("sleep 100 >/dev/null 2>&1 & echo pid:$!");
    const [pid] = pidsIn(kept.output);
    started.push(pid!);
    expect(isRunning(pid!)).toBe(true);
  });
});

describe("shell environment policy", () => {
  const baseEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/home/someone",
    ANTHROPIC_API_KEY: "sk-ant-secret",
    OPENAI_API_KEY: "sk-openai-secret",
    OPENAI_COMPATIBLE_API_KEY: "sk-compat-secret",
    DEEP_ACP_MODEL: "anthropic:x",
    DEEP_ACP_LOG: "debug",
    PROJECT_TOKEN: "kept",
  };

  it("inherits the environment minus our model credentials and DEEP_ACP_*", async () => {
    const result = await shell({ env: { baseEnv, extraEnv: { ADDED: "yes" } } }).execute("env");
    expect(result.output).not.toMatch(/secret/);
    expect(result.output).not.toMatch(/DEEP_ACP_/);
    expect(result.output).toContain("PROJECT_TOKEN=kept");
    expect(result.output).toContain("HOME=/home/someone");
    expect(result.output).toContain("ADDED=yes");
  });

  it("gives a minimal environment with inherit: false", () => {
    const env = buildShellEnv({ inherit: false, baseEnv: { ...baseEnv, LANG: "C.UTF-8", OTHER: "x" } });
    expect(env).toEqual({ PATH: baseEnv.PATH, HOME: "/home/someone", LANG: "C.UTF-8" });
  });
});
