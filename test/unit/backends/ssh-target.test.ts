import { createHmac, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostKeyFromBlob } from "../../../src/backends/ssh/ssh-connection.js";
import { createHostTrust } from "../../../src/backends/ssh/ssh-host-trust.js";
import { checkKnownHost, createKnownHostsFile } from "../../../src/backends/ssh/ssh-known-hosts.js";
import { parseRemoteUrl, resolveHost } from "../../../src/backends/ssh/ssh-target.js";
import { defaultConfig } from "../../../src/config/config-file.js";
import { remoteMentions, selectRemote } from "../../../src/session/workspace/remote-workspace.js";

function blob(type: string, body: Buffer): Buffer {
  const t = Buffer.from(type);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  return Buffer.concat([len, t, body]);
}
const keyA = hostKeyFromBlob("build-box", 22, blob("ssh-ed25519", randomBytes(36)));
const keyB = hostKeyFromBlob("build-box", 22, blob("ssh-ed25519", randomBytes(36)));
const line = (name: string, key = keyA) => `${name} ${key.type} ${key.blob.toString("base64")}`;

describe("ssh:// remote specs", () => {
  it("parses user, host, port and an absolute path", () => {
    expect(parseRemoteUrl("ssh://me@build-box:2222/srv/my%20app")).toEqual({
      user: "me",
      host: "build-box",
      port: 2222,
      path: "/srv/my app",
    });
    expect(parseRemoteUrl("ssh://box/home/x/")).toEqual({ host: "box", path: "/home/x/" });
    expect(parseRemoteUrl("ssh://[::1]:22/p")).toMatchObject({ host: "::1", path: "/p" });
  });
  it("refuses what it cannot use, saying what it expects", () => {
    expect(() => parseRemoteUrl("box:/srv")).toThrow(/ssh:\/\/\[user@\]host\[:port\]/);
    expect(() => parseRemoteUrl("ssh://box")).toThrow(/absolute path/);
    expect(() => parseRemoteUrl("ssh://me:pw@box/x")).toThrow(/passwords/);
  });
});

describe("known_hosts", () => {
  it("trusts a listed key, flags a different key of the same type as changed, leaves others unknown", () => {
    expect(checkKnownHost(line("build-box"), keyA)).toBe("trusted");
    expect(checkKnownHost(line("build-box", keyB), keyA)).toBe("changed");
    expect(checkKnownHost("build-box ssh-rsa AAAAB3Nza\n", keyA)).toBe("unknown");
    expect(checkKnownHost(line("other"), keyA)).toBe("unknown");
    expect(checkKnownHost(`# comment\n${line("*.example,build-*")}`, keyA)).toBe("trusted");
    expect(checkKnownHost(line("build-*,!build-box"), keyA)).toBe("unknown");
    expect(checkKnownHost(`@revoked ${line("build-box")}`, keyA)).toBe("revoked");
  });
  it("reads hashed names and [host]:port entries", () => {
    const salt = randomBytes(20);
    const hashed = `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update("build-box").digest("base64")}`;
    expect(checkKnownHost(line(hashed), keyA)).toBe("trusted");
    const onPort = { ...keyA, port: 2222 };
    expect(checkKnownHost(line("build-box"), onPort)).toBe("unknown");
    expect(checkKnownHost(line("[build-box]:2222"), onPort)).toBe("trusted");
  });
  it("asks about an unknown key; 'always' appends it, a changed key is refused without asking", async () => {
    const dir = await mkdtemp(join(tmpdir(), "deep-acp-kh-"));
    const path = join(dir, ".ssh", "known_hosts");
    let asked = 0;
    const trust = createHostTrust({ knownHosts: createKnownHostsFile(path), ask: async () => (asked++, "always") });
    const verdict = await trust.verify(keyA);
    expect(verdict).toMatchObject({ unknown: expect.stringContaining(keyA.fingerprint) });
    expect(await trust.confirm(keyA)).toBe(true);
    expect(await readFile(path, "utf8")).toBe(`${line("build-box")}\n`);
    expect(await trust.verify(keyA)).toEqual({ trusted: true });
    const changed = await trust.verify(keyB);
    expect(changed).toMatchObject({ refused: expect.stringMatching(/CHANGED.*ssh-keygen -R/) });
    expect(asked).toBe(1);
    expect(
      await createHostTrust({ knownHosts: createKnownHostsFile(path), trustUnknown: true }).verify({
        ...keyB,
        host: "new-host",
      }),
    ).toEqual({ trusted: true });
    await rm(dir, { recursive: true, force: true });
  });
});

describe("~/.ssh/config through ssh -G (HOME's file, passed with -F)", () => {
  it("honours HostName, User, Port, IdentityFile and ProxyJump", async (ctx) => {
    const { spawnSync } = await import("node:child_process");
    if (spawnSync("sh", ["-c", "command -v ssh"]).status !== 0) return ctx.skip();
    const home = await mkdtemp(join(tmpdir(), "deep-acp-sshcfg-"));
    await mkdir(join(home, ".ssh"));
    await writeFile(
      join(home, ".ssh", "config"),
      "Host box\n  HostName 10.1.2.3\n  User alice\n  Port 2200\n  IdentityFile ~/.ssh/box_key\n  ProxyJump bob@gate:2022\n",
    );
    const resolved = await resolveHost({ host: "box" }, { home, agentSocket: "" });
    expect(resolved).toMatchObject({
      host: "10.1.2.3",
      port: 2200,
      username: "alice",
      identityFiles: [join(home, ".ssh", "box_key")],
    });
    expect(resolved.jump).toMatchObject({ host: "gate", port: 2022, username: "bob" });
    // The URL's own user and port win over the config.
    expect(await resolveHost({ host: "box", user: "carol", port: 22 }, { home, agentSocket: "" })).toMatchObject({
      username: "carol",
      port: 22,
    });
    await rm(home, { recursive: true, force: true });
  });
});

describe("which sessions are remote", () => {
  const config = defaultConfig();
  config.remote.projects = {
    "/home/me/api": "ssh://box/srv/api",
    "/home/me/api/vendored": "ssh://gpu@other:2222/data/v",
  };
  it("maps a local project root (longest match) to its remote path", () => {
    expect(selectRemote("/home/me/api/src", ["/home/me/api/src"], {}, config)).toMatchObject({
      cwd: "/srv/api/src",
      roots: ["/srv/api/src"],
      url: "ssh://box/srv/api/src",
    });
    expect(selectRemote("/home/me/api/vendored/x", ["/home/me/api/vendored/x"], {}, config)).toMatchObject({
      cwd: "/data/v/x",
      spec: { host: "other", port: 2222, user: "gpu" },
    });
    expect(selectRemote("/home/me/other", ["/home/me/other"], {}, config)).toBeUndefined();
  });
  it("--remote puts every session there", () => {
    expect(selectRemote("/anywhere", ["/anywhere", "/extra"], { remote: "ssh://box/w" }, config)).toMatchObject({
      cwd: "/w",
      roots: ["/w"],
      unmapped: ["/extra"],
    });
  });
  it("maps file mentions under the local cwd to the remote cwd", () => {
    const blocks = remoteMentions(
      [
        { type: "file", path: "/l/p/src/a.ts", name: "a.ts", uri: "src/a.ts" },
        { type: "file", path: "/elsewhere/b", name: "b", uri: "/elsewhere/b" },
      ],
      "/l/p",
      "/r/p",
    );
    expect(blocks.map((b) => (b.type === "file" ? b.path : ""))).toEqual(["/r/p/src/a.ts", "/elsewhere/b"]);
  });
});
