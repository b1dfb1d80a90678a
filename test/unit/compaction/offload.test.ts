import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createContentPreview,
  createResultOffloader,
  sanitizeToolCallId,
} from "../../../src/turn/compaction/offload.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { builtinTools } from "../../../src/tools/registry.js";
import type { AnyTool, ToolResult } from "../../../src/tools/types.js";
import { readText, sessionBackends } from "./helpers.js";

function tool(name: string): AnyTool {
  return defineTool({
    name,
    hookName: name,
    description: name,
    kind: "other",
    effect: "none",
    schema: z.object({}),
    present: () => ({ title: name }),
    execute: async () => ({ content: [] }),
  });
}

const numberedLines = (count: number, width = 10) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1} `.padEnd(width, "x")).join("\n");
const textOf = (result: ToolResult) =>
  result.content.map((p) => (p.type === "text" ? p.text : `[${p.mimeType}]`)).join("|");

describe("createContentPreview", () => {
  it("numbers the first and last five lines like read_file and says how many are left out", () => {
    const text = Array.from({ length: 20 }, (_, i) => `row ${i + 1}`).join("\n");
    expect(createContentPreview(text)).toBe(
      [
        "     1\trow 1",
        "     2\trow 2",
        "     3\trow 3",
        "     4\trow 4",
        "     5\trow 5",
        "... [10 lines truncated] ...",
        "    16\trow 16",
        "    17\trow 17",
        "    18\trow 18",
        "    19\trow 19",
        "    20\trow 20",
      ].join("\n"),
    );
  });

  it("shows short texts whole and cuts every line to 1000 characters", () => {
    expect(createContentPreview("a\nb\n")).toBe("     1\ta\n     2\tb");
    expect(createContentPreview("z".repeat(5000))).toBe(`     1\t${"z".repeat(1000)}`);
  });
});

describe("createResultOffloader", () => {
  it("saves a result over the threshold and gives the model the path and a preview", async () => {
    const { backend, results } = sessionBackends();
    const finalize = createResultOffloader({ backend });
    const text = numberedLines(8001); // 8001 lines × 10 chars + newlines > 80,000
    const result = await finalize(
      { toolCallId: "toolu_01", tool: tool("execute") },
      { content: [{ type: "text", text }] },
    );

    expect(await readText(backend, "/large_tool_results/toolu_01.txt")).toBe(text);
    expect(await readText(results, "/toolu_01.txt")).toBe(text);
    expect(result.content).toHaveLength(1);
    expect(textOf(result)).toBe(
      [
        "Tool result too large, the result of this tool call toolu_01 was saved in the filesystem at this path: /large_tool_results/toolu_01.txt",
        "You can read the result from the filesystem by using the read_file tool, but make sure to only read part of the result at a time.",
        "You can do this by specifying an offset and limit in the read_file tool call.",
        "For example, to read the first 100 lines, you can use the read_file tool with offset=0 and limit=100.",
        "",
        "Here is a preview showing the head and tail of the result (lines of the form",
        "... [N lines truncated] ...",
        "indicate omitted lines in the middle of the content):",
        "",
        createContentPreview(text),
      ].join("\n"),
    );
    expect(textOf(result)).toContain("... [7991 lines truncated] ...");
    expect(textOf(result)).toContain("  8001\tline 8001 ");
  });

  it("leaves results at or under the threshold alone", async () => {
    const { backend, results } = sessionBackends();
    const finalize = createResultOffloader({ backend, thresholdChars: 100 });
    const result: ToolResult = { content: [{ type: "text", text: "y".repeat(100) }] };
    expect(await finalize({ toolCallId: "c1", tool: tool("execute") }, result)).toBe(result);
    expect((await results.ls("/")).files ?? []).toEqual([]);

    const over = await finalize(
      { toolCallId: "c2", tool: tool("execute") },
      { content: [{ type: "text", text: "y".repeat(101) }] },
    );
    expect(textOf(over)).toContain("/large_tool_results/c2.txt");
  });

  it("counts the text of all parts together", async () => {
    const { backend } = sessionBackends();
    const finalize = createResultOffloader({ backend, thresholdChars: 100 });
    const result = await finalize(
      { toolCallId: "c", tool: tool("mcp_server_tool") },
      {
        content: [
          { type: "text", text: "a".repeat(60) },
          { type: "text", text: "b".repeat(60) },
        ],
      },
    );
    expect(await readText(backend, "/large_tool_results/c.txt")).toBe(`${"a".repeat(60)}\n${"b".repeat(60)}`);
    expect(textOf(result)).toMatch(/^Tool result too large/);
  });

  it("never offloads the file tools (they have their own output limits)", async () => {
    const { backend, results } = sessionBackends();
    const finalize = createResultOffloader({ backend, thresholdChars: 10 });
    const fileTools = builtinTools({ supportsImages: true, canExecute: true }).filter(
      (t) => t.offloadLargeResults === false,
    );
    expect(fileTools.map((t) => t.name).sort()).toEqual([
      "delete",
      "edit_file",
      "glob",
      "grep",
      "ls",
      "read_file",
      "write_file",
    ]);
    for (const fileTool of fileTools) {
      const result: ToolResult = { content: [{ type: "text", text: "q".repeat(50) }] };
      expect(await finalize({ toolCallId: fileTool.name, tool: fileTool }, result)).toBe(result);
    }
    expect((await results.ls("/")).files ?? []).toEqual([]);
  });

  it("turns '.', '/' and '\\' of the call id into '_' in the file name", async () => {
    expect(sanitizeToolCallId("call.1/../a\\b")).toBe("call_1____a_b");
    const { backend } = sessionBackends();
    const finalize = createResultOffloader({ backend, thresholdChars: 10 });
    const result = await finalize(
      { toolCallId: "call.1/../a\\b", tool: tool("execute") },
      { content: [{ type: "text", text: "w".repeat(20) }] },
    );
    expect(await readText(backend, "/large_tool_results/call_1____a_b.txt")).toBe("w".repeat(20));
    expect(textOf(result)).toContain(
      "the result of this tool call call.1/../a\\b was saved in the filesystem at this path: /large_tool_results/call_1____a_b.txt",
    );
  });

  it("keeps images for the model, the error flag, and the real output for the editor", async () => {
    const { backend } = sessionBackends();
    const finalize = createResultOffloader({ backend, thresholdChars: 10 });
    const image = { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" };
    const original: ToolResult = {
      content: [{ type: "text", text: "e".repeat(30) }, image],
      isError: true,
      rawOutput: { exitCode: 1 },
    };
    const result = await finalize({ toolCallId: "c", tool: tool("execute") }, original);
    expect(result.content[1]).toEqual(image);
    expect(result.isError).toBe(true);
    expect(result.rawOutput).toEqual({ exitCode: 1 });
    expect(result.display).toEqual([{ type: "text", text: "e".repeat(30) }, image]);

    const withDisplay: ToolResult = {
      content: [{ type: "text", text: "e".repeat(30) }],
      display: [{ type: "terminal", terminalId: "t1" }],
    };
    expect((await finalize({ toolCallId: "d", tool: tool("execute") }, withDisplay)).display).toEqual([
      { type: "terminal", terminalId: "t1" },
    ]);
  });

  it("says why when the result cannot be saved and keeps the head and tail of the text instead", async () => {
    // A file where the directory should be: the state backend refuses to write below it.
    const backend = createStateBackend();
    await backend.write("/large_tool_results", "not a directory");
    const finalize = createResultOffloader({ backend, thresholdChars: 400 });
    const text = "H".repeat(300) + "M".repeat(300) + "T".repeat(300);
    const result = await finalize({ toolCallId: "c", tool: tool("execute") }, { content: [{ type: "text", text }] });
    const message = textOf(result);
    expect(message).toMatch(
      /^Tool result too large, but the result could not be saved to the filesystem: Not a directory/,
    );
    expect(message).toContain(`${"H".repeat(50)}\n... [800 characters truncated] ...\n${"T".repeat(50)}`);
    expect(message).not.toContain("M");
  });
});
