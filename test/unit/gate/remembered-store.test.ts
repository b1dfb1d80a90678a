// The one store of remembered decisions over real backings and real files in a temp state dir:
// what is written through `remember` is what `lookup` and `list` read, with the one key shape, and
// what `revoke` forgets is asked again.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DevContainerPlan } from "../../../src/backends/container/devcontainer/devcontainer-plan.js";
import { createRemembered, rememberedKey } from "../../../src/gate/memory/remembered.js";
import { extensionRememberedStores, type HookSessionGrants } from "../../../src/extensions/remembered-stores.js";
import {
  devContainerBacking,
  devContainerMemory,
} from "../../../src/session/workspace/container/devcontainer-memory.js";

let stateDir: string;
let projectRoot: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "deep-acp-remembered-state-"));
  projectRoot = await mkdtemp(join(tmpdir(), "deep-acp-remembered-project-"));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
  await rm(projectRoot, { recursive: true, force: true });
});

const storeOf = (grants: HookSessionGrants = new Map()) =>
  createRemembered([
    ...extensionRememberedStores({ stateDir, projectRoot, mcpTrust: async () => undefined, hookGrants: grants }),
    devContainerBacking(stateDir, projectRoot),
  ]);

describe("the one store of remembered decisions", () => {
  it("an MCP server's 'always' holds for its fingerprint only; 'never' beats any; both are listed by key", async () => {
    const store = storeOf();
    const key = rememberedKey("mcp-server", "proj");
    await store.remember(key, "allow", "project", 'project MCP server "proj"', { fingerprint: "f1" });
    expect(await store.lookup(key, { fingerprint: "f1" })).toBe("allow");
    expect(await store.lookup(key, { fingerprint: "f2" })).toBeUndefined();
    expect(await readFile(join(stateDir, "mcp_trust.json"), "utf8")).toContain('"proj"');
    expect((await store.list()).map((d) => d.key)).toEqual(["mcp-server:proj"]);
    await store.remember(key, "deny", "project", 'project MCP server "proj" (never)');
    expect(await store.lookup(key, { fingerprint: "f1" })).toBe("deny");
    expect(await store.revoke(key)).toMatchObject({ key, kind: "mcp-server" });
    expect(await store.lookup(key, { fingerprint: "f1" })).toBeUndefined();
  });

  it("hooks' 'always' goes to hooks_trust.json, this session's 'allow once' only to the session's grants", async () => {
    const grants: HookSessionGrants = new Map();
    const store = storeOf(grants);
    const once = rememberedKey("hooks-session", projectRoot);
    await store.remember(once, "allow", "session", "this project's hooks for this session", { fingerprint: "h1" });
    expect(await store.lookup(once, { fingerprint: "h1" })).toBe("allow");
    expect(await store.lookup(once, { fingerprint: "h2" })).toBeUndefined();
    expect(await readFile(join(stateDir, "hooks_trust.json"), "utf8").catch(() => "")).toBe("");
    // Another store over the same backings is the same store: it lists the grant.
    expect((await storeOf(grants).list()).map((d) => [d.key, d.scope])).toEqual([[once, "session"]]);
    // A session answer is not kept on disk, and a kept one is not a session's.
    await expect(store.remember(once, "allow", "project", "x", { fingerprint: "h1" })).rejects.toThrow(/session/);
    const always = rememberedKey("hooks", projectRoot);
    await store.remember(always, "allow", "project", "this project's hooks", { fingerprint: "h1" });
    expect(await store.lookup(always, { fingerprint: "h1" })).toBe("allow");
    await store.revoke(once);
    expect(grants.size).toBe(0);
    expect(await store.lookup(always, { fingerprint: "h1" })).toBe("allow");
  });

  it("a dev container's 'always' is kept by its plan's fingerprint, listed by key and asked again once revoked", async () => {
    const plan = {
      root: projectRoot,
      fingerprint: "a".repeat(64),
      dev: { file: join(projectRoot, ".devcontainer", "devcontainer.json") },
    } as unknown as DevContainerPlan;
    const memory = devContainerMemory(stateDir, projectRoot);
    expect(await memory.allowed(plan)).toBe(false);
    await memory.remember(plan);
    expect(await memory.allowed(plan)).toBe(true);
    expect(await memory.allowed({ ...plan, fingerprint: "b".repeat(64) })).toBe(false);
    const store = storeOf();
    expect((await store.list()).map((d) => d.key)).toEqual([`devcontainer:${"a".repeat(64)}`]);
    await store.revoke(`devcontainer:${"a".repeat(64)}`);
    expect(await memory.allowed(plan)).toBe(false);
  });

  it("a key of no kind is refused rather than written somewhere", async () => {
    await expect(storeOf().remember("nothing:x", "allow", "project", "x")).rejects.toThrow(/no store/);
  });
});
