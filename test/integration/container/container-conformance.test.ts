import { afterAll, describe, it } from "vitest";
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
