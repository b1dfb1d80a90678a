import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { runCommand } from "./processes.js";

// A real OpenSSH server for tests, on 127.0.0.1 at a free high port, with a temporary host key and
// authorized key. It runs under bubblewrap on its own root: the remote workspace is bound at
// /remote-ws, a path that does not exist on this machine, and none of this machine's test
// directories are visible to it, so any code path that touches the local disk for a remote path
// fails. `ps` inside sees only the sandbox's processes (own PID namespace), which is how tests check
// that a cancelled command left nothing behind.

export const REMOTE_ROOT = "/remote-ws";
const SSHD = "/usr/sbin/sshd";

export type SshdAvailability = { ok: true } | { ok: false; reason: string };

export function checkSshdAvailable(): SshdAvailability {
  if (!existsSync(SSHD)) return { ok: false, reason: `${SSHD} not found (apt-get install openssh-server)` };
  for (const tool of ["bwrap", "ssh-keygen", "ssh"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return { ok: false, reason: `${tool} not found` };
  }
  if (existsSync(REMOTE_ROOT))
    return { ok: false, reason: `${REMOTE_ROOT} exists on this machine; the remote's view would not be distinct` };
  return { ok: true };
}

export type TestSshd = {
  host: "127.0.0.1";
  port: number;
  user: string;
  /** The workspace as the remote sees it (does not exist locally). */
  remoteRoot: string;
  /** The local directory bound at remoteRoot (tests use it to arrange and inspect files). */
  backingDir: string;
  /** OpenSSH private key (PEM text) authorized on the server. */
  clientKey: string;
  clientKeyPath: string;
  /** known_hosts line for this server. */
  knownHostsLine: string;
  /** SHA256:... fingerprint of the host key, as OpenSSH prints it. */
  hostFingerprint: string;
  /** Runs a command on the server with the system ssh client (for server-side checks). */
  exec(command: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Kills sshd and every process in its sandbox at once (a dropped host). */
  kill(): Promise<void>;
  /** Starts sshd again on the same port with the same keys. */
  restart(): Promise<void>;
  /** Replaces the host key (a changed host) and restarts. */
  rotateHostKey(): Promise<void>;
  stop(): Promise<void>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function keygen(path: string): Promise<void> {
  const result = await runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "deep-acp-test", "-f", path], {
    cwd: tmpdir(),
    env: process.env,
  });
  if (result.code !== 0) throw new Error(`ssh-keygen failed: ${result.stderr}`);
  await chmod(path, 0o600);
}

function fingerprintOf(publicLine: string): string {
  const blob = Buffer.from(publicLine.trim().split(/\s+/)[1]!, "base64");
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

export type StartSshdOptions = {
  /** Local directory to bind at /remote-ws; default a new temp dir (removed on stop). */
  backingDir?: string;
};

export async function startSshd(options: StartSshdOptions = {}): Promise<TestSshd> {
  const confDir = await mkdtemp(join(tmpdir(), "deep-acp-sshd-"));
  const backingDir = options.backingDir ?? (await mkdtemp(join(tmpdir(), "deep-acp-remote-ws-")));
  const user = userInfo();
  const port = await freePort();
  const hostKey = join(confDir, "host_key");
  const clientKeyPath = join(confDir, "client_key");
  await keygen(hostKey);
  await keygen(clientKeyPath);
  await writeFile(join(confDir, "authorized_keys"), await readFile(`${clientKeyPath}.pub`, "utf8"), { mode: 0o600 });
  // Inside the sandbox the config directory is /sshd-conf.
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    "HostKey /sshd-conf/host_key",
    "AuthorizedKeysFile /sshd-conf/authorized_keys",
    "PidFile none",
    "UsePAM no",
    "StrictModes no",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    "PermitRootLogin yes",
    "AllowTcpForwarding no",
    "AllowAgentForwarding no",
    "X11Forwarding no",
    "PrintMotd no",
    "MaxSessions 20",
    "Subsystem sftp internal-sftp",
    "LogLevel INFO",
  ].join("\n");
  await writeFile(join(confDir, "sshd_config"), `${config}\n`);

  let child: ChildProcess | undefined;
  let state = {
    knownHostsLine: "",
    hostFingerprint: "",
  };
  async function readHostKey() {
    const pub = (await readFile(`${hostKey}.pub`, "utf8")).trim().split(/\s+/);
    state = {
      knownHostsLine: `[127.0.0.1]:${port} ${pub[0]} ${pub[1]}`,
      hostFingerprint: fingerprintOf(pub.join(" ")),
    };
  }
  await readHostKey();

  async function launch(): Promise<void> {
    // A fresh root (tmpfs) holding only the system, the config and the workspace.
    const args = [
      "--ro-bind",
      "/usr",
      "/usr",
      "--ro-bind",
      "/etc",
      "/etc",
      "--symlink",
      "usr/bin",
      "/bin",
      "--symlink",
      "usr/sbin",
      "/sbin",
      "--symlink",
      "usr/lib",
      "/lib",
      ...(existsSync("/usr/lib64") ? ["--symlink", "usr/lib64", "/lib64"] : []),
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--dir",
      "/run/sshd",
      "--dir",
      user.homedir,
      "--ro-bind",
      confDir,
      "/sshd-conf",
      "--bind",
      backingDir,
      REMOTE_ROOT,
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--die-with-parent",
      "--clearenv",
      "--setenv",
      "PATH",
      "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
      SSHD,
      "-D",
      "-e",
      "-f",
      "/sshd-conf/sshd_config",
    ];
    const proc = spawn("bwrap", args, { stdio: ["ignore", "ignore", "pipe"] });
    child = proc;
    let stderr = "";
    await new Promise<void>((resolve, reject) => {
      proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        // Only the start-up lines matter; later connection logs are dropped.
        if (stderr.length < 65536) stderr += chunk;
        if (stderr.includes("Server listening on 127.0.0.1")) resolve();
      });
      proc.once("exit", (code) => reject(new Error(`sshd exited (${code}) before listening: ${stderr}`)));
      proc.once("error", reject);
    });
  }

  async function exec(command: string) {
    return runCommand(
      "ssh",
      [
        "-F",
        "/dev/null",
        "-o",
        "BatchMode=yes",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "LogLevel=ERROR",
        "-i",
        clientKeyPath,
        "-p",
        String(port),
        `${user.username}@127.0.0.1`,
        command,
      ],
      { cwd: tmpdir(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
  }

  async function kill(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGKILL");
    await exited;
  }

  await launch();
  return {
    host: "127.0.0.1",
    port,
    user: user.username,
    remoteRoot: REMOTE_ROOT,
    backingDir,
    clientKey: await readFile(clientKeyPath, "utf8"),
    clientKeyPath,
    get knownHostsLine() {
      return state.knownHostsLine;
    },
    get hostFingerprint() {
      return state.hostFingerprint;
    },
    exec,
    kill,
    async restart() {
      await kill();
      await launch();
    },
    async rotateHostKey() {
      await kill();
      await rm(hostKey, { force: true });
      await rm(`${hostKey}.pub`, { force: true });
      await keygen(hostKey);
      await readHostKey();
      await launch();
    },
    async stop() {
      await kill();
      await rm(confDir, { recursive: true, force: true });
      if (!options.backingDir) await rm(backingDir, { recursive: true, force: true });
    },
  };
}

/** Writes a HOME whose ~/.ssh trusts this server and holds its client key. */
export async function writeSshHome(
  home: string,
  sshd: TestSshd,
  options: { knownHosts?: boolean } = {},
): Promise<void> {
  const dir = join(home, ".ssh");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, "id_ed25519"), sshd.clientKey, { mode: 0o600 });
  if (options.knownHosts !== false)
    await writeFile(join(dir, "known_hosts"), `${sshd.knownHostsLine}\n`, { mode: 0o600 });
}
