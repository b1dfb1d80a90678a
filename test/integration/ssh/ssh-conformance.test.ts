import { mkdtemp, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { createSshBackend, type SshBackend } from "../../../src/backends/ssh/ssh-backend.js";
import { createSshConnection } from "../../../src/backends/ssh/ssh-connection.js";
import { describeBackendConformance } from "../../unit/backends/conformance.js";
import { checkSshdAvailable, startSshd, type TestSshd } from "../../support/sshd.js";

// The backend contract, met over a real OpenSSH server whose workspace (/remote-ws) does not exist
// on this machine: every byte goes over SFTP or an exec channel.

const availability = checkSshdAvailable();

if (!availability.ok) {
  describe("backend conformance: ssh", () => {
    it.skip(`skipped: ${availability.reason}`, () => {});
  });
} else {
  const sshd: TestSshd = await startSshd();
  const backends: SshBackend[] = [];
  afterAll(async () => {
    for (const b of backends) await b.close();
    await sshd.stop();
  });

  for (const ripgrep of [true, false]) {
    let backend: SshBackend | undefined;
    const shared = () => {
      if (backend) return backend;
      const connection = createSshConnection({
        endpoint: { host: sshd.host, port: sshd.port, username: sshd.user },
        auth: { identities: [{ path: sshd.clientKeyPath, key: sshd.clientKey }] },
        verifyHostKey: async (key) =>
          key.fingerprint === sshd.hostFingerprint
            ? { trusted: true }
            : { refused: `unexpected host key ${key.fingerprint}` },
      });
      backend = createSshBackend({ connection, rootDir: sshd.remoteRoot, ripgrep });
      backends.push(backend);
      return backend;
    };
    describeBackendConformance(`ssh (${ripgrep ? "remote rg" : "remote grep/find"})`, async () => {
      // A fresh directory in the backing dir, addressed by its remote path.
      const local = await mkdtemp(join(sshd.backingDir, "t-"));
      return {
        backend: shared(),
        base: `${sshd.remoteRoot}/${basename(local)}`,
        // grep/find do not read .gitignore; the .gitignore case runs with rg only.
        disk: ripgrep,
        cleanup: () => rm(local, { recursive: true, force: true }),
      };
    });
  }
}
