import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatContainerUrl, parseContainerUrl } from "../../../../src/backends/container/container-url.js";
import { parseMemory } from "../../../../src/backends/container/container-workspace.js";
import { readDevContainer } from "../../../../src/backends/container/devcontainer/devcontainer.js";
import { diffTree, type TreeEntry } from "../../../../src/backends/container/workspace-changes.js";
import { sha256 } from "../../../../src/backends/container/project-archive.js";
import { defaultConfig } from "../../../../src/config/config-defaults.js";
import { selectWorkspace } from "../../../../src/session/index.js";

describe("container workspace URLs", () => {
  it("parses docker://IMAGE and devcontainer, each in copy or bind mode", () => {
    expect(parseContainerUrl("docker://node:22")).toEqual({ kind: "docker", image: "node:22", mount: "copy" });
    expect(parseContainerUrl("docker://ghcr.io/org/img@sha256:abc?mount=bind")).toEqual({
      kind: "docker",
      image: "ghcr.io/org/img@sha256:abc",
      mount: "bind",
    });
    expect(parseContainerUrl("devcontainer")).toEqual({ kind: "devcontainer", mount: "copy" });
    expect(parseContainerUrl("devcontainer?mount=bind")).toEqual({ kind: "devcontainer", mount: "bind" });
    expect(formatContainerUrl(parseContainerUrl("docker://img?mount=copy"))).toBe("docker://img");
  });

  it("refuses what it cannot honour, saying what is expected", () => {
    expect(() => parseContainerUrl("docker://")).toThrow(/not an image name/);
    expect(() => parseContainerUrl("docker://img?mount=overlay")).toThrow(/mount must be "copy" or "bind"/);
    expect(() => parseContainerUrl("docker://img?net=host")).toThrow(/unknown option "net"/);
    expect(() => parseMemory("lots")).toThrow(/must look like "2g"/);
    expect(parseMemory("512m")).toBe(512 * 1024 * 1024);
  });

  it("--workspace, then the longest mapped project, then [workspace] default", () => {
    const config = defaultConfig();
    config.workspace.default = "docker://base";
    config.workspace.projects = { "/home/me": "docker://home", "/home/me/api": "devcontainer?mount=bind" };
    config.remote.projects = { "/home/me/api/remote": "ssh://box/srv/api" };
    const at = (cwd: string, flags = {}) => selectWorkspace(cwd, [cwd], flags, config);
    expect(at("/home/me/api/src")).toMatchObject({ kind: "container", url: "devcontainer?mount=bind" });
    expect(at("/home/me/api/src")!).toHaveProperty("source", 'config.toml [workspace.projects] "/home/me/api"');
    expect(at("/home/me/x")).toMatchObject({ kind: "container", url: "docker://home" });
    expect(at("/srv")).toMatchObject({
      kind: "container",
      url: "docker://base",
      source: "config.toml [workspace] default",
    });
    expect(at("/home/me/api/remote/x")).toMatchObject({ kind: "ssh", remote: { cwd: "/srv/api/x" } });
    expect(at("/srv", { workspace: "docker://flag" })).toMatchObject({ url: "docker://flag", source: "--workspace" });
    expect(at("/srv", { workspace: "ssh://box/p" })).toMatchObject({ kind: "ssh", remote: { cwd: "/p" } });
  });
});

describe("dev container definitions", () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("reads the honoured fields, substitutes the workspace variables and never the host environment", async () => {
    root = await mkdtemp(join(tmpdir(), "deep-acp-devc-"));
    await mkdir(join(root, ".devcontainer"));
    await writeFile(
      join(root, ".devcontainer", "devcontainer.json"),
      `{ // JSONC
        "build": { "dockerfile": "../docker/Dockerfile", "context": "..", "args": { "V": "1" } },
        "workspaceFolder": "/workspaces/\${localWorkspaceFolderBasename}",
        "containerEnv": { "ROOT": "\${containerWorkspaceFolder}", "KEY": "\${localEnv:HOME}" },
        "remoteUser": "dev",
        "postCreateCommand": { "a": "npm ci", "b": ["echo", "two words"] },
        "features": {},
      }`,
    );
    const dev = await readDevContainer(root);
    expect(dev.build).toEqual({ dockerfile: join(root, "docker", "Dockerfile"), context: root, args: { V: "1" } });
    const folder = `/workspaces/${root.split("/").pop()}`;
    expect(dev.workspaceFolder).toBe(folder);
    expect(dev.containerEnv).toEqual({ ROOT: folder, KEY: "" });
    expect(dev.user).toBe("dev");
    expect(dev.postCreate).toEqual(["npm ci", "echo 'two words'"]);
    expect(dev.ignored).toEqual(["features"]);
  });

  it("says which files it looked for, and what is wrong with one that is broken", async () => {
    root = await mkdtemp(join(tmpdir(), "deep-acp-devc-"));
    await expect(readDevContainer(root)).rejects.toThrow(/neither .*devcontainer\.json nor .*\.devcontainer\.json/);
    await writeFile(join(root, ".devcontainer.json"), `{ "name": "x" }`);
    await expect(readDevContainer(root)).rejects.toThrow(/names neither "image" nor "build.dockerfile"/);
    await writeFile(join(root, ".devcontainer.json"), `{ "image": `);
    await expect(readDevContainer(root)).rejects.toThrow(/does not parse/);
  });
});

describe("copy mode changes", () => {
  const file = (text: string, mtime = 100, mode = 0o644): TreeEntry => ({
    type: "file",
    mode,
    size: Buffer.byteLength(text),
    mtime,
    content: async () => Buffer.from(text),
  });
  const base = (text: string, mtime = 100, mode = 0o644) => ({
    type: "file" as const,
    mode,
    size: Buffer.byteLength(text),
    mtime,
    sha256: sha256(Buffer.from(text)),
  });

  it("finds added, modified (content, mode, link target) and deleted files; a touched but equal file is unchanged", async () => {
    const baseline = {
      "same.txt": base("same"),
      "touched.txt": base("same"),
      "edited.txt": base("aaaa"),
      "chmod.sh": base("x"),
      "gone.txt": base("bye"),
      link: { type: "link" as const, target: "a" },
    };
    const tree = new Map<string, TreeEntry>([
      ["same.txt", file("same")],
      ["touched.txt", file("same", 200)],
      ["edited.txt", file("bbbb", 200)],
      ["chmod.sh", file("x", 100, 0o755)],
      ["link", { type: "link", mode: 0o777, size: 1, mtime: 1, target: "b" }],
      ["new.txt", file("new")],
      ["dir", { type: "dir", mode: 0o755, size: 0, mtime: 1 }],
    ]);
    const changes = (await diffTree(baseline, tree)).map((c) => `${c.kind} ${c.path}`);
    expect(changes).toEqual([
      "modified chmod.sh",
      "modified edited.txt",
      "deleted gone.txt",
      "modified link",
      "added new.txt",
    ]);
  });
});
