import { afterAll, describe, expect, it } from "vitest";
import { createContainerBackend, type ContainerBackend } from "../../../src/backends/container/container-backend.js";
import { createContainerLink } from "../../../src/backends/container/container-link.js";
import { describeBackendConformance } from "../../unit/backends/conformance.js";
import { checkDockerAvailable, createContainerTracker, createHelperContainer } from "../../support/docker.js";

// The backend contract, met inside a real container on a real engine: the workspace (/container-ws)
// exists only in the container, so every byte goes through the helper.

const availability = await checkDockerAvailable();

if (!availability.ok) {
  describe("backend conformance: container", () => {
    it.skip(`skipped: ${availability.reason}`, () => {});
  });
} else {
  const { docker } = availability;
  const tracker = createContainerTracker(docker);
  const backends: ContainerBackend[] = [];
  afterAll(async () => {
    for (const b of backends) await b.close();
    await tracker.removeAll();
  });
  it("write_file overwrites a file with one name in place (inode kept); a hard-linked one is replaced, its other name unchanged", async () => {
    const containerId = await createHelperContainer(docker, tracker, "writes");
    const b = createContainerBackend({
      link: createContainerLink({ docker, containerId, address: "test engine" }),
      containerId,
      rootDir: "/container-ws",
    });
    backends.push(b);
    const inode = async (path: string) => (await b.execute(`stat -c %i ${path}`)).output.trim();
    expect((await b.write("/container-ws/one.txt", "first version, longer\n")).error).toBeUndefined();
    const before = await inode("/container-ws/one.txt");
    expect((await b.write("/container-ws/one.txt", "second\n")).error).toBeUndefined();
    expect(await inode("/container-ws/one.txt")).toBe(before);
    expect((await b.read("/container-ws/one.txt")).content).toBe("second");

    await b.execute("ln /container-ws/one.txt /container-ws/other-name.txt");
    expect((await b.write("/container-ws/one.txt", "third\n")).error).toBeUndefined();
    expect(await inode("/container-ws/one.txt")).not.toBe(before);
    expect((await b.read("/container-ws/one.txt")).content).toBe("third");
    expect((await b.read("/container-ws/other-name.txt")).content).toBe("second");
  });

  let counter = 0;
  for (const ripgrep of [true, false]) {
    let backend: Promise<ContainerBackend> | undefined;
    const shared = () =>
      (backend ??= (async () => {
        const containerId = await createHelperContainer(docker, tracker, "conformance");
        const link = createContainerLink({ docker, containerId, address: "test engine" });
        const b = createContainerBackend({ link, containerId, rootDir: "/container-ws", ripgrep });
        backends.push(b);
        return b;
      })());
    describeBackendConformance(`container (${ripgrep ? "rg in the image" : "grep/find"})`, async () => {
      const b = await shared();
      const base = `/container-ws/t-${++counter}`;
      return {
        backend: b,
        base,
        // grep/find do not read .gitignore; that case runs with rg only.
        disk: ripgrep,
        cleanup: async () => void (await b.delete(base)),
      };
    });
  }
}
