import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  BWRAP_NOT_INSTALLED,
  checkBwrapAvailable,
  createBwrapSandboxBackend,
  type BwrapSandboxOptions,
} from "../../../src/backends/sandbox/bwrap-sandbox.js";
import { pollUntil } from "../../support/poll.js";

const availability = await checkBwrapAvailable();

describe("checkBwrapAvailable", () => {
  it("says bwrap is not installed when the binary is missing", async () => {
    expect(await checkBwrapAvailable({ bwrapPath: "/nonexistent/bin/bwrap" })).toEqual({
      ok: false,
      reason: BWRAP_NOT_INSTALLED,
    });
    expect(await checkBwrapAvailable({ bwrapPath: "no-such-bwrap-binary" })).toEqual({
      ok: false,
      reason: BWRAP_NOT_INSTALLED,
    });
  });

  it("tells missing user namespaces apart from a missing binary by running a sandbox", async () => {
    const dir = await mkdtemp(join(tmpdir(), "deep-acp-fakebwrap-"));
    try {
      const fake = join(dir, "bwrap");
      await writeFile(
        fake,
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
      );
      await chmod(fake, 0o755);
      const result = await checkBwrapAvailable({ bwrapPath: fake });
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toMatch(/^user namespaces unavailable: bwrap: No permissions/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a sandbox whose bwrap is missing answers with a failed-to-start result", async () => {
    const dir = await mkdtemp(join(tmpdir(), "deep-acp-nobwrap-"));
    try {
      const result = await createBwrapSandboxBackend({ roots: [dir], bwrapPath: "/nonexistent/bin/bwrap" }).execute(
        "true",
      );
      expect(result.output).toMatch(/Failed to start command: .*ENOENT/);
      expect(result.exitCode).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Processes on the host whose command line contains `marker` (sandboxed ones included). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
      if (cmdline.includes(marker) && state !== "Z") found.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

describe.skipIf(!availability.ok)(
  `bwrap sandbox${availability.ok ? "" : ` (skipped: ${availability.ok ? "" : availability.reason})`}`,
  () => {
    let top: string;
    let root: string;
    let outsideDir: string;
    let fakeHome: string;
    let server: Server;
    let port: number;
    let connections = 0;

    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      await new Promise((r) => server.close(r));
    });

    beforeEach(async () => {
      top = await mkdtemp(join(tmpdir(), "deep-acp-bwrap-"));
      // A root several levels below /tmp: bind targets must be creatable under the sandbox's "/".
      root = join(top, "x", "y", "project");
      outsideDir = join(top, "outside");
      fakeHome = join(top, "home");
      await mkdir(root, { recursive: true });
      await mkdir(outsideDir);
      await mkdir(fakeHome);
      await writeFile(join(outsideDir, "other.txt"), "other project\n");
      await writeFile(join(fakeHome, ".secret"), "home secret\n");
      connections = 0;
    });
    afterEach(async () => {
      await rm(top, { recursive: true, force: true });
    });

    const sandbox = (options: Partial<BwrapSandboxOptions> = {}) =>
      createBwrapSandboxBackend({ roots: [root], homeDir: fakeHome, killGraceMs: 300, ...options });

    it("runs commands in the root, and writes inside the root reach the host", async () => {
      const result = await sandbox().execute("pwd; echo made > inside.txt && echo ok");
      expect(result).toMatchObject({ output: `${root}\nok\n`, exitCode: 0 });
      expect(await readFile(join(root, "inside.txt"), "utf8")).toBe("made\n");
    });

    it("hides other host paths and refuses writes outside the roots", async () => {
      const result = await sandbox().execute(
        [
          `cat ${outsideDir}/other.txt || echo no-outside-read`,
          `echo x > ${outsideDir}/planted.txt || echo no-outside-write`,
          "touch /planted-at-root || echo no-root-write",
          "touch /etc/planted || echo no-etc-write",
          "touch /usr/planted || echo no-usr-write",
          "echo scratch > /tmp/scratch && echo tmp-ok",
        ].join("; "),
      );
      for (const marker of [
        "no-outside-read",
        "no-outside-write",
        "no-root-write",
        "no-etc-write",
        "no-usr-write",
        "tmp-ok",
      ]) {
        expect(result.output).toContain(marker);
      }
      expect(result.output).not.toContain("other project");
      expect(existsSync(join(outsideDir, "planted.txt"))).toBe(false);
      expect(existsSync("/etc/planted")).toBe(false);
    });

    it("does not show the home directory", async () => {
      const result = await sandbox().execute(`cat ${fakeHome}/.secret || echo no-home; ls -A ${fakeHome} | wc -l`);
      expect(result.output).toContain("no-home");
      expect(result.output).not.toContain("home secret");
      expect(result.output.trim().endsWith("0")).toBe(true);
    });

    it("has no network unless enabled", async () => {
      const probe = `bash -c 'echo hi > /dev/tcp/127.0.0.1/${port}' && echo connected || echo refused`;
      const off = await sandbox().execute(probe);
      expect(off.output).toContain("refused");
      expect(connections).toBe(0);
      const on = await sandbox({ network: true }).execute(probe);
      expect(on.output).toContain("connected");
      expect(connections).toBe(1);
    });

    it("drops model credentials from the environment", async () => {
      const result = await sandbox({
        env: { baseEnv: { PATH: "/usr/bin:/bin", ANTHROPIC_API_KEY: "sk-secret", KEEP: "1" } },
      }).execute("env");
      expect(result.output).not.toContain("sk-secret");
      expect(result.output).toContain("KEEP=1");
      expect(result.output).toContain("TMPDIR=/tmp");
    });

    it("kills everything in the sandbox on timeout and on abort", async () => {
      const timed = await sandbox().execute("sleep 97.5 & sleep 97.5", { timeoutMs: 400 });
      expect(timed.timedOut).toBe(true);
      expect(processesWith("97.5")).toEqual([]);

      const controller = new AbortController();
      // Abort once both sleeps run (argv is NUL-separated, so this matches the sleeps, not the shell).
      const running = pollUntil(() => processesWith("sleep\u000098.5").length === 2, "both sleeps to run").finally(() =>
        controller.abort(),
      );
      const aborted = await sandbox().execute("sleep 98.5 & sleep 98.5", { signal: controller.signal });
      await running;
      expect(aborted.aborted).toBe(true);
      expect(processesWith("98.5")).toEqual([]);
    });

    it("refuses a working directory outside the sandbox", async () => {
      const result = await sandbox().execute("pwd", { cwd: outsideDir });
      expect(result.output).toMatch(/outside the sandbox/);
      expect(result.exitCode).toBeNull();
    });

    it("mounts extra read-only and writable paths", async () => {
      const shared = join(top, "shared");
      const cache = join(top, "cache");
      await mkdir(shared);
      await mkdir(cache);
      await writeFile(join(shared, "lib.txt"), "shared lib\n");
      const result = await sandbox({ readOnlyPaths: [shared], writablePaths: [cache] }).execute(
        `cat ${shared}/lib.txt; touch ${shared}/x || echo ro; echo c > ${cache}/c && echo rw`,
      );
      expect(result.output).toContain("shared lib");
      expect(result.output).toContain("ro");
      expect(result.output).toContain("rw");
      expect(await readFile(join(cache, "c"), "utf8")).toBe("c\n");
    });
  },
);
