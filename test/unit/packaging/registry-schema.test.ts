import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateAgentManifest } from "./registry-rules.js";

// acp-manifest.json as the registry reads it: validated by a JSON Schema validator against our
// committed rendition of the registry's agent.schema.json (test/fixtures/packaging/registry), and
// the release build's copy (scripts/release-manifest.mjs) with every archive's real sha256.

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..");
const readJson = async (file: string) => JSON.parse(await readFile(join(root, file), "utf8")) as Record<string, any>;

async function registryValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat("uri", (value: string) => URL.canParse(value));
  return ajv.compile(await readJson("test/fixtures/packaging/registry/agent.schema.json"));
}

describe("acp-manifest.json against the registry's schema", () => {
  it("validates, with license_url, the icon and a binary for each system", async () => {
    const validate = await registryValidator();
    const manifest = await readJson("acp-manifest.json");
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    expect(manifest.license_url).toMatch(new RegExp(`/v${manifest.version}/LICENSE$`));
    expect(manifest.icon).toBe("./icon.svg");
    expect(Object.keys(manifest.distribution.binary).sort()).toEqual([
      "darwin-aarch64",
      "darwin-x86_64",
      "linux-aarch64",
      "linux-x86_64",
      "windows-x86_64",
    ]);
  });

  it("the schema rejects what the registry rejects: no license_url, a bad sha256, an unknown key", async () => {
    const validate = await registryValidator();
    const manifest = await readJson("acp-manifest.json");
    const { license_url: _dropped, ...withoutLicenseUrl } = manifest;
    expect(validate(withoutLicenseUrl)).toBe(false);
    const badSha = structuredClone(manifest);
    badSha.distribution.binary["linux-x86_64"].sha256 = "not-hex";
    expect(validate(badSha)).toBe(false);
    expect(validate({ ...manifest, homepage: "https://example.com" })).toBe(true);
    const extraKey = structuredClone(manifest);
    extraKey.distribution.binary["linux-x86_64"].url = "https://example.com";
    expect(validate(extraKey)).toBe(false);
  });
});

describe("scripts/release-manifest.mjs", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deep-acp-release-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("fills each archive's sha256 from the built archives, and the result still validates", async () => {
    const manifest = await readJson("acp-manifest.json");
    const stage = join(dir, "repo");
    await mkdir(join(stage, "release"), { recursive: true });
    await cp(join(root, "acp-manifest.json"), join(stage, "acp-manifest.json"));
    const expected: Record<string, string> = {};
    for (const [platform, target] of Object.entries<{ archive: string }>(manifest.distribution.binary)) {
      const bytes = `archive for ${platform}`;
      await writeFile(join(stage, "release", basename(new URL(target.archive).pathname)), bytes);
      expected[platform] = createHash("sha256").update(bytes).digest("hex");
    }
    const { stdout } = await run(
      process.execPath,
      [join(root, "scripts", "release-manifest.mjs"), "manifest", `v${manifest.version}`, "release"],
      { cwd: stage },
    );
    const released = JSON.parse(stdout);
    for (const [platform, sha] of Object.entries(expected))
      expect(released.distribution.binary[platform].sha256).toBe(sha);
    const validate = await registryValidator();
    expect(validate(released), JSON.stringify(validate.errors)).toBe(true);
    expect(validateAgentManifest(released, "deep-acp")).toEqual([]);
  });

  it("refuses a tag that is not the manifest's version, and a missing archive", async () => {
    const stage = join(dir, "repo");
    const script = join(root, "scripts", "release-manifest.mjs");
    await expect(run(process.execPath, [script, "manifest", "v9.9.9", "release"], { cwd: stage })).rejects.toThrow(
      /is not v/,
    );
    await mkdir(join(stage, "empty"), { recursive: true });
    const version = (await readJson("acp-manifest.json")).version as string;
    await expect(run(process.execPath, [script, "manifest", `v${version}`, "empty"], { cwd: stage })).rejects.toThrow(
      /was not built/,
    );
  });
});
