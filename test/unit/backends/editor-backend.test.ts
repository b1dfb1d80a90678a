import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditorBackend } from "../../../src/backends/editor/editor-backend.js";
import { createFilesystemBackend } from "../../../src/backends/local/filesystem-backend.js";
import { createLocalShellBackend } from "../../../src/backends/local/local-shell.js";
import { isSandboxBackend, type SandboxBackendProtocol } from "../../../src/backends/protocol.js";
import { createFakeEditorBridge } from "./fake-editor-bridge.js";
import { pollUntil } from "../../support/poll.js";

let top: string;
let root: string;
let outside: string;

beforeEach(async () => {
  top = await mkdtemp(join(tmpdir(), "deep-acp-editor-"));
  root = join(top, "project");
  outside = join(top, "elsewhere");
  await mkdir(root);
  await mkdir(outside);
});
afterEach(async () => {
  await rm(top, { recursive: true, force: true });
});

function setup(
  caps: Parameters<typeof createFakeEditorBridge>[0] = {},
  fallback = createFilesystemBackend({ rootDir: root }),
) {
  const bridge = createFakeEditorBridge(caps);
  const backend = createEditorBackend({ bridge, roots: [root], fallback, killGraceMs: 200 });
  return { bridge, backend };
}

describe("editor backend files", () => {
  it("reads files inside the roots through the editor, unsaved changes included", async () => {
    const { bridge, backend } = setup();
    const file = join(root, "a.ts");
    await writeFile(file, "on disk\n");
    bridge.buffers.set(file, "unsaved 1\nunsaved 2\n");
    expect(await backend.read(file, 1, 1)).toMatchObject({ content: "unsaved 2", totalLines: 2 });
    expect(bridge.calls).toEqual([{ method: "readTextFile", path: file }]);
  });

  it("reads outside the roots and binary files from disk", async () => {
    const { bridge, backend } = setup();
    await writeFile(join(outside, "o.txt"), "outside\n");
    await writeFile(join(root, "pic.png"), Buffer.from([0x89, 0x50, 0, 1]));
    await writeFile(join(root, "blob.data"), Buffer.from([1, 0, 2]));
    expect((await backend.read(join(outside, "o.txt"))).content).toBe("outside");
    expect((await backend.read(join(root, "pic.png"))).mimeType).toBe("image/png");
    expect((await backend.read(join(root, "blob.data"))).content).toBeInstanceOf(Uint8Array);
    expect(bridge.calls).toEqual([]);
  });

  it("writes inside the roots through the editor and reports what was there", async () => {
    const { bridge, backend } = setup();
    const file = join(root, "b.txt");
    await writeFile(file, "saved\n");
    bridge.buffers.set(file, "unsaved\n");
    const result = await backend.write(file, "new\n");
    expect(result).toEqual({ path: file, before: "unsaved\n" });
    expect(bridge.calls.map((c) => c.method)).toEqual(["readTextFile", "writeTextFile"]);
    expect(await readFile(file, "utf8")).toBe("new\n");

    const created = await backend.write(join(root, "new", "dir", "c.txt"), "c");
    expect(created.before).toBeNull();
    expect(await readFile(join(root, "new", "dir", "c.txt"), "utf8")).toBe("c");
  });

  it("writes outside the roots and binary content directly to disk", async () => {
    const { bridge, backend } = setup();
    await backend.write(join(outside, "x.txt"), "x");
    await backend.write(join(root, "bytes.bin"), new Uint8Array([1, 2]));
    expect(bridge.calls.filter((c) => c.method === "writeTextFile")).toEqual([]);
    expect(await readFile(join(outside, "x.txt"), "utf8")).toBe("x");
    expect([...(await readFile(join(root, "bytes.bin")))]).toEqual([1, 2]);
  });

  it("reports a write the editor refused and leaves the file alone", async () => {
    const { bridge, backend } = setup();
    const file = join(root, "keep.txt");
    await writeFile(file, "original\n");
    bridge.refusedWrites.add(file);
    expect((await backend.write(file, "changed")).error).toMatch(/user rejected the change/);
    expect((await backend.edit(file, "original", "changed")).error).toMatch(/user rejected the change/);
    expect(await readFile(file, "utf8")).toBe("original\n");
  });

  it("edits the editor's text (unsaved buffer) and writes the result through the editor", async () => {
    const { bridge, backend } = setup();
    const file = join(root, "e.ts");
    await writeFile(file, "const a = 1;\n");
    bridge.buffers.set(file, "const a = 2;\n");
    const result = await backend.edit(file, "a = 2", "b = 3");
    expect(result).toMatchObject({ occurrences: 1, before: "const a = 2;\n", after: "const b = 3;\n" });
    expect(await readFile(file, "utf8")).toBe("const b = 3;\n");
    expect((await backend.edit(file, "zzz", "y")).error).toMatch(/String not found/);
  });

  it("uses the disk when the editor cannot read or write files", async () => {
    const { bridge, backend } = setup({ canReadFiles: false, canWriteFiles: false });
    const file = join(root, "d.txt");
    await backend.write(file, "disk\n");
    expect((await backend.read(file)).content).toBe("disk");
    expect((await backend.edit(file, "disk", "DISK")).occurrences).toBe(1);
    expect(bridge.calls).toEqual([]);
  });

  it("lists, searches and deletes on disk", async () => {
    const { bridge, backend } = setup();
    await writeFile(join(root, "f.txt"), "needle\n");
    expect((await backend.ls(root)).files!.map((f) => f.path)).toEqual([join(root, "f.txt")]);
    expect((await backend.grep("needle", root)).matches).toHaveLength(1);
    expect((await backend.glob("*.txt", root)).files).toHaveLength(1);
    expect((await backend.delete!(join(root, "f.txt"))).error).toBeUndefined();
    expect(existsSync(join(root, "f.txt"))).toBe(false);
    expect(bridge.calls).toEqual([]);
  });
});

