import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveComponentPath } from "../../../src/plugins/component-path.js";
import { pluginDataKey, scopedMcpServerName, splitPluginId } from "../../../src/plugins/ids.js";
import { buildInventory } from "../../../src/plugins/inventory.js";
import { loadPluginManifest } from "../../../src/plugins/manifest.js";
import { makeTempDir, writeTree } from "../skills/temp-dir.js";

const fixtures = fileURLToPath(new URL("../../fixtures/plugins/", import.meta.url));

describe("component path rules", () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: root, cleanup } = await makeTempDir());
    await writeTree(root, { "plugin/skills/a/SKILL.md": "x", "outside/hooks.json": "{}" });
  });
  afterEach(() => cleanup());

  it.each([
    ["../x", /must start with '\.\/'/],
    ["/etc", /must start with '\.\/'/],
    [".//etc", /must stay within the plugin root/],
    ["./C:\\Windows", /must stay within the plugin root/],
    ["./", /'\.\/' alone/],
    ["./a/../../b", /must not contain '\.\.'/],
    ["skills", /must start with '\.\/'/],
    [42, /expected a path string/],
  ])("rejects %s", async (declaration, message) => {
    const result = await resolveComponentPath(declaration, join(root, "plugin"), "skills");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(message);
  });

  it("rejects a symlink that leads out of the plugin root", async () => {
    await symlink(join(root, "outside"), join(root, "plugin", "linked"));
    const result = await resolveComponentPath("./linked/hooks.json", join(root, "plugin"), "hooks");
    expect(!result.ok && result.error).toMatch(/outside the plugin root/);
  });

  it("accepts paths inside, existing or not", async () => {
    expect(await resolveComponentPath("./skills", join(root, "plugin"), "skills")).toEqual({
      ok: true,
      path: join(root, "plugin", "skills"),
    });
    expect(await resolveComponentPath("./later/x.json", join(root, "plugin"), "hooks")).toEqual({
      ok: true,
      path: join(root, "plugin", "later", "x.json"),
    });
    expect(await resolveComponentPath("./", join(root, "plugin"), "source", { allowRoot: true })).toEqual({
      ok: true,
      path: join(root, "plugin"),
    });
  });

  it("ignores a default component that is a symlink out of the root", async () => {
    await mkdir(join(root, "plugin2"));
    await symlink(join(root, "plugin", "skills"), join(root, "plugin2", "skills"));
    const manifest = await loadPluginManifest(join(root, "plugin2"), "plugin2");
    const inventory = await buildInventory(join(root, "plugin2"), manifest.manifest!);
    expect(inventory.skillDirs).toEqual([]);
    expect(inventory.diagnostics[0]?.message).toMatch(/outside the plugin root/);
  });
});

