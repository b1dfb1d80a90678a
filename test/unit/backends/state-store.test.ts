import { stat, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStateBackend, type StateChange } from "../../../src/backends/state/state-backend.js";
import { createStoreBackend, InvalidNamespaceError } from "../../../src/backends/state/store-backend.js";

describe("state backend", () => {
  it("snapshots to plain JSON (bytes as base64) and restores in a fresh backend", async () => {
    let tick = 0;
    const clock = () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++));
    const state = createStateBackend({ clock });
    await state.write("/large_tool_results/call_1.txt", "big output\n");
    await state.write("/img/a.png", new Uint8Array([0x89, 0, 255]));
    const json = JSON.stringify(state.snapshot());
    const parsed = JSON.parse(json);
    expect(parsed.files["/img/a.png"]).toMatchObject({
      encoding: "base64",
      content: Buffer.from([0x89, 0, 255]).toString("base64"),
      mimeType: "image/png",
    });
    expect(parsed.files["/large_tool_results/call_1.txt"]).toMatchObject({
      encoding: "utf8",
      content: "big output\n",
      createdAt: "2026-01-01T00:00:00.000Z",
    });

    const restored = createStateBackend({ initial: parsed });
    expect((await restored.read("/large_tool_results/call_1.txt")).content).toBe("big output");
    expect([...((await restored.read("/img/a.png")).content as Uint8Array)]).toEqual([0x89, 0, 255]);

    const other = createStateBackend();
    await other.write("/stale.txt", "x");
    other.restore(parsed);
    expect((await other.read("/stale.txt")).error).toBeTruthy();
    expect(other.snapshot()).toEqual(parsed);
  });

  it("notifies listeners of writes, edits and deletes until unsubscribed", async () => {
    const state = createStateBackend();
    const changes: StateChange[] = [];
    const unsubscribe = state.onChange((c) => changes.push(c));
    state.onChange(() => {
      throw new Error("broken listener");
    });
    await state.write("/a/x.txt", "one");
    await state.edit("/a/x.txt", "one", "two");
    await state.write("/a/y.txt", "y");
    await state.delete("/a");
    unsubscribe();
    await state.write("/after.txt", "z");
    expect(changes).toEqual([
      { type: "write", path: "/a/x.txt" },
      { type: "write", path: "/a/x.txt" },
      { type: "write", path: "/a/y.txt" },
      { type: "delete", path: "/a/x.txt" },
      { type: "delete", path: "/a/y.txt" },
    ]);
    expect((await state.read("/after.txt")).content).toBe("z");
  });

  it("refuses traversal and writing under a file", async () => {
    const state = createStateBackend();
    expect((await state.read("/../x")).error).toMatch(/Path traversal/);
    await state.write("/file", "f");
    expect((await state.write("/file/child", "c")).error).toMatch(/Not a directory/);
  });
});

describe("store backend", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "deep-acp-store-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps files under <dir>/<namespace...> with private modes, atomically", async () => {
    const store = createStoreBackend({ dir, namespace: ["agent", "user@example.com"] });
    expect((await store.write("/notes/today.md", "remember this\n")).before).toBeNull();
    const file = join(dir, "agent", "user@example.com", "notes", "today.md");
    expect(await readFile(file, "utf8")).toBe("remember this\n");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "agent"))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, "agent", "user@example.com", "notes"))).mode & 0o777).toBe(0o700);
    await store.edit("/notes/today.md", "this", "that");
    expect(await readFile(file, "utf8")).toBe("remember that\n");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("isolates namespaces and persists across instances", async () => {
    await createStoreBackend({ dir, namespace: ["tenant-a"] }).write("/f.txt", "a");
    expect((await createStoreBackend({ dir, namespace: ["tenant-b"] }).read("/f.txt")).error).toBeTruthy();
    expect((await createStoreBackend({ dir, namespace: ["tenant-a"] }).read("/f.txt")).content).toBe("a");
    expect((await createStoreBackend({ dir, namespace: ["tenant-b"] }).ls("/")).files).toEqual([]);
  });

  it("rejects namespace components that could escape or inject globs", () => {
    for (const namespace of [[], [""], [".."], ["."], ["a/b"], ["*"], ["a b"], ["x", "../y"]]) {
      expect(() => createStoreBackend({ dir, namespace })).toThrow(InvalidNamespaceError);
    }
    expect(() => createStoreBackend({ dir, namespace: ["ok-1_2.3@x+y:z~w"] })).not.toThrow();
  });
});
