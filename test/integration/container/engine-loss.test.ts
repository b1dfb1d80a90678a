import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createContainerBackend } from "../../../src/backends/container/container-backend.js";
import { createContainerLink } from "../../../src/backends/container/container-link.js";
import { loadDocker } from "../../../src/backends/container/engine.js";
import { checkDockerAvailable, createContainerTracker, createHelperContainer } from "../../support/docker.js";
import { startSocketProxy } from "../../support/socket-proxy.js";

// An engine that goes away mid-command ends that call with a clear error, and the workspace comes back
// when the engine does. The engine is reached through a proxy this test owns and cuts; the shared
// engine never stops.

const availability = await checkDockerAvailable();
const engineSocket = (process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").replace(/^unix:\/\//, "");
const unixEngine = !process.env.DOCKER_HOST || process.env.DOCKER_HOST.startsWith("unix://");

(availability.ok && unixEngine ? describe : describe.skip)("container workspace: the engine goes away", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const tracker = createContainerTracker(docker);
  let dir: string | undefined;
  afterAll(async () => {
    await tracker.removeAll();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("ends the running command and the calls made meanwhile with the reason, then reconnects with the files intact", async () => {
    dir = await mkdtemp(join(tmpdir(), "deep-acp-engine-proxy-"));
    const proxy = await startSocketProxy(join(dir, "engine.sock"), engineSocket);
    const containerId = await createHelperContainer(docker, tracker, "engine-loss");
    const viaProxy = await loadDocker({ socketPath: proxy.path });
    const link = createContainerLink({ docker: viaProxy, containerId, address: `unix://${proxy.path}` });
    const backend = createContainerBackend({ link, containerId, rootDir: "/ws" });
    expect((await backend.write("/ws/kept.txt", "survives\n")).error).toBeUndefined();

    let output = "";
    let started!: () => void;
    const seen = new Promise<void>((resolve) => (started = resolve));
    const running = backend.execute("echo started; sleep 60", {
      onOutput: (chunk) => {
        output += chunk;
        if (output.includes("started")) started();
      },
    });
    await seen;
    await proxy.cut();
    const ended = await running;
    expect(ended.exitCode).toBeNull();
    expect(ended.output).toContain(`the connection to the container engine at unix://${proxy.path} was lost`);
    expect(ended.output).toContain("the command's outcome is unknown");
    // While the engine is away, calls fail at once, saying where nothing answers.
    expect((await backend.read("/ws/kept.txt")).error).toMatch(
      /no container engine answers at unix:\/\/.*engine\.sock/,
    );
    expect((await backend.health()).ok).toBe(false);

    await proxy.restore();
    expect((await backend.read("/ws/kept.txt")).content).toBe("survives");
    expect((await backend.execute("echo back")).output).toBe("back\n");
    expect((await backend.health()).reconnects).toBe(1);
    await backend.close();
    await proxy.stop();
  });
});
