import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditFileTool } from "../../../src/tools/files/edit-file.js";
import { createGlobTool } from "../../../src/tools/files/glob.js";
import { createGrepTool } from "../../../src/tools/files/grep.js";
import { createLsTool } from "../../../src/tools/files/ls.js";
import { createReadFileTool } from "../../../src/tools/files/read-file.js";
import { createWriteFileTool } from "../../../src/tools/files/write-file.js";
import { createDeleteTool } from "../../../src/tools/files/delete.js";
import type { AnyTool, ToolResult } from "../../../src/tools/types.js";
import { toolContext } from "./tool-context.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "deep-acp-tools-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function run(tool: AnyTool, input: unknown): Promise<ToolResult> {
  const parsed = tool.validate(input);
  if (!parsed.success) throw new Error(parsed.error);
  return tool.execute(parsed.data, toolContext(root));
}
const text = (r: ToolResult) => r.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("");

describe("read_file", () => {
  it("numbers lines cat -n style from the offset, with a TAB", async () => {
    await writeFile(join(root, "a.txt"), "one\ntwo\nthree\nfour\n");
    const result = await run(createReadFileTool(), { file_path: join(root, "a.txt"), offset: 1, limit: 2 });
    expect(text(result).split("\n\n")[0]).toBe("     2\ttwo\n     3\tthree");
    expect(text(result)).toContain("Use offset=3 to read more");
  });

  it("accepts `path` as an alias and relative paths", async () => {
    await writeFile(join(root, "b.txt"), "hello\n");
    const result = await run(createReadFileTool(), { path: "b.txt" });
    expect(text(result)).toBe("     1\thello");
  });

  it("splits very long lines into N.1 continuation rows", async () => {
    await writeFile(join(root, "long.txt"), "x".repeat(12_000) + "\n");
    const rows = text(await run(createReadFileTool(), { file_path: join(root, "long.txt") })).split("\n");
    expect(rows.map((r) => r.split("\t")[0]!.trim())).toEqual(["1", "1.1", "1.2"]);
  });

  it("reports an empty file and a missing file", async () => {
    await writeFile(join(root, "empty.txt"), "");
    expect(text(await run(createReadFileTool(), { file_path: join(root, "empty.txt") }))).toContain("empty contents");
    const missing = await run(createReadFileTool(), { file_path: join(root, "nope.txt") });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^Error: /);
  });

  it("returns images as images", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    await writeFile(join(root, "p.png"), png);
    const result = await run(createReadFileTool(), { file_path: join(root, "p.png") });
    expect(result.content[0]).toMatchObject({ type: "image", mimeType: "image/png", data: png.toString("base64") });
  });
});

describe("write_file and edit_file", () => {
  it("creates files with parent directories and reports a diff against nothing", async () => {
    const path = join(root, "new/dir/f.ts");
    const result = await run(createWriteFileTool(), { file_path: path, content: "export {};\n" });
    expect(text(result)).toBe(`Successfully wrote to '${path}'`);
    expect(await readFile(path, "utf8")).toBe("export {};\n");
    expect(result.display).toEqual([{ type: "diff", path, oldText: null, newText: "export {};\n" }]);
  });

  it("edits a unique string and shows the whole-file diff", async () => {
    const path = join(root, "e.txt");
    await writeFile(path, "alpha\nbeta\ngamma\n");
    const result = await run(createEditFileTool(), { file_path: path, old_string: "beta", new_string: "BETA" });
    expect(text(result)).toBe(`Successfully replaced 1 occurrence(s) in '${path}'`);
    expect(await readFile(path, "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(result.display).toEqual([
      { type: "diff", path, oldText: "alpha\nbeta\ngamma\n", newText: "alpha\nBETA\ngamma\n" },
    ]);
    expect(result.locations).toEqual([{ path, line: 2 }]);
  });

  it("refuses ambiguous and missing strings with the reference messages", async () => {
    const path = join(root, "e.txt");
    await writeFile(path, "x x\n");
    const ambiguous = await run(createEditFileTool(), { file_path: path, old_string: "x", new_string: "y" });
    expect(text(ambiguous)).toContain("has multiple occurrences (appears 2 times)");
    const missing = await run(createEditFileTool(), { file_path: path, old_string: "zzz", new_string: "y" });
    expect(text(missing)).toBe("Error: String not found in file: 'zzz'");
    const all = await run(createEditFileTool(), {
      file_path: path,
      old_string: "x",
      new_string: "y",
      replace_all: true,
    });
    expect(text(all)).toContain("2 occurrence(s)");
    expect(await readFile(path, "utf8")).toBe("y y\n");
  });

  it("previews the diff an edit would make without writing", async () => {
    const path = join(root, "p.txt");
    await writeFile(path, "a\nb\n");
    const tool = createEditFileTool();
    const input = tool.validate({ file_path: path, old_string: "b", new_string: "c" });
    if (!input.success) throw new Error(input.error);
    const preview = await tool.preview!(input.data, toolContext(root));
    expect(preview).toEqual([{ type: "diff", path, oldText: "a\nb\n", newText: "a\nc\n" }]);
    expect(await readFile(path, "utf8")).toBe("a\nb\n");
  });
});

describe("ls, glob, grep, delete", () => {
  beforeEach(async () => {
    await mkdir(join(root, "src/lib"), { recursive: true });
    await writeFile(join(root, "src/a.ts"), "const needle = 1;\n");
    await writeFile(join(root, "src/lib/b.ts"), "// needle here\nneedle();\n");
    await writeFile(join(root, "README.md"), "no match\n");
  });

  it("lists a directory with sizes and directories marked", async () => {
    const out = text(await run(createLsTool(), { path: join(root, "src") }));
    expect(out).toContain(`${join(root, "src/a.ts")} (18 bytes)`);
    expect(out).toMatch(/src\/lib\/? \(directory\)/);
  });

  it("globs recursively with sorted absolute paths", async () => {
    const out = text(await run(createGlobTool(), { pattern: "**/*.ts", path: root }));
    expect(out.split("\n")).toEqual([join(root, "src/a.ts"), join(root, "src/lib/b.ts")]);
    expect(text(await run(createGlobTool(), { pattern: "*.py", path: root }))).toBe(
      "No files found matching pattern '*.py'",
    );
  });

  it("greps literally in each output mode", async () => {
    const content = text(await run(createGrepTool(), { pattern: "needle", path: root }));
    expect(content).toBe(
      [
        `${join(root, "src/a.ts")}:`,
        "  1: const needle = 1;",
        `${join(root, "src/lib/b.ts")}:`,
        "  1: // needle here",
        "  2: needle();",
      ].join("\n"),
    );
    const files = text(
      await run(createGrepTool(), { pattern: "needle", path: root, output_mode: "files_with_matches" }),
    );
    expect(files.split("\n")).toEqual([join(root, "src/a.ts"), join(root, "src/lib/b.ts")]);
    const count = text(await run(createGrepTool(), { pattern: "needle", path: root, output_mode: "count" }));
    expect(count).toContain(`${join(root, "src/lib/b.ts")}: 2`);
    expect(text(await run(createGrepTool(), { pattern: "needle(", path: root }))).toContain("needle();");
  });

  it("deletes directories recursively", async () => {
    const result = await run(createDeleteTool(), { file_path: join(root, "src") });
    expect(text(result)).toBe(`Deleted ${join(root, "src")}`);
    expect(text(await run(createLsTool(), { path: root }))).not.toContain("src");
  });
});
