import type { Docker } from "../engine.js";
import { imageOnEngine } from "../engine.js";
import { packTree } from "../project-archive.js";
import { relativeWithin } from "../../../util/path-within.js";
import { CONTEXT_SKIPPED } from "./devcontainer-inputs.js";
import { IMAGE_LABELS, type DevContainerPlan } from "./devcontainer-plan.js";

// The image a dev container plan names: `image` as it is (it must be on the engine: nothing is
// pulled), or `build.dockerfile` built on the engine once and tagged by the content that went into
// it (devcontainer-plan.ts), labelled with the project it came from so `deep-acp workspaces` lists
// and removes it. The context is sent as checked: its real path, inside the project.

export async function devContainerImage(
  docker: Docker,
  plan: DevContainerPlan,
  options: { network: string; onProgress?: (line: string) => void },
): Promise<string> {
  const { dev, build } = plan;
  if (!build || !dev.build) return plan.image;
  if (await imageOnEngine(docker, build.tag)) return build.tag;
  const { dockerfile, context, args } = dev.build;
  const rel = relativeWithin(context, dockerfile);
  if (rel === undefined) throw new Error(`${dev.file}: the Dockerfile must be inside the build context ${context}`);
  const { stream, done } = await packTree(context, { prefix: "", skip: CONTEXT_SKIPPED });
  const output = await docker.buildImage(stream as unknown as NodeJS.ReadableStream, {
    t: build.tag,
    dockerfile: rel,
    buildargs: args,
    networkmode: options.network,
    rm: true,
    labels: {
      [IMAGE_LABELS.image]: "devcontainer",
      [IMAGE_LABELS.root]: plan.root,
      [IMAGE_LABELS.definition]: dev.file,
    },
  });
  await done;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      output,
      (error: Error | null, events: Array<{ error?: string }>) => {
        const failed = error?.message ?? events.find((e) => e.error)?.error;
        if (failed) reject(new Error(`building ${dockerfile} failed: ${failed.trim()}`));
        else resolve();
      },
      (event: { stream?: string }) => {
        if (event.stream?.trim()) options.onProgress?.(event.stream.trim());
      },
    );
  });
  return build.tag;
}
