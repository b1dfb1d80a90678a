import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSshBackend, type SshBackend } from "../../../src/backends/ssh/ssh-backend.js";
import { createSshConnection, type SshConnection } from "../../../src/backends/ssh/ssh-connection.js";
import { checkSshdAvailable, startSshd, type TestSshd } from "../../support/sshd.js";

// Commands, cancel and faults against a real OpenSSH server. "Nothing left behind" is checked on
// the server: its sandbox has its own PID namespace, so `ps` there lists only remote processes.

const availability = checkSshdAvailable();
const suite = availability.ok ? describe : describe.skip;
if (!availability.ok) describe("ssh backend", () => it.skip(`skipped: ${availability.reason}`, () => {}));

suite("ssh backend: commands and faults", () => {
  let sshd: TestSshd;
  let backend: SshBackend;
  let connection: SshConnection;
  /** Set to make the next SFTP write request kill the server (a host lost mid-write). */
  let killOnWrite = false;

  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  afterEach(async () => {
    await backend?.close();
  });

  function connect(options: { killGraceMs?: number } = {}) {
    const real = createSshConnection({
      endpoint: { host: sshd.host, port: sshd.port, username: sshd.user },
      auth: { identities: [{ path: sshd.clientKeyPath, key: sshd.clientKey }] },
      verifyHostKey: async (key) =>
        key.fingerprint === sshd.hostFingerprint ? { trusted: true } : { refused: "unexpected host key" },
    });
    connection = {
      ...real,
      async sftp() {
        const sftp = await real.sftp();
        return new Proxy(sftp, {
          get(target, key) {
            if (key === "write" && killOnWrite) {
              killOnWrite = false;
              void sshd.kill();
            }
            const value = Reflect.get(target, key, target) as unknown;
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
      },
    };
    backend = createSshBackend({ connection, rootDir: sshd.remoteRoot, killGraceMs: options.killGraceMs ?? 500 });
    return backend;
  }

  async function remoteProcesses(pattern: string): Promise<string[]> {
    const { stdout } = await sshd.exec("ps -eo pid,args");
    return stdout.split("\n").filter((line) => line.includes(pattern) && !line.includes("ps -eo"));
  }

  it("runs a command in the remote workspace with live output and its exit code", async () => {
    connect();
    const chunks: string[] = [];
    const result = await backend.execute("pwd; echo out; echo err >&2; exit 3", { onOutput: (c) => chunks.push(c) });
    expect(result.exitCode).toBe(3);
    expect(result.output).toContain("/remote-ws\n");
    expect(result.output).toContain("out\n");
    expect(result.output).toContain("err\n");
    expect(chunks.join("")).toBe(result.output);
    expect((await backend.execute("pwd", { cwd: "/tmp" })).output).toBe("/tmp\n");
    expect((await backend.execute("true", { cwd: "/remote-ws/missing" })).output).toContain(
      "working directory does not exist",
    );
  });

  it("sends nothing from the local environment (no model keys on the remote)", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-local-secret";
    try {
      connect();
      const result = await backend.execute("env");
      expect(result.exitCode).toBe(0);
      expect(result.output).not.toContain("sk-local-secret");
      expect(result.output).not.toContain("ANTHROPIC");
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
  });

  it("small file operations share one SFTP channel", async () => {
    connect();
    await backend.write(`${sshd.remoteRoot}/shared.txt`, "x");
    const before = backend.status().channelsOpened;
    for (let i = 0; i < 20; i++) expect((await backend.read(`${sshd.remoteRoot}/shared.txt`)).content).toBe("x");
    expect(backend.status().channelsOpened).toBe(before);
  });

  it("cancel kills the remote process group, background children included", async () => {
    connect();
    const controller = new AbortController();
    const marker = `cancel-${Date.now()}`;
    const running = backend.execute(`sleep 300 & echo started; exec -a ${marker} sleep 301`, {
      signal: controller.signal,
      onOutput: (chunk) => chunk.includes("started") && controller.abort(),
    });
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(await remoteProcesses("sleep 30")).toEqual([]);
  });

  it("what a command leaves running in the background ends with it, as in the local shell", async () => {
    connect();
    const result = await backend.execute("sleep 281 & echo done");
    expect(result).toMatchObject({ exitCode: 0, output: "done\n" });
    expect(await remoteProcesses("sleep 281")).toEqual([]);
  });

  it("a timeout kills the remote process group and says so", async () => {
    connect();
    const result = await backend.execute("echo begin; sleep 200 & sleep 201", { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.output).toContain("begin");
    expect(await remoteProcesses("sleep 20")).toEqual([]);
  });

  it("a host lost mid-command fails the call clearly; the next call reconnects", async () => {
    connect();
    const result = await backend.execute("echo started; sleep 30", {
      onOutput: (chunk) => void (chunk.includes("started") && sshd.kill()),
    });
    expect(result.exitCode).toBeNull();
    expect(result.output).toContain("started");
    expect(result.output).toMatch(/connection to .* lost/);
    // While the host is down, calls fail fast with a clear message.
    expect((await backend.read(`${sshd.remoteRoot}/x.txt`)).error).toMatch(/cannot connect|ECONNREFUSED/);
    await sshd.restart();
    const again = await backend.execute("echo back");
    expect(again).toMatchObject({ exitCode: 0, output: "back\n" });
    expect(backend.status().reconnects).toBeGreaterThanOrEqual(1);
  });

  it("a host lost mid-write fails the write and leaves the old file whole; the next write reconnects", async () => {
    connect();
    await writeFile(join(sshd.backingDir, "big.txt"), "old content\n");
    killOnWrite = true;
    const result = await backend.write(`${sshd.remoteRoot}/big.txt`, "y".repeat(9 * 1024 * 1024));
    expect(result.error).toMatch(/lost|closed|No response/);
    expect(await readFile(join(sshd.backingDir, "big.txt"), "utf8")).toBe("old content\n");
    await sshd.restart();
    expect((await backend.write(`${sshd.remoteRoot}/big.txt`, "new\n")).error).toBeUndefined();
    expect(await readFile(join(sshd.backingDir, "big.txt"), "utf8")).toBe("new\n");
  });

  it("realPath resolves symlinks on the remote, through the deepest existing ancestor", async () => {
    connect();
    await backend.execute("mkdir -p real-dir && ln -sfn real-dir link-dir");
    expect(await backend.realPath(`${sshd.remoteRoot}/link-dir`)).toBe(`${sshd.remoteRoot}/real-dir`);
    expect(await backend.realPath(`${sshd.remoteRoot}/link-dir/new/file.txt`)).toBe(
      `${sshd.remoteRoot}/real-dir/new/file.txt`,
    );
  });
});