describe("editor backend terminals", () => {
  const asSandbox = (backend: unknown) => {
    expect(isSandboxBackend(backend as SandboxBackendProtocol)).toBe(true);
    return backend as SandboxBackendProtocol;
  };

  it("runs commands in an editor terminal, reports its id and always releases it", async () => {
    const { bridge, backend } = setup({ canRunTerminals: true });
    bridge.scripts.push({ output: "hello\n", exitAfterMs: 10, exitCode: 2, truncated: true });
    const ids: string[] = [];
    const result = await asSandbox(backend).execute("echo hello", { onTerminal: (id) => ids.push(id), cwd: root });
    expect(ids).toEqual(["term-1"]);
    expect(result).toMatchObject({
      output: "hello\n",
      exitCode: 2,
      truncated: true,
      timedOut: false,
      terminalId: "term-1",
    });
    const [terminal] = bridge.terminals;
    expect(terminal!.request).toMatchObject({ args: ["-c", "echo hello"], cwd: root, outputByteLimit: 30000 });
    expect(terminal!.released).toBe(1);
    expect(terminal!.killed).toBe(false);
  });

  it("kills and releases the terminal on timeout", async () => {
    const { bridge, backend } = setup({ canRunTerminals: true });
    bridge.scripts.push({ output: "partial" });
    const result = await asSandbox(backend).execute("sleep 100", { timeoutMs: 50 });
    expect(result).toMatchObject({ output: "partial", timedOut: true, exitCode: null, signal: "SIGKILL" });
    expect(bridge.terminals[0]).toMatchObject({ killed: true, released: 1 });
  });

  it("kills and releases the terminal on abort", async () => {
    const { bridge, backend } = setup({ canRunTerminals: true });
    bridge.scripts.push({ output: "" });
    const controller = new AbortController();
    // Abort once the command runs in the editor's terminal.
    const running = pollUntil(() => bridge.terminals.length === 1, "the terminal").finally(() => controller.abort());
    const result = await asSandbox(backend).execute("sleep 100", { signal: controller.signal });
    await running;
    expect(result.aborted).toBe(true);
    expect(bridge.terminals[0]).toMatchObject({ killed: true, released: 1 });
  });

  it("falls back to the local executor without terminals, and has no execute without one", async () => {
    const shell = createLocalShellBackend({ rootDir: root });
    const withShell = setup({ canRunTerminals: false }, createFilesystemBackend({ rootDir: root }));
    expect(withShell.backend.canExecute).toBe(false);
    expect(isSandboxBackend(withShell.backend)).toBe(false);

    const bridge = createFakeEditorBridge({ canRunTerminals: false });
    const backend = createEditorBackend({ bridge, roots: [root], fallback: shell });
    const result = await asSandbox(backend).execute("echo from-host");
    expect(result).toMatchObject({ output: "from-host\n", exitCode: 0 });
    expect(bridge.calls).toEqual([]);
  });

  it("keeps commands on the fallback (e.g. a sandbox) when editor terminals are turned off", async () => {
    const bridge = createFakeEditorBridge({ canRunTerminals: true });
    const backend = createEditorBackend({
      bridge,
      roots: [root],
      fallback: createLocalShellBackend({ rootDir: root }),
      useEditorTerminals: false,
    });
    expect((await asSandbox(backend).execute("echo local")).output).toBe("local\n");
    expect(bridge.terminals).toEqual([]);
  });
});

describe("editor backend: a refused terminal is a refused command", () => {
  it.each([
    ["Permission denied for terminal/create", "refused", /refused to open a terminal/],
    ["spawn ENOENT", "failed", /could not open a terminal: spawn ENOENT/],
  ] as const)("%s: ends the call as %s and never runs the command on the fallback", async (why, kind, text) => {
    const marker = join(root, `fallback-ran-${kind}`);
    const bridge = createFakeEditorBridge({ canRunTerminals: true });
    bridge.createTerminal = () => Promise.reject(new Error(why));
    const backend = createEditorBackend({
      bridge,
      roots: [root],
      fallback: createLocalShellBackend({ rootDir: root }),
    }) as unknown as SandboxBackendProtocol;
    const result = await backend.execute(`touch ${marker}`);
    expect(result.notStarted).toBe(kind);
    expect(result.output).toMatch(text);
    expect(result.output).toMatch(/did not run/);
    expect(existsSync(marker)).toBe(false);
  });
});
