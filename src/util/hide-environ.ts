import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { isSecretName } from "./secret-env.js";

// A command the user approves runs as the user, outside the sandbox, and can read
// /proc/<agent pid>/environ: the environment block the agent was started with, which holds the
// model key when the editor passed it in the environment. Deleting the variable from process.env
// does not change that block (the kernel reads it from the process's memory, where it stays), Node
// has no prctl to make the process non-dumpable, and re-executing without the key would cost a
// second start. So at start the agent moves each secret's value to the heap (unset and set again:
// libc copies it) and overwrites the original bytes of the block through /proc/self/mem; process.env
// keeps working, and /proc/<pid>/environ shows zeros where the secrets were. Linux only; anything
// unexpected leaves the block as it was (see docs/architecture.md, "Secrets in the agent's process").

export type HideResult = { hidden: string[]; error?: string };

/** Overwrites the secrets in this process's /proc environ block; process.env still has them. */
export function hideSecretsFromProcEnviron(env: NodeJS.ProcessEnv = process.env): HideResult {
  if (process.platform !== "linux") return { hidden: [] };
  // The names hidden are those user hooks never receive (secret-env.ts).
  const names = Object.keys(env).filter(isSecretName);
  if (names.length === 0) return { hidden: [] };
  let fd: number | undefined;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which may hold spaces and parentheses) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 1 << 24)
      return { hidden: [], error: "no environment block in /proc/self/stat" };
    // First give each value a heap copy: libc then no longer points into the block.
    for (const name of names) {
      const value = env[name];
      delete env[name];
      if (value !== undefined) env[name] = value;
    }
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    const wanted = new Set(names);
    const hidden: string[] = [];
    for (let offset = 0; offset < block.length;) {
      let stop = block.indexOf(0, offset);
      if (stop === -1) stop = block.length;
      const equals = block.indexOf(0x3d, offset);
      const name = equals !== -1 && equals < stop ? block.toString("latin1", offset, equals) : "";
      if (wanted.has(name)) {
        const zeros = Buffer.alloc(stop - offset);
        writeSync(fd, zeros, 0, zeros.length, start + offset);
        hidden.push(name);
      }
      offset = stop + 1;
    }
    return { hidden };
  } catch (error) {
    return { hidden: [], error: (error as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
