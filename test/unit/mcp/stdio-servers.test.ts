import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager } from "../../../src/mcp/servers/manager.js";
import { createMcpTrustResolver } from "../../../src/mcp/trust/trust.js";
import { createMcpTrustStore } from "../../../src/mcp/trust/trust-store.js";
import type { ToolProgress } from "../../../src/tools/types.js";
import { entry, EVERYTHING, FILESYSTEM, findTool, makeTempDir, NODE, run, textOf, toolContext } from "./helpers.js";
import { pollUntil } from "../../support/poll.js";

describe("stdio servers from npm", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let manager: McpManager;
  let files: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    files = join(dir, "files");
    await mkdir(files);
    await writeFile(join(files, "a.txt"), "alpha\n");
    const trust = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir: join(dir, "state") }),
      projectRoot: dir,
    });
    manager = createMcpManager({
      entries: [
        entry("everything", {
          command: NODE,
          args: [EVERYTHING, "stdio"],
          env: { MCP_TEST_VALUE: "${MCP_TEST_SOURCE}" },
        }),
        entry("fs", {
          command: NODE,
          args: [FILESYSTEM, files],
          disabledTools: ["write_*", "fs_edit_file", "move_file", "create_directory", "no_such_tool"],
        }),
      ],
      trust,
      stateDir: join(dir, "state"),
      env: { PATH: process.env.PATH, HOME: dir, MCP_TEST_SOURCE: "from-parent", ANTHROPIC_API_KEY: "must-not-leak" },
      reservedToolNames: ["fs_read_file"],
    });
    manager.start();
    await manager.ready();
  });
  afterAll(async () => {
    await manager.close();
    await cleanup();
  });

  it("connects both and reports them ok with their tools", () => {
    const reports = manager.describe();
    expect(reports.map((r) => [r.name, r.status, r.reason])).toEqual([
      ["everything", "ok", undefined],
      ["fs", "ok", undefined],
    ]);
    const everything = reports[0]!;
    expect(everything.server).toEqual({ name: "mcp-servers/everything", version: "2.0.0" });
    expect(everything.tools.map((t) => t.name)).toContain("everything_echo");
    expect(everything.pid).toBeGreaterThan(0);
  });

  it("offers <server>_<tool> with hook names, kinds and read-only effects from annotations", () => {
    const tools = manager.tools();
    const echo = findTool(tools, "everything_echo");
    expect(echo).toMatchObject({ hookName: "mcp__everything__echo", kind: "other", effect: "read" });
    expect(echo.jsonSchema).toMatchObject({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    });
    expect(echo.jsonSchema.$schema).toBeUndefined();
    expect(echo.present({ message: "x" }, { cwd: dir, roots: [dir] })).toEqual({ title: "everything/echo" });
    // readOnlyHint false -> asks in default mode.
    expect(findTool(tools, "everything_toggle-simulated-logging").effect).toBe("external");
  });

  it("applies disabledTools against bare and prefixed names and warns about unmatched entries", () => {
    const names = manager.tools().map((t) => t.name);
    expect(names).not.toContain("fs_write_file");
    expect(names).not.toContain("fs_edit_file");
    expect(names).toContain("fs_list_directory");
    const fs = manager.describe().find((r) => r.name === "fs")!;
    expect(fs.hiddenTools).toEqual(
      expect.arrayContaining(["write_file", "edit_file", "move_file", "create_directory"]),
    );
    expect(fs.warnings).toContain("filter entries matching no tool: no_such_tool");
  });

  it("never shadows a reserved built-in name", () => {
    const names = manager.tools().map((t) => t.name);
    expect(names).not.toContain("fs_read_file");
    expect(names.some((n) => /^fs_read_file_[0-9a-f]{8}$/.test(n))).toBe(true);
  });

  it("calls echo and returns text", async () => {
    const result = await run(manager.tools(), "everything_echo", { message: "hello mcp" });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("Echo: hello mcp");
  });

  it("returns images as image content for the model and the editor", async () => {
    const result = await run(manager.tools(), "everything_get-tiny-image", {});
    const image = result.content.find((part) => part.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(
      Buffer.from((image as { data: string }).data, "base64")
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
    expect(result.display?.some((d) => d.type === "image")).toBe(true);
  });

  it("returns embedded text resources, blobs and resource links as text", async () => {
    const text = await run(manager.tools(), "everything_get-resource-reference", {
      resourceType: "Text",
      resourceId: 1,
    });
    expect(textOf(text)).toMatch(
      /\[resource demo:\/\/resource\/dynamic\/text\/1 \(text\/plain\)\]\nResource 1: This is a plaintext resource/,
    );
    const blob = await run(manager.tools(), "everything_get-resource-reference", {
      resourceType: "Blob",
      resourceId: 2,
    });
    expect(textOf(blob)).toMatch(/Resource 2: This is a base64 blob/);
    const links = await run(manager.tools(), "everything_get-resource-links", { count: 2 });
    expect(textOf(links)).toMatch(/\[resource link\] .*: demo:\/\/resource\//);
  });

  it("fails the call with the server's message when it answers isError", async () => {
    const result = await run(manager.tools(), "everything_echo", {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Input validation error/);
  });

  it("gives the server only the allowlisted environment plus its own interpolated env", async () => {
    const result = await run(manager.tools(), "everything_get-env", {});
    const env = JSON.parse(textOf(result)) as Record<string, string>;
    expect(env.MCP_TEST_VALUE).toBe("from-parent");
    expect(env.HOME).toBe(dir);
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.MCP_TEST_SOURCE).toBeUndefined();
  });

  it("aborting the turn's signal ends a long-running call promptly as cancelled", async () => {
    const controller = new AbortController();
    const progress: ToolProgress[] = [];
    const ctx = toolContext(controller.signal, progress);
    const pending = run(manager.tools(), "everything_trigger-long-running-operation", { duration: 30, steps: 30 }, ctx);
    // Abort once the call is under way: its first progress report came (a fixed 1.5 s was too short
    // on a busy machine for the report to have come).
    const underway = pollUntil(
      () => progress.some((p) => p.type === "output" && /progress 1\/30/.test(p.data)),
      "the first progress report",
    ).finally(() => controller.abort());
    const result = await pending;
    await underway;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/cancelled/);
    expect(progress.some((p) => p.type === "output" && /progress 1\/30/.test(p.data))).toBe(true);
    // The server is still usable afterwards.
    expect(textOf(await run(manager.tools(), "everything_echo", { message: "after" }))).toBe("Echo: after");
  });

  it("lists and reads files through server-filesystem", async () => {
    const listing = await run(manager.tools(), "fs_list_directory", { path: files });
    expect(textOf(listing)).toContain("[FILE] a.txt");
    const readName = manager.tools().find((t) => t.hookName === "mcp__fs__read_text_file")!.name;
    const content = await run(manager.tools(), readName, { path: join(files, "a.txt") });
    expect(textOf(content)).toContain("alpha");
  });
});
