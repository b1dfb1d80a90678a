import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSshWorkspace } from "../../../src/backends/ssh/ssh-workspace.js";
import { checkSshdAvailable, startSshd, writeSshHome, type TestSshd } from "../../support/sshd.js";

// Sessions on the same host share one SSH connection (one sshd session process on the server);
// it closes when the last of them does.

const availability = checkSshdAvailable();
const suite = availability.ok ? describe : describe.skip;
if (!availability.ok) describe("ssh connection pool", () => it.skip(`skipped: ${availability.reason}`, () => {}));

suite("ssh connection pool", () => {
  let sshd: TestSshd;
  let home: string;
  beforeAll(async () => {
    sshd = await startSshd();
    home = await mkdtemp(join(tmpdir(), "deep-acp-pool-home-"));
    await writeSshHome(home, sshd);
  });
  afterAll(async () => {
    await sshd?.stop();
    await rm(home, { recursive: true, force: true });
  });

  /** Client connections the server holds, besides the one this check itself uses. */
  const serverConnections = async () =>
    (await sshd.exec("ps -eo args")).stdout.split("\n").filter((l) => /^sshd: .*@notty/.test(l)).length - 1;

  it("two workspaces on one host share a connection until the last one closes", async () => {
    const spec = { user: sshd.user, host: "127.0.0.1", port: sshd.port };
    const a = await openSshWorkspace({ spec: { ...spec, path: sshd.remoteRoot }, home, agentSocket: "" });
    const b = await openSshWorkspace({ spec: { ...spec, path: `${sshd.remoteRoot}/sub` }, home, agentSocket: "" });
    expect((await a.write(`${sshd.remoteRoot}/sub/x.txt`, "shared")).error).toBeUndefined();
    expect((await b.read("x.txt")).content).toBe("shared");
    expect((await b.execute("pwd")).output).toBe(`${sshd.remoteRoot}/sub\n`);
    expect(await serverConnections()).toBe(1);
    await a.close();
    expect((await b.read("x.txt")).content).toBe("shared");
    await b.close();
    let open = 1;
    for (let i = 0; i < 50 && open > 0; i++) open = await serverConnections();
    expect(open).toBe(0);
  });
});
