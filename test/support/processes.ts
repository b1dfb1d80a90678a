import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { poll } from "./poll.js";

/**
 * Whether a process is still running. Zombies count as dead: in containers whose PID 1 does not
 * reap orphans, a killed grandchild stays a zombie forever, yet `kill(pid, 0)` still succeeds.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Waits until the process is gone (killing is asynchronous), up to `timeoutMs`. */
export function waitForExit(pid: number, timeoutMs = 5000): Promise<boolean> {
  return poll(() => !isAlive(pid), { timeoutMs, intervalMs: 25 });
}

export type CommandResult = { code: number | null; stdout: string; stderr: string };

export type RunCommandOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Piped to stdin, then stdin is closed; without it stdin is /dev/null. */
  input?: string;
  /** Sees stderr so far each time more arrives (e.g. to act on a printed URL). */
  onStderr?: (stderr: string) => void;
};

/** Runs a command to completion and collects its output ("close", so no output is lost after "exit"). */
export function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      options.onStderr?.(stderr);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}
