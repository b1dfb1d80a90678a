// Attack suite, round 4: `deep-acp workspaces rm` loses no work it cannot see. A copy-mode container
// holding a change nobody applied, listed from another HOME (no record of what was copied in, so
// its changes are unknown), is kept unless --force, and the refusal says why. Built binary, real
// engine, fake model; the test removes only the containers it made, by id.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { checkDockerAvailable, createContainerTracker, TEST_IMAGE } from "../support/docker.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const availability = await checkDockerAvailable();
const env = process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {};

(availability.ok ? describe : describe.skip)("attack: workspaces rm from another HOME", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const suite = useAgentSuite({ name: "workspaces-rm" });
  const tracker = createContainerTracker(docker);
  let otherHome: string | undefined;
  afterEach(async () => {
    await tracker.removeAll();
    if (otherHome) await rm(otherHome, { recursive: true, force: true });
  });

  it("keeps a container whose work it cannot see unless --force, and says why", async () => {
    suite.model.enqueue(toolTurn("execute", { command: "echo x > unsaved.txt" }), textTurn("Done."));
    const run = await suite.run(["-n", "write", "--yes", "--workspace", `docker://${TEST_IMAGE}`], { env });
    expect(run.code).toBe(0);
    const [container] = await docker.listContainers({
      all: true,
      filters: { label: [`deep-acp.root=${suite.project}`] },
    });
    tracker.add(container!.Id);
    const id = container!.Id.slice(0, 12);

    otherHome = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-other-home-")));
    const elsewhere = { ...env, HOME: otherHome };
    const listed = await suite.run(["workspaces", "list"], { env: elsewhere });
    expect(listed.stdout).toContain("unapplied changes unknown");
    const refused = await suite.run(["workspaces", "rm", id], { env: elsewhere });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/may hold unapplied work \(no record of what was copied in/);
    expect(refused.stderr).toContain("--force");
    expect((await docker.getContainer(container!.Id).inspect()).Id).toBe(container!.Id);

    const forced = await suite.run(["workspaces", "rm", id, "--force"], { env: elsewhere });
    expect(forced.code).toBe(0);
    await expect(docker.getContainer(container!.Id).inspect()).rejects.toThrow();
  });
});
