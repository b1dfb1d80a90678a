import { cp } from "node:fs/promises";
import { join } from "node:path";
import { loadDocker, type Docker } from "../../src/backends/container/engine.js";
import { HELPER_CONTAINER } from "../../src/backends/container/helper-script.js";

// The real Docker engine for the container-workspace tests: whatever DOCKER_HOST names (else the
// default socket), with the image scripts/container-test-image.sh builds (.ci/run starts the engine and
// builds it). Tests skip with the reason when either is missing. Every test removes the containers it
// created, by id, and nothing else.

export const TEST_IMAGE = process.env.DEEP_ACP_TEST_IMAGE ?? "deep-acp-test/bookworm:1";

// A remote engine (scripts/engine-over-ssh.sh): DOCKER_HOST=ssh://..., and the ~/.ssh that reaches it
// (a key and a known_hosts entry) in DEEP_ACP_TEST_ENGINE_HOME, copied into each HOME the agent gets.
const ENGINE_HOME = process.env.DEEP_ACP_TEST_ENGINE_HOME;

/** Whether the engine is on "another machine" (host paths mean nothing there: no bind mode). */
export const REMOTE_ENGINE = /^(ssh|tcp):\/\//.test(process.env.DOCKER_HOST ?? "");

/** The environment the agent needs for the engine the tests use. */
export const ENGINE_ENV: Record<string, string> = {
  ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
  ...(process.env.SSH_AUTH_SOCK && REMOTE_ENGINE ? { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK } : {}),
};

/** Gives `home` the ~/.ssh that reaches a remote engine (nothing to do for a local one). */
export async function prepareEngineHome(home: string): Promise<void> {
  if (ENGINE_HOME && REMOTE_ENGINE) await cp(join(ENGINE_HOME, ".ssh"), join(home, ".ssh"), { recursive: true });
}

export type EngineAvailability = { ok: true; docker: Docker } | { ok: false; reason: string };

let checked: Promise<EngineAvailability> | undefined;

export function checkDockerAvailable(): Promise<EngineAvailability> {
  checked ??= (async (): Promise<EngineAvailability> => {
    let docker: Docker;
    try {
      docker = await loadDocker(ENGINE_HOME ? { home: ENGINE_HOME } : {});
    } catch (error) {
      return { ok: false, reason: `dockerode did not load: ${(error as Error).message}` };
    }
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("no answer within 5 s"), 5000).unref());
    const ping = docker.ping().then(
      () => "",
      (error: Error) => error.message,
    );
    const failure = await Promise.race([ping, timeout]);
    if (failure) return { ok: false, reason: `no Docker engine answers (${failure}); .ci/run starts one` };
    try {
      await docker.getImage(TEST_IMAGE).inspect();
    } catch {
      return { ok: false, reason: `image ${TEST_IMAGE} is missing; build it with scripts/container-test-image.sh` };
    }
    return { ok: true, docker };
  })();
  return checked;
}

/** Containers a test created; `removeAll` removes exactly those, by id. */
export function createContainerTracker(docker: Docker) {
  const ids = new Set<string>();
  return {
    add(id: string) {
      ids.add(id);
    },
    ids,
    async removeAll(): Promise<void> {
      for (const id of ids)
        await docker
          .getContainer(id)
          .remove({ force: true, v: true })
          .catch(() => undefined);
      ids.clear();
    },
  };
}

/** Containers carrying `deep-acp.session=<sessionId>` (the ones the agent made for that session). */
export async function containersOfSession(docker: Docker, sessionId: string) {
  return docker.listContainers({ all: true, filters: { label: [`deep-acp.session=${sessionId}`] } });
}

/** A bare container whose main process is the workspace helper (as the agent makes them), tracked for removal. */
export async function createHelperContainer(
  docker: Docker,
  tracker: ReturnType<typeof createContainerTracker>,
  label: string,
): Promise<string> {
  const container = await docker.createContainer({
    ...HELPER_CONTAINER,
    Image: TEST_IMAGE,
    Labels: { "deep-acp.test": label },
    HostConfig: { NetworkMode: "none" },
  });
  tracker.add(container.id);
  return container.id;
}
