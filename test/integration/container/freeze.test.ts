import { afterAll, describe, expect, it } from "vitest";
import { createContainerBackend } from "../../../src/backends/container/container-backend.js";
import { createContainerLink } from "../../../src/backends/container/container-link.js";
import { freezeContainer } from "../../../src/backends/container/workspace-changes.js";
import { poll } from "../../support/poll.js";
import { checkDockerAvailable, createContainerTracker, createHelperContainer } from "../../support/docker.js";

// /apply's freeze (helper ops 19 and 20) on a real engine: every process in the container stops,
// even one another process keeps sending SIGCONT, and goes on after the thaw. The figures printed
// are the ones docs/architecture.md quotes (freeze+thaw against docker pause+unpause).

const availability = await checkDockerAvailable();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

(availability.ok ? describe : describe.skip)("container workspace: freezing the container's processes", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const tracker = createContainerTracker(docker);
  afterAll(() => tracker.removeAll());

  it("stops every process but the helper until the thaw, a SIGCONT sender included", async () => {
    const containerId = await createHelperContainer(docker, tracker, "freeze");
    const link = createContainerLink({ docker, containerId, address: "engine" });
    const backend = createContainerBackend({ link, containerId, rootDir: "/ws" });
    try {
      await (await link.channel()).request("mkdir", ["/ws"]);
      // A counter, and a process that keeps waking it up. Each is started again until it runs: the
      // command's end sends TERM to its process group, which can reach a child before its setsid.
      const alive = async (file: string) =>
        (await backend.execute(`test -s ${file} && kill -0 $(cat ${file}) && echo yes`)).output.includes("yes");
      const start = async (file: string, loop: string) =>
        poll(async () => {
          if (await alive(file)) return true;
          await backend.execute(`setsid -f sh -c 'echo $$ > ${file}; ${loop}' </dev/null >/dev/null 2>&1`);
          await sleep(50);
          return alive(file);
        });
      await start("/ws/pid", "i=0; while :; do i=$((i+1)); echo $i > /ws/count; sleep 0.01; done");
      await start("/ws/sender", "while :; do kill -CONT $(cat /ws/pid); done");
      const count = async () => Number((await backend.read("/ws/count")).content ?? 0);
      const frozen = await freezeContainer(link);
      expect(frozen.notFrozen).toBeUndefined();
      expect(frozen.processes).toBeGreaterThanOrEqual(2);
      const at = await count();
      await sleep(300);
      expect(await count()).toBe(at);
      // The helper still serves reads and writes while the rest is stopped.
      expect((await backend.write("/ws/during.txt", "x")).error).toBeUndefined();
      await frozen.thaw();
      await poll(async () => (await count()) > at);
    } finally {
      await link.close();
    }
  });
});
