import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineHealth, loadDocker } from "../../../src/backends/container/engine.js";
import { parseSshEngineHost } from "../../../src/backends/container/engine-ssh.js";
import { checkSshdAvailable, startSshd, writeSshHome, type TestSshd } from "../../support/sshd.js";

// DOCKER_HOST=ssh://... against a real sshd (test/support/sshd.ts, under bubblewrap: no engine socket
// on its side). The host key decides before anything else: an unknown or changed key is refused with
// the fingerprint and what to do, never accepted; with a known key the login works, and a far side
// without an engine says so in the error. (The engine itself over ssh:// runs in .ci/run's second
// pass of test/e2e/container-workspace.test.ts.)

const sshd = checkSshdAvailable();

describe("DOCKER_HOST=ssh:// URLs", () => {
  it("takes user, host and port; refuses a path or a password", () => {
    expect(parseSshEngineHost("ssh://root@10.0.0.5:2222")).toEqual({ user: "root", host: "10.0.0.5", port: 2222 });
    expect(parseSshEngineHost("ssh://build-box/")).toEqual({ host: "build-box" });
    expect(() => parseSshEngineHost("ssh://me@host/var/run/docker.sock")).toThrow(/a path is not supported/);
    expect(() => parseSshEngineHost("ssh://me:pw@host")).toThrow(/no passwords/);
  });
});

(sshd.ok ? describe : describe.skip)("a container engine over ssh:// (real sshd)", () => {
  let server: TestSshd;
  let root: string;
  const dirs: string[] = [];
  beforeAll(async () => {
    server = await startSshd();
    root = await mkdtemp(join(tmpdir(), "deep-acp-engine-ssh-"));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });
  const home = async (name: string) => {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    dirs.push(dir);
    return dir;
  };
  const health = async (homeDir: string) => {
    const address = `ssh://${server.user}@127.0.0.1:${server.port}`;
    const docker = await loadDocker({ env: { DOCKER_HOST: address }, home: homeDir });
    return engineHealth(docker, address);
  };

  it("an unknown host key is refused, with its fingerprint and where to add it", async () => {
    const dir = await home("unknown");
    await writeSshHome(dir, server, { knownHosts: false });
    const result = await health(dir);
    expect(result.ok).toBe(false);
    expect(result.error).toContain(`[127.0.0.1]:${server.port} is not known`);
    expect(result.error).toContain(server.hostFingerprint);
    expect(result.error).toContain(join(dir, ".ssh", "known_hosts"));
    expect(result.error).not.toContain("--trust-remote-host");
    expect(result.where).toBe("remote, over SSH");
  });

  it("a changed host key is refused as a possible man in the middle", async () => {
    const dir = await home("changed");
    await writeSshHome(dir, server, { knownHosts: false });
    const other = server.knownHostsLine.replace(
      /\S+$/,
      "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
    );
    await writeFile(join(dir, ".ssh", "known_hosts"), `${other}\n`);
    const result = await health(dir);
    expect(result.ok).toBe(false);
    expect(result.error).toContain("has CHANGED");
  });

  it("a known key logs in; a far side with no engine says so", async () => {
    const dir = await home("known");
    await writeSshHome(dir, server);
    const result = await health(dir);
    expect(result.ok).toBe(false);
    // The sandboxed sshd has no engine socket: the far side's docker CLI (or its absence) speaks.
    expect(result.error).toMatch(/does not answer: ssh:\/\/\S+@127\.0\.0\.1:\d+: .*(docker|daemon|not found)/i);
    expect(result.error).not.toMatch(/not known|CHANGED|authentication/);
  });
});
