// Finding the agent's credentials in its ancestors' environments (util/launch-chain.ts), on a
// /proc laid out in a temporary folder.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findCredentialsInLaunchChain, launchChainWarning } from "../../../src/util/launch-chain.js";

let proc: string;
beforeEach(async () => {
  proc = await mkdtemp(join(tmpdir(), "launch-chain-"));
});
afterEach(() => rm(proc, { recursive: true, force: true }));

/** A process in the fake /proc: its parent, argv (npm pads its title with NULs) and environment (undefined: unreadable). */
async function processEntry(pid: number, ppid: number, argv: string[], env?: Record<string, string>) {
  await mkdir(join(proc, String(pid)));
  await writeFile(join(proc, String(pid), "status"), `Name:\tx\nPid:\t${pid}\nPPid:\t${ppid}\n`);
  await writeFile(join(proc, String(pid), "cmdline"), argv.join("\0") + "\0");
  if (env)
    await writeFile(
      join(proc, String(pid), "environ"),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join("\0") + "\0",
    );
}

const KEY = { ANTHROPIC_API_KEY: "sk-ant-abc", HOME: "/h" };

describe("launch chain", () => {
  it("names every ancestor holding our key's value, parent first, up to pid 1", async () => {
    await processEntry(30, 20, ["sh", "-c", "deep-acp"], KEY);
    await processEntry(20, 10, ["npm exec", "", "", ""], KEY);
    await processEntry(10, 1, ["zed"], { HOME: "/h" });
    const found = findCredentialsInLaunchChain({ parent: 30, env: KEY, procRoot: proc });
    expect(found).toEqual([
      { pid: 30, command: "sh -c deep-acp", names: ["ANTHROPIC_API_KEY"] },
      { pid: 20, command: "npm exec", names: ["ANTHROPIC_API_KEY"] },
    ]);
    const warning = launchChainWarning(found)!;
    expect(warning).toContain(
      "ANTHROPIC_API_KEY is also in the environment of processes 30 (sh -c deep-acp), 20 (npm exec)",
    );
    expect(warning).toContain("instead of through npx");
  });

  it("ignores another value under the same name, unreadable environments and a chain with no key", async () => {
    await processEntry(30, 20, ["bash"], { ANTHROPIC_API_KEY: "someone-elses" });
    await processEntry(20, 1, ["sshd"]);
    expect(findCredentialsInLaunchChain({ parent: 30, env: KEY, procRoot: proc })).toEqual([]);
    expect(findCredentialsInLaunchChain({ parent: 30, env: { HOME: "/h" }, procRoot: proc })).toEqual([]);
    expect(launchChainWarning([])).toBeUndefined();
  });

  it("stops at a missing process and at the depth limit (a loop in a broken /proc)", async () => {
    await processEntry(30, 30, ["loop"], KEY);
    expect(findCredentialsInLaunchChain({ parent: 30, env: KEY, procRoot: proc, maxDepth: 3 })).toHaveLength(3);
    expect(findCredentialsInLaunchChain({ parent: 99, env: KEY, procRoot: proc })).toEqual([]);
  });

  it("without npx in the chain, suggests keeping the key out of the launcher", async () => {
    await processEntry(30, 1, ["my-wrapper"], KEY);
    const warning = launchChainWarning(findCredentialsInLaunchChain({ parent: 30, env: KEY, procRoot: proc }))!;
    expect(warning).toContain("process 30 (my-wrapper)");
    expect(warning).toContain("deep-acp login stores it");
  });
});
