// The SSH backend against the local one, on the same files: a real sshd on 127.0.0.1 (the test
// harness: bubblewrap, workspace at /remote-ws) serves a 5,000-file tree whose backing directory the
// local backend reads directly. Ratios are remote / local for the same work in the same run; the
// network is loopback, so they show the protocol's cost, not a WAN's latency.
import { join } from "node:path";
import { createLocalShellBackend } from "../src/backends/local/local-shell.js";
import { createSshBackend, type SshBackend } from "../src/backends/ssh/ssh-backend.js";
import { createSshConnection } from "../src/backends/ssh/ssh-connection.js";
import { checkSshdAvailable, startSshd, type TestSshd } from "../test/support/sshd.js";
import { buildTree, check, commandBurst, grepNeedle } from "./backend-work.js";
import { round, timed, type BenchResult } from "./lib.js";

function connect(sshd: TestSshd): SshBackend {
  const connection = createSshConnection({
    endpoint: { host: sshd.host, port: sshd.port, username: sshd.user },
    auth: { identities: [{ path: sshd.clientKeyPath, key: sshd.clientKey }] },
    verifyHostKey: async (key) =>
      key.fingerprint === sshd.hostFingerprint ? { trusted: true } : { refused: "unexpected host key" },
  });
  return createSshBackend({ connection, rootDir: sshd.remoteRoot });
}

export async function runSshBench(runs = 7): Promise<BenchResult[]> {
  const available = checkSshdAvailable();
  if (!available.ok) return [{ name: "ssh", value: 0, unit: "", note: `skipped: ${available.reason}` }];
  const sshd = await startSshd();
  const remote = connect(sshd);
  try {
    buildTree(sshd.backingDir);
    const local = createLocalShellBackend({ rootDir: sshd.backingDir });
    const file = "pkg0/mod0/file1.ts";
    const results: BenchResult[] = [];

    const setupMs = await timed(runs, async () => {
      const fresh = connect(sshd);
      await fresh.health();
      await fresh.close();
    });
    results.push({
      name: "ssh.connect",
      value: round(setupMs),
      unit: "ms",
      note: "TCP + key exchange + auth + SFTP + root check, loopback",
    });

    const reads = 20;
    const remoteRead = await timed(runs, async () => {
      for (let i = 0; i < reads; i++) check(await remote.read(`${sshd.remoteRoot}/${file}`));
    });
    const localRead = await timed(runs, async () => {
      for (let i = 0; i < reads; i++) check(await local.read(join(sshd.backingDir, file)));
    });
    results.push({
      name: "ssh.read-file",
      value: round(remoteRead / reads, 2),
      unit: "ms",
      baseline: round(localRead / reads, 2),
      ratio: round(remoteRead / localRead, 1),
      note: "per read_file, shared SFTP session",
    });
    // The same read with a new channel per operation (what sharing the SFTP session saves).
    const channelRead = await timed(runs, async () => {
      for (let i = 0; i < reads; i++) await remote.execute(`cat ${file}`);
    });
    results.push({
      name: "ssh.read-file-new-channel",
      value: round(channelRead / reads, 2),
      unit: "ms",
      baseline: round(remoteRead / reads, 2),
      ratio: round(channelRead / remoteRead, 1),
      note: "cat in an exec channel per read vs the shared SFTP session",
    });

    const remoteGrep = await timed(runs, grepNeedle(remote, sshd.remoteRoot, "remote"));
    const localGrep = await timed(runs, grepNeedle(local, sshd.backingDir, "local"));
    results.push({
      name: "ssh.grep-5k-files",
      value: round(remoteGrep),
      unit: "ms",
      baseline: round(localGrep),
      ratio: round(remoteGrep / localGrep, 1),
      note: "rg on the remote vs rg locally",
    });

    const remoteBurst = await timed(3, commandBurst(remote, "remote"));
    const localBurst = await timed(3, commandBurst(local, "local"));
    results.push({
      name: "ssh.command-burst-20",
      value: round(remoteBurst),
      unit: "ms",
      baseline: round(localBurst),
      ratio: round(remoteBurst / localBurst, 1),
      note: "20 sequential commands, one exec channel each",
    });
    return results;
  } finally {
    await remote.close();
    await sshd.stop();
  }
}
