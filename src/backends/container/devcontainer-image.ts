import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { DevContainer } from "./devcontainer.js";
import type { Docker } from "./engine.js";
import { packTree } from "./project-archive.js";
import { relativeWithin } from "../../util/path-within.js";

// The image a dev container definition names: `image` as it is (it must be on the engine: nothing is
// pulled), or `build.dockerfile` built on the engine once and tagged by what went into it (the
// Dockerfile's text, the context folder and the build args), so the next session reuses it.

export async function devContainerImage(
  docker: Docker,
  dev: DevContainer,
  options: { network: string; onProgress?: (line: string) => void },
): Promise<string> {
  if (!dev.build) return dev.image!;
  const { dockerfile, context, args } = dev.build;
  const text = await readFile(dockerfile, "utf8").catch((error: Error) => {
    throw new Error(`${dev.file}: cannot read the Dockerfile ${dockerfile}: ${error.message}`);
  });
  const key = createHash("sha256")
    .update(JSON.stringify([text, context, args]))
    .digest("hex")
    .slice(0, 16);
  const tag = `deep-acp-devcontainer:${key}`;
  if (
    await docker
      .getImage(tag)
      .inspect()
      .then(
        () => true,
        () => false,
      )
  )
    return tag;
  const rel = relativeWithin(context, dockerfile);
  if (rel === undefined) throw new Error(`${dev.file}: the Dockerfile must be inside the build context ${context}`);
  const { stream, done } = await packTree(context, { prefix: "", skip: [".git", "node_modules"] });
  const output = await docker.buildImage(stream as unknown as NodeJS.ReadableStream, {
    t: tag,
    dockerfile: rel,
    buildargs: args,
    networkmode: options.network,
    rm: true,
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
  return tag;
}
