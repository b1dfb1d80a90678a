import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import type { DevContainer } from "./devcontainer.js";
import { CONTEXT_SKIPPED, contextHash } from "./devcontainer-inputs.js";

// What a dev container will do, computed before anything is built or started, for the editor's
// dialog: the image or the Dockerfile and its context, the commands run inside, what is ignored.
// Two hashes come out of it:
// - `tag`, the image built from it: the definition, the Dockerfile and every file of the context
//   (the same content on any path, or in any clone, reuses the image; a changed file builds anew).
// - `fingerprint`, what an "always" answer is bound to: the project root, the mount mode, the
//   definition and the Dockerfile (what decides what runs) and where the context is. Not the
//   context's files: with `context: ".."` every edit in the project would ask again, and those files
//   are the project's, which the container holds anyway.

export const IMAGE_REPOSITORY = "deep-acp-devcontainer";

/** Labels on every image deep-acp builds, so `deep-acp workspaces` can list and remove them. */
export const IMAGE_LABELS = {
  image: "deep-acp.image",
  root: "deep-acp.root",
  definition: "deep-acp.definition",
} as const;

export type DevContainerPlan = {
  root: string;
  mount: "copy" | "bind";
  dev: DevContainer;
  /** Set when a Dockerfile is built: its text, the context's hash and the image tag. */
  build?: { dockerfileText: string; contextSha: string; tag: string };
  /** The image the container starts from (the named one, or the tag to build). */
  image: string;
  fingerprint: string;
  /** Markdown for the dialog (describePlan). */
  description: string;
};

const sha = (value: unknown) =>
  createHash("sha256")
    .update(typeof value === "string" ? value : JSON.stringify(value))
    .digest("hex");

/** The plan of a checked definition (its paths real and inside `root`). */
export async function planDevContainer(
  root: string,
  dev: DevContainer,
  mount: "copy" | "bind",
): Promise<DevContainerPlan> {
  const definitionSha = sha(dev.text);
  if (!dev.build) {
    const image = dev.image!;
    return described({ root, mount, dev, image, fingerprint: sha([root, mount, definitionSha]) });
  }
  const { dockerfile, context, args } = dev.build;
  const dockerfileText = await readFile(dockerfile, "utf8").catch((error: Error) => {
    throw new Error(`${dev.file}: cannot read the Dockerfile ${dockerfile}: ${error.message}`);
  });
  const contextSha = await contextHash(context);
  const where = { dockerfile: relative(root, dockerfile), context: relative(root, context) || ".", args };
  const tag = `${IMAGE_REPOSITORY}:${sha([definitionSha, sha(dockerfileText), contextSha, where]).slice(0, 16)}`;
  return described({
    root,
    mount,
    dev,
    build: { dockerfileText, contextSha, tag },
    image: tag,
    fingerprint: sha([root, mount, definitionSha, sha(dockerfileText), where]),
  });
}

const described = (plan: Omit<DevContainerPlan, "description">): DevContainerPlan => ({
  ...plan,
  description: describePlan(plan),
});

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
const block = (text: string) => ["```", text.replace(/```/g, "'''"), "```"];

/** Markdown for the dialog: exactly what will be built, started and run, and what is not honoured. */
export function describePlan(plan: Omit<DevContainerPlan, "description">): string {
  const { dev } = plan;
  const lines = [`The dev container ${code(dev.file)} of ${code(plan.root)} will:`, ""];
  if (plan.build) {
    const { dockerfile, context, args } = dev.build!;
    lines.push(
      `- **build** the image ${code(plan.build.tag)} from ${code(dockerfile)} (its network is [workspace] network, default none)`,
      `- send the build context ${code(context)} to the engine (links as links; left out: ${CONTEXT_SKIPPED.join(", ")})`,
    );
    if (Object.keys(args).length > 0) lines.push(`- build args: ${Object.keys(args).map(code).join(", ")}`);
    lines.push("", "Dockerfile:", ...block(plan.build.dockerfileText.slice(0, 4000)));
  } else lines.push(`- **start** the image ${code(plan.image)} (it must already be on the engine: nothing is pulled)`);
  lines.push(
    "",
    plan.mount === "bind"
      ? `- **mount** ${code(plan.root)} into the container (bind mode: edits are live on this machine)`
      : `- **copy** ${code(plan.root)} into the container (nothing reaches this machine until /apply)`,
  );
  if (dev.workspaceFolder) lines.push(`- at ${code(dev.workspaceFolder)} inside`);
  if (dev.user) lines.push(`- run as the user ${code(dev.user)}`);
  const env = Object.keys(dev.containerEnv);
  if (env.length > 0) lines.push(`- set ${env.map(code).join(", ")} inside`);
  if (dev.postCreate.length > 0) {
    lines.push("- **run** once the container exists (postCreateCommand):");
    for (const line of dev.postCreate) lines.push(...block(line));
  } else lines.push("- run no postCreateCommand");
  if (dev.ignored.length > 0)
    lines.push("", `Not honoured (nothing of these runs or is mounted): ${dev.ignored.map(code).join(", ")}.`);
  lines.push("", '"Always" trusts this definition and Dockerfile for this folder; a change to either asks again.');
  return lines.join("\n");
}
