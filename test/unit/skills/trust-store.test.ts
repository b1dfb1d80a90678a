import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillTrustStore, SkillTrustError } from "../../../src/skills/trust-store.js";
import { makeTempDir } from "./temp-dir.js";

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir: root, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

describe("skill trust store", () => {
  it("persists approvals atomically as 0600 in a 0700 state dir", async () => {
    const target = join(root, "shared");
    await mkdir(target);
    const store = createSkillTrustStore({
      stateDir: join(root, ".state"),
      now: () => new Date("2026-01-02T03:04:05Z"),
    });
    await store.approve(target);
    const file = join(root, ".state", "skill_trust.json");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      version: 1,
      dirs: { [target]: { trusted_at: "2026-01-02T03:04:05.000Z" } },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, ".state"))).mode & 0o777).toBe(0o700);
    expect(await store.load()).toEqual({ items: [target], diagnostics: [] });
    expect((await store.list()).items).toEqual([{ dir: target, trustedAt: "2026-01-02T03:04:05.000Z" }]);
  });

  it("refuses to approve a path that is not canonical", async () => {
    await mkdir(join(root, "real"));
    await symlink(join(root, "real"), join(root, "link"));
    const store = createSkillTrustStore({ stateDir: root });
    await expect(store.approve(join(root, "link"))).rejects.toBeInstanceOf(SkillTrustError);
    await expect(store.approve(join(root, "missing"))).rejects.toBeInstanceOf(SkillTrustError);
  });

  it("revokes an approval", async () => {
    const target = join(root, "shared");
    await mkdir(target);
    const store = createSkillTrustStore({ stateDir: root });
    await store.approve(target);
    expect(await store.revoke(target)).toBe(true);
    expect(await store.revoke(target)).toBe(false);
    expect((await store.load()).items).toEqual([]);
  });

  it("reads a corrupt store as empty but refuses to overwrite it", async () => {
    const file = join(root, "skill_trust.json");
    await writeFile(file, "{not json");
    const store = createSkillTrustStore({ stateDir: root });
    const loaded = await store.load();
    expect(loaded.items).toEqual([]);
    expect(loaded.diagnostics[0]).toMatchObject({ severity: "error", source: file });
    await mkdir(join(root, "shared"));
    await expect(store.approve(join(root, "shared"))).rejects.toThrow(/fix or delete/);
    expect(await readFile(file, "utf8")).toBe("{not json");
  });
});
