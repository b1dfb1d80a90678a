import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { npmVersion, validateAgentManifest, validateIcon } from "./registry-rules.js";

const root = join(import.meta.dirname, "..", "..", "..");
const readJson = async (file: string) => JSON.parse(await readFile(join(root, file), "utf8")) as Record<string, any>;

describe("acp-manifest.json", () => {
  it("is a valid registry agent.json for the folder deep-acp", async () => {
    expect(validateAgentManifest(await readJson("acp-manifest.json"), "deep-acp")).toEqual([]);
  });

  it("has the version, name and license of package.json, and pins the npx package to that version", async () => {
    const [manifest, pkg] = await Promise.all([readJson("acp-manifest.json"), readJson("package.json")]);
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.license).toBe(pkg.license);
    expect(manifest.distribution.npx.package).toBe(`${pkg.name}@${pkg.version}`);
    // The registry launches `npx <package> <args>`: the package's bin must carry the package name.
    expect(Object.keys(pkg.bin)).toContain(pkg.name);
    expect(pkg.files).toEqual(expect.arrayContaining(["acp-manifest.json", "icon.svg"]));
  });
});

describe("validateAgentManifest", () => {
  const good = {
    id: "my-agent",
    name: "My Agent",
    version: "1.2.3",
    description: "Does things.",
    repository: "https://github.com/org/my-agent",
    authors: ["Org"],
    license: "MIT",
    distribution: { npx: { package: "@org/my-agent@1.2.3", args: ["--acp"], env: { A: "1" } } },
  };
  const binary = (platforms: string[], archive = "https://example.com/download/v1.2.3/a.tar.gz") =>
    Object.fromEntries(platforms.map((p) => [p, { archive, cmd: "./my-agent" }]));

  it("accepts a complete document, including a binary distribution for all three systems", () => {
    expect(validateAgentManifest(good, "my-agent")).toEqual([]);
    const withBinary = {
      ...good,
      distribution: { binary: binary(["darwin-aarch64", "linux-x86_64", "windows-x86_64"]) },
    };
    expect(validateAgentManifest(withBinary)).toEqual([]);
  });

  it.each([
    ["a missing description", { description: undefined }, "description: required"],
    ["an id with capitals", { id: "My-Agent" }, "id: must match"],
    ["an id starting with a digit", { id: "1agent" }, "id: must match"],
    ["a version that is not x.y.z", { version: "1.2" }, "version: must start with x.y.z"],
    ["a repository that is not a URI", { repository: "github.com/org" }, "repository: must be a URI"],
    ["a license that is not SPDX", { license: "MIT License (see file)" }, "license: SPDX"],
    ["authors that are not strings", { authors: [1] }, "authors: list of strings"],
    ["an empty distribution", { distribution: {} }, "distribution: object with at least one"],
    ["an unknown distribution kind", { distribution: { docker: { image: "x" } } }, "distribution.docker: not allowed"],
    ["an npx package that is empty", { distribution: { npx: { package: "" } } }, "distribution.npx.package: non-empty"],
    [
      "an npx entry with extra keys",
      { distribution: { npx: { package: "a@1.2.3", cmd: "a" } } },
      "distribution.npx.cmd: not allowed",
    ],
    [
      "non-string args",
      { distribution: { npx: { package: "a@1.2.3", args: [1] } } },
      "distribution.npx.args: list of strings",
    ],
    [
      "a package pinned to another version",
      { distribution: { npx: { package: "a@1.2.4" } } },
      "pinned 1.2.4 but version is 1.2.3",
    ],
    ["a package at @latest", { distribution: { npx: { package: "a@latest" } } }, "pin a version instead of @latest"],
    [
      "binaries missing an OS",
      { distribution: { binary: binary(["linux-x86_64", "darwin-aarch64"]) } },
      "no build for windows",
    ],
    [
      "an unknown platform",
      { distribution: { binary: binary(["linux-x86_64", "darwin-aarch64", "windows-x86_64", "beos-x86"]) } },
      "unknown platform",
    ],
    [
      "an installer archive",
      {
        distribution: {
          binary: binary(["linux-x86_64", "darwin-aarch64", "windows-x86_64"], "https://e.com/v1.2.3/a.dmg"),
        },
      },
      "installers are not supported",
    ],
    [
      "a release of another version",
      {
        distribution: {
          binary: binary(["linux-x86_64", "darwin-aarch64", "windows-x86_64"], "https://e.com/download/v9.9.9/a.zip"),
        },
      },
      "release 9.9.9",
    ],
  ])("rejects %s", (_what, change, message) => {
    const doc: Record<string, unknown> = { ...good, ...change };
    for (const [key, value] of Object.entries(change)) if (value === undefined) delete doc[key];
    expect(validateAgentManifest(doc).join("\n")).toContain(message);
  });

  it("requires the id to match the registry folder", () => {
    expect(validateAgentManifest(good, "other")).toEqual(['id: must equal the folder name "other"']);
  });

  it("reads the pinned version of scoped and unscoped specs", () => {
    expect(npmVersion("@org/a@1.0.0")).toBe("1.0.0");
    expect(npmVersion("a@2.0.0")).toBe("2.0.0");
    expect(npmVersion("@org/a")).toBeUndefined();
  });
});

describe("icon.svg", () => {
  it("is a 16x16 monochrome icon that follows the theme color", async () => {
    expect(validateIcon(await readFile(join(root, "icon.svg"), "utf8"))).toEqual([]);
  });

  const icon = (attrs: string, body = '<path d="M0 0h16v16z"/>') =>
    `<svg xmlns="http://www.w3.org/2000/svg" ${attrs}>${body}</svg>`;

  it("accepts a viewBox-only icon painted with currentColor", () => {
    expect(validateIcon(icon('viewBox="0 0 16 16" fill="currentColor"'))).toEqual([]);
  });

  it.each([
    ["a 24x24 icon", icon('width="24" height="24" fill="currentColor"'), "must be 16x16"],
    ["no size at all", icon('fill="currentColor"'), "no width/height or viewBox"],
    [
      "a hex fill",
      icon('width="16" height="16" fill="currentColor"', '<path fill="#ff0000" d="M0 0"/>'),
      "hard-coded color: <path> fill = #ff0000",
    ],
    [
      "a named stroke",
      icon('width="16" height="16" fill="none" stroke="black"'),
      "hard-coded color: <svg> stroke = black",
    ],
    [
      "a colored inline style",
      icon('width="16" height="16" fill="currentColor"', '<path style="fill: rgb(1,2,3)" d="M0 0"/>'),
      "style fill = rgb(1,2,3)",
    ],
    [
      "a <style> block",
      icon('width="16" height="16" fill="currentColor"', "<style>path { stroke: #333 }</style>"),
      "<style> stroke = #333",
    ],
    ["a gradient", icon('width="16" height="16" fill="currentColor"', '<linearGradient id="g"/>'), "gradients"],
    ["a default (black) fill", icon('width="16" height="16" stroke="currentColor"'), "default fill is black"],
  ])("rejects %s", (_what, svg, message) => {
    expect(validateIcon(svg).join("\n")).toContain(message);
  });
});
