import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCompositeBackend, InvalidRouteError } from "../../../src/backends/routes/composite-backend.js";
import { createFilesystemBackend } from "../../../src/backends/local/filesystem-backend.js";
import { createLocalShellBackend } from "../../../src/backends/local/local-shell.js";
import { isSandboxBackend } from "../../../src/backends/protocol.js";
import { buildRouteBackends } from "../../../src/backends/routes/route-config.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "deep-acp-composite-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function build() {
  const disk = createFilesystemBackend({ rootDir: dir, virtualMode: true });
  const results = createStateBackend();
  const memories = createStateBackend();
  const deep = createStateBackend();
  const composite = createCompositeBackend(disk, {
    "/large_tool_results/": results,
    "/memories": memories,
    "/memories/deep/": deep,
  });
  return { disk, results, memories, deep, composite };
}

describe("composite backend", () => {
  it("routes by longest prefix and strips the prefix for the routed backend", async () => {
    const { composite, memories, deep } = build();
    expect(composite.routePrefixes).toEqual(["/large_tool_results/", "/memories/deep/", "/memories/"]);
    expect((await composite.write("/memories/notes.md", "remember")).path).toBe("/memories/notes.md");
    expect((await memories.read("/notes.md")).content).toBe("remember");
    await composite.write("/memories/deep/x.txt", "deep");
    expect((await deep.read("/x.txt")).content).toBe("deep");
    expect((await memories.read("/deep/x.txt")).error).toBeTruthy();
    expect((await composite.edit("/memories/notes.md", "remember", "recall")).path).toBe("/memories/notes.md");
    expect((await composite.read("/memories/notes.md")).content).toBe("recall");
  });

  it("lists route directories next to the default backend's entries", async () => {
    const { composite } = build();
    await writeFile(join(dir, "README.md"), "hi");
    const listing = await composite.ls("/");
    expect(listing.files!.map((f) => f.path)).toEqual(["/README.md", "/large_tool_results/", "/memories/"]);
    await composite.write("/memories/a.md", "a");
    expect((await composite.ls("/memories")).files!.map((f) => f.path)).toEqual(["/memories/a.md", "/memories/deep/"]);
  });

  it("shows routes mounted below a directory the default backend does not have", async () => {
    const composite = createCompositeBackend(createFilesystemBackend({ rootDir: dir, virtualMode: true }), {
      "/a/b/": createStateBackend(),
    });
    expect((await composite.ls("/a")).files).toEqual([{ path: "/a/b/", isDir: true }]);
  });

  it("greps and globs the default backend and every route below the path, sharing the match cap", async () => {
    const { composite } = build();
    await writeFile(join(dir, "one.md"), "needle 1\nneedle 2\n");
    await composite.write("/memories/m.md", "needle 3\nneedle 4\n");
    await composite.write("/large_tool_results/r.txt", "needle 5\n");
    const all = await composite.grep("needle", "/");
    expect(all.matches!.map((m) => `${m.path}:${m.line}`)).toEqual([
      "/one.md:1",
      "/one.md:2",
      "/large_tool_results/r.txt:1",
      "/memories/m.md:1",
      "/memories/m.md:2",
    ]);
    const capped = await composite.grep("needle", "/", null, 3);
    expect(capped.matches).toHaveLength(3);
    expect(capped.truncated).toBe(true);
    expect((await composite.grep("needle", "/memories")).matches!.map((m) => m.path)).toEqual([
      "/memories/m.md",
      "/memories/m.md",
    ]);
    expect((await composite.glob("**/*.md", "/")).files!.map((f) => f.path)).toEqual(["/memories/m.md", "/one.md"]);
    expect((await composite.glob("/memories/*.md")).files!.map((f) => f.path)).toEqual(["/memories/m.md"]);
  });

  it("fans a directory delete out to routes and says honestly when it is partial", async () => {
    const { composite, results } = build();
    await composite.write("/large_tool_results/r.txt", "r");
    await composite.write("/memories/m.md", "m");
    expect((await composite.delete("/memories")).error).toBeUndefined();
    expect((await composite.read("/memories/m.md")).error).toBeTruthy();

    const broken = createStateBackend();
    const failing = createCompositeBackend(createFilesystemBackend({ rootDir: dir, virtualMode: true }), {
      "/ok/": results,
      "/zz/": { ...broken, delete: async () => ({ error: "disk on fire" }) },
    });
    await writeFile(join(dir, "file.txt"), "x");
    const result = await failing.delete("/");
    expect(result.error).toBe(
      "Deletion may be partial; 2 earlier backend(s) completed (/, /ok/). Failed on /zz/: disk on fire",
    );
    expect((await results.read("/r.txt")).error).toBeTruthy();
  });

  it("routes uploads and downloads", async () => {
    const { composite, memories } = build();
    const responses = await composite.uploadFiles([
      ["/memories/u.bin", new Uint8Array([1, 0])],
      ["/disk.bin", new Uint8Array([2, 0])],
    ]);
    expect(responses).toEqual([
      { path: "/memories/u.bin", error: null },
      { path: "/disk.bin", error: null },
    ]);
    expect([...((await memories.read("/u.bin")).content as Uint8Array)]).toEqual([1, 0]);
    const [down] = await composite.downloadFiles(["/disk.bin"]);
    expect([...down!.content!]).toEqual([2, 0]);
  });

  it("delegates execute and id to a sandbox default backend only", async () => {
    const plain = build().composite;
    expect(isSandboxBackend(plain)).toBe(false);
    const shell = createLocalShellBackend({ rootDir: dir });
    const composite = createCompositeBackend(shell, { "/memories/": createStateBackend() });
    expect(composite.id).toBe(shell.id);
    expect((await composite.execute("echo routed")).output).toBe("routed\n");
  });

  it("rejects unusable route prefixes", () => {
    for (const prefix of ["memories/", "/", "/a/../b/", "/mem*/", "/~/"]) {
      expect(() => createCompositeBackend(createStateBackend(), { [prefix]: createStateBackend() })).toThrow(
        InvalidRouteError,
      );
    }
  });
});

describe("route config", () => {
  it("builds one backend per valid route and reports the rest", async () => {
    const made: string[] = [];
    const { items, diagnostics } = buildRouteBackends(
      {
        "/large_tool_results/": "state",
        "/conversation_history": "state",
        "/memories/": "store",
        "/disk/": `filesystem:${dir}`,
        "/bad/": "s3",
        "relative/": "state",
        "/rel-fs/": "filesystem:relative/dir",
      },
      {
        state: (prefix) => (made.push(`state ${prefix}`), createStateBackend()),
        store: (prefix) => (made.push(`store ${prefix}`), createStateBackend()),
      },
    );
    expect(Object.keys(items)).toEqual(["/large_tool_results/", "/conversation_history/", "/memories/", "/disk/"]);
    expect(made).toEqual(["state /large_tool_results/", "state /conversation_history/", "store /memories/"]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'route /bad/: unknown backend "s3"; use "state", "store" or "filesystem:<absolute dir>" (route ignored)',
      'invalid route prefix "relative/": use an absolute directory such as "/memories/" (route ignored)',
      'route /rel-fs/: unknown backend "filesystem:relative/dir"; use "state", "store" or "filesystem:<absolute dir>" (route ignored)',
    ]);
    await writeFile(join(dir, "on-disk.txt"), "disk route");
    const composite = createCompositeBackend(createStateBackend(), items);
    expect((await composite.read("/disk/on-disk.txt")).content).toBe("disk route");
  });
});