describe("manifests and inventory", () => {
  it("prefers plugin.json over .claude-plugin/plugin.json", async () => {
    const { manifest } = await loadPluginManifest(join(fixtures, "variants", "root-wins"), "fallback");
    expect(manifest).toMatchObject({
      name: "root-wins",
      version: "2.0.0",
      manifestPath: join(fixtures, "variants", "root-wins", "plugin.json"),
    });
  });

  it("reads .claude-plugin and derives a manifest when there is none", async () => {
    expect((await loadPluginManifest(join(fixtures, "variants", "claude-only"), "x")).manifest).toMatchObject({
      name: "claude-only",
      displayName: "Claude Only",
    });
    const derived = await loadPluginManifest(join(fixtures, "variants", "derived"), "derived");
    expect(derived.manifest).toEqual({ name: "derived", skills: [], mcpFiles: [], hookPaths: [] });
  });

  it("skips plugins whose manifest is broken or badly named", async () => {
    const broken = await loadPluginManifest(join(fixtures, "variants", "broken"), "broken");
    expect(broken.manifest).toBeUndefined();
    expect(broken.diagnostics[0]?.message).toMatch(/cannot read manifest/);
    // An invalid manifest name falls back to the directory name.
    expect((await loadPluginManifest(join(fixtures, "variants", "bad-name"), "bad-name")).manifest?.name).toBe(
      "bad-name",
    );
    expect((await loadPluginManifest(join(fixtures, "variants", "bad-name"), "also bad")).manifest).toBeUndefined();
  });

  it("reports every escaping component path and keeps the valid ones", async () => {
    const root = join(fixtures, "escapes");
    const { manifest, diagnostics } = await loadPluginManifest(root, "escapes");
    expect(manifest?.skills).toEqual([join(root, "real-skills")]);
    expect(manifest?.mcpFiles).toEqual([]);
    const messages = diagnostics.map((d) => d.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/'\.\.\/x' must start with/),
        expect.stringMatching(/'\/etc' must start with/),
        expect.stringMatching(/'\.\/' alone/),
        expect.stringMatching(/'real-skills' must start with/),
        expect.stringMatching(/'\.\/a\/\.\.\/\.\.\/b' must not contain/),
        expect.stringMatching(/expected a path string/),
        expect.stringMatching(/mcpServers: '\.\/\.\.\/mcp\.json' must not contain/),
      ]),
    );
    const inventory = await buildInventory(root, manifest!);
    expect(inventory.skillDirs).toEqual([join(root, "real-skills")]);
    expect(inventory.hookFiles).toEqual([join(root, "hooks-dir", "hooks.json")]);
  });

  it("discovers default components; a root SKILL.md only without skills/", async () => {
    const review = join(fixtures, "marketplace-dir", "plugins", "review");
    const inventory = await buildInventory(review, (await loadPluginManifest(review, "review")).manifest!);
    expect(inventory).toMatchObject({
      skillDirs: [join(review, "skills")],
      mcpFiles: [join(review, ".mcp.json")],
      hookFiles: [join(review, "hooks", "hooks.json")],
      unsupported: [],
    });
    const codex = join(fixtures, "marketplace-dir", "plugins", "codex-style");
    const manifest = (await loadPluginManifest(codex, "codex-style")).manifest!;
    expect(manifest.inlineMcp).toEqual({ tools: { command: "python", args: ["-m", "srv"], cwd: "./server" } });
    expect(manifest.inlineHooks).toEqual({
      hooks: { SessionStart: [{ hooks: [{ type: "command", argv: ["echo", "started"] }] }] },
    });
    const codexInventory = await buildInventory(codex, manifest);
    expect(codexInventory.skillDirs).toEqual([codex]);
    expect(codexInventory.unsupported).toEqual(["agents"]);
  });
});

describe("ids", () => {
  it("splits on the last @", () => {
    expect(splitPluginId("review@team@acme")).toEqual({ name: "review@team", marketplace: "acme" });
    expect(splitPluginId("review")).toBeUndefined();
    expect(splitPluginId("@acme")).toBeUndefined();
  });

  it("prefixes MCP server names so they cannot collide, hashing sanitised parts", () => {
    const name = scopedMcpServerName("review@acme", "github");
    expect(name).toMatch(/^plugin__review_acme_[0-9a-f]{8}__github$/);
    expect(scopedMcpServerName("review@acme", "docs.site")).toMatch(
      /^plugin__review_acme_[0-9a-f]{8}__docs_site_[0-9a-f]{8}$/,
    );
    expect(scopedMcpServerName("plain", "s")).toBe("plugin__plain__s");
    const long = scopedMcpServerName("p", "x".repeat(60));
    expect(long).toMatch(new RegExp(`^plugin__p__${"x".repeat(48)}_[0-9a-f]{8}$`));
    expect(scopedMcpServerName("a@b", "s")).not.toBe(scopedMcpServerName("a_b", "s"));
    for (const scoped of [name, long]) expect(scoped).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("makes distinct data directory keys", () => {
    expect(pluginDataKey("a@b")).not.toBe(pluginDataKey("a_b"));
    expect(pluginDataKey("review@acme")).toMatch(/^review-acme-[0-9a-f]{16}$/);
  });
});
