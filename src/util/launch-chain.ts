import { readFileSync } from "node:fs";
import { CLOUD_CREDENTIAL_VARS, MODEL_KEY_VARS } from "./secret-env.js";

// The agent blanks the model key in its own /proc/<pid>/environ (hide-environ.ts), but the
// processes that started it keep theirs: launched as `npx -y deep-acp`, the `npm exec` parent (and
// the `sh -c` between) hold the key the editor passed for as long as the agent runs, and a command
// the user approves runs as the same user and can read /proc/<that pid>/environ. We cannot blank
// another process's memory, so we find such ancestors (Linux: /proc, where readable) and tell the
// user, once per process at the first turn and in `deep-acp doctor`, how to launch without them.

/** An ancestor process whose environment holds one of the agent's own credentials (same value). */
export type LaunchExposure = { pid: number; command: string; names: string[] };

export type LaunchChainOptions = {
  /** Default process.ppid. */
  parent?: number;
  /** The agent's environment (the values to look for). Default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default "/proc". */
  procRoot?: string;
  /** How many ancestors to look at. Default 12. */
  maxDepth?: number;
};

const CREDENTIALS = [...MODEL_KEY_VARS, ...CLOUD_CREDENTIAL_VARS];

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

function parentOf(procRoot: string, pid: number): number | undefined {
  const ppid = /^PPid:\s*(\d+)/m.exec(read(`${procRoot}/${pid}/status`) ?? "")?.[1];
  return ppid === undefined ? undefined : Number(ppid);
}

function commandOf(procRoot: string, pid: number): string {
  // npm sets its process title ("npm exec"), padding the rest of argv with NULs.
  const argv = (read(`${procRoot}/${pid}/cmdline`) ?? "").split("\0").filter((a) => a !== "");
  const text = argv.join(" ") || `process ${pid}`;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The ancestors (parent first) whose readable environment holds one of our credentials' values. */
export function findCredentialsInLaunchChain(options: LaunchChainOptions = {}): LaunchExposure[] {
  if (process.platform !== "linux" && options.procRoot === undefined) return [];
  const env = options.env ?? process.env;
  const procRoot = options.procRoot ?? "/proc";
  const wanted = CREDENTIALS.filter((name) => (env[name] ?? "") !== "");
  if (wanted.length === 0) return [];
  const found: LaunchExposure[] = [];
  let pid: number | undefined = options.parent ?? process.ppid;
  for (let depth = 0; pid !== undefined && pid > 1 && depth < (options.maxDepth ?? 12); depth++) {
    const environ = read(`${procRoot}/${pid}/environ`);
    if (environ !== undefined) {
      const entries = new Set(environ.split("\0"));
      // Latin-1 both ways: a key's bytes compare equal whatever their encoding.
      const names = wanted.filter((name) => entries.has(`${name}=${Buffer.from(env[name]!).toString("latin1")}`));
      if (names.length > 0) found.push({ pid, command: commandOf(procRoot, pid), names });
    }
    pid = parentOf(procRoot, pid);
  }
  return found;
}

/** What to tell the user about `exposures` (undefined: nothing to tell). */
export function launchChainWarning(exposures: readonly LaunchExposure[]): string | undefined {
  if (exposures.length === 0) return undefined;
  const names = [...new Set(exposures.flatMap((e) => e.names))].join(", ");
  const where = exposures.map((e) => `${e.pid} (${e.command})`).join(", ");
  const npx = exposures.some((e) => /\bnpm exec\b|\bnpx\b/.test(e.command));
  return (
    `${names} is also in the environment of ${exposures.length === 1 ? "process" : "processes"} ${where}, which started deep-acp: a command you ` +
    `approve can read it from /proc/<pid>/environ. ` +
    (npx
      ? "Launch deep-acp directly instead of through npx (npm i -g deep-acp, then deep-acp setup <editor>)."
      : "Launch deep-acp directly, or keep the key out of that process's environment (deep-acp login stores it).")
  );
}

let warned = false;

/** launchChainWarning for this process, the first time only (later calls: undefined). */
export function takeLaunchChainWarning(options: LaunchChainOptions = {}): string | undefined {
  if (warned) return undefined;
  warned = true;
  return launchChainWarning(findCredentialsInLaunchChain(options));
}
