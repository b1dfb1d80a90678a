import type { SshConnection } from "./ssh-connection.js";
import { shellQuote, streamRemote } from "./ssh-exec.js";

// SFTP v3 reports no link count, so a hard link to a file outside the project would look like an
// ordinary file. The remote's own `stat` says how many names a file has: one exec channel for a
// batch of paths (GNU `stat -c %h`, BSD `stat -f %l`), nothing installed there. A path whose count
// cannot be read is left out of the answer; callers treat a missing count as unknown.

const SCRIPT = `for p do n=$(stat -c %h -- "$p" 2>/dev/null || stat -f %l -- "$p" 2>/dev/null) || n=?; echo "$n"; done`;
/** Paths per exec call, so the command line stays far below the remote's ARG_MAX. */
const BATCH = 200;

export async function remoteLinkCounts(
  connection: SshConnection,
  paths: readonly string[],
  timeoutMs = 15_000,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const unique = [...new Set(paths)];
  for (let start = 0; start < unique.length; start += BATCH) {
    const batch = unique.slice(start, start + BATCH);
    let output = "";
    const run = await streamRemote(
      connection,
      `sh -c ${shellQuote(SCRIPT)} sh ${batch.map(shellQuote).join(" ")}`,
      timeoutMs,
      (chunk) => void (output += chunk.toString("utf8")),
    );
    if (run.lost || run.timedOut) continue;
    const lines = output.split("\n");
    batch.forEach((path, i) => {
      const n = Number(lines[i]);
      if (Number.isInteger(n) && n > 0) counts.set(path, n);
    });
  }
  return counts;
}
