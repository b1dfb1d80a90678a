import type { ContainerSpec } from "./container-url.js";
import { formatContainerUrl } from "./container-url.js";
import { homedir } from "node:os";
import { readDevContainer } from "./devcontainer/devcontainer.js";
import { checkDevContainerInputs, containerProjectRoot } from "./devcontainer/devcontainer-inputs.js";
import { describeEngine, engineAddress, engineHealth, imageOnEngine, isRemoteEngine, loadDocker } from "./engine.js";

/**
 * doctor's check of a container workspace, without making a container: the engine (which, where,
 * how it answers), and the image (present on the engine, or the dev container definition readable).
 */
export async function checkContainerWorkspace(
  spec: ContainerSpec,
  projectRoot: string,
): Promise<{ ok: boolean; summary: string }> {
  const address = engineAddress();
  const url = formatContainerUrl(spec);
  const docker = await loadDocker();
  const health = await engineHealth(docker, address);
  if (!health.ok) return { ok: false, summary: `${url} — ${describeEngine(health)}` };
  if (spec.mount === "bind" && isRemoteEngine(address))
    return {
      ok: false,
      summary: `${url} — ${describeEngine(health)}; bind mode cannot work with a remote engine (use copy mode)`,
    };
  let image: string;
  try {
    // The same refusals a session would meet: a root holding HOME, inputs outside the project.
    const realRoot = await containerProjectRoot(projectRoot, homedir());
    if (spec.kind === "devcontainer") {
      const dev = await checkDevContainerInputs(realRoot, await readDevContainer(projectRoot));
      if (dev.build) return { ok: true, summary: `${url} — ${describeEngine(health)}; builds ${dev.build.dockerfile}` };
      image = dev.image!;
    } else image = spec.image;
  } catch (error) {
    return { ok: false, summary: `${url} — ${describeEngine(health)}; ${(error as Error).message}` };
  }
  const present = await imageOnEngine(docker, image);
  return present
    ? { ok: true, summary: `${url} — ${describeEngine(health)}; image ${image} present` }
    : {
        ok: false,
        summary: `${url} — ${describeEngine(health)}; image ${image} is not on the engine (docker pull ${image})`,
      };
}
