import { describe, expect, it } from "vitest";
import { performStringReplacement } from "../../../src/backends/files/edit-semantics.js";
import { planGlob } from "../../../src/backends/search/glob-plan.js";
import { createLineWindowCollector, windowLines } from "../../../src/backends/files/line-window.js";
import { detectMimeType, getMimeType, isTextMimeType, looksBinary } from "../../../src/backends/files/mime.js";
import { createOutputBuffer } from "../../../src/backends/processes/output-buffer.js";
import { searchText } from "../../../src/backends/search/grep-files.js";

describe("performStringReplacement", () => {
  it("renders the reference error texts once prefixed by the tool", () => {
    const error = (r: ReturnType<typeof performStringReplacement>) => (r.ok ? "" : `Error: ${r.error}`);
    expect(error(performStringReplacement("abc", "", "x"))).toBe(
      "Error: oldString cannot be empty when file has content",
    );
    expect(error(performStringReplacement("abc", "zz", "x"))).toBe("Error: String not found in file: 'zz'");
    expect(error(performStringReplacement("a a", "a", "b"))).toBe(
      "Error: String 'a' has multiple occurrences (appears 2 times) in file. Use replace_all=True to replace all instances, or provide a more specific string with surrounding context.",
    );
  });

  it("replaces literally ($ patterns are not special)", () => {
    expect(performStringReplacement("x $& y", "$&", "$1", false)).toEqual({
      ok: true,
      content: "x $1 y",
      occurrences: 1,
    });
    expect(performStringReplacement("", "", "new", false)).toEqual({ ok: true, content: "new", occurrences: 0 });
    expect(performStringReplacement("aaa", "a", "b", true)).toEqual({ ok: true, content: "bbb", occurrences: 3 });
  });
});

describe("mime", () => {
  it("knows images, pdf, audio and text types, and sniffs unknown extensions", () => {
    expect(getMimeType("/x/A.PNG")).toBe("image/png");
    expect(getMimeType("doc.pdf")).toBe("application/pdf");
    expect(getMimeType("song.mp3")).toBe("audio/mpeg");
    expect(getMimeType("Makefile")).toBeUndefined();
    expect(isTextMimeType("application/json")).toBe(true);
    expect(isTextMimeType("image/svg+xml")).toBe(true);
    expect(isTextMimeType("image/png")).toBe(false);
    expect(detectMimeType("Makefile", new TextEncoder().encode("all:\n"))).toBe("text/plain");
    expect(detectMimeType("data", new Uint8Array([1, 0]))).toBe("application/octet-stream");
    const lateNul = new Uint8Array(9000).fill(65);
    lateNul[8500] = 0;
    expect(looksBinary(lateNul)).toBe(false);
  });
});

describe("line windows", () => {
  it("counts lines like a reader does", () => {
    expect(windowLines("")).toEqual({ content: "", totalLines: 0 });
    expect(windowLines("a")).toEqual({ content: "a", totalLines: 1 });
    expect(windowLines("a\nb\n", 1)).toEqual({ content: "b", totalLines: 2 });
    expect(windowLines("a\n\nb", 0, 2)).toEqual({ content: "a\n", totalLines: 3 });
    expect(windowLines("a\nb\n", 2)).toEqual({ error: "Line offset 2 exceeds file length (2 lines)" });
    expect(windowLines("a", -1).error).toMatch(/non-negative/);
  });

  it("gives the same window when the text arrives in chunks", () => {
    const text = Array.from({ length: 50 }, (_, i) => `line-${i}`).join("\n") + "\n";
    const collector = createLineWindowCollector(10, 5);
    for (let i = 0; i < text.length; i += 7) collector.push(text.slice(i, i + 7));
    expect(collector.finish()).toEqual(windowLines(text, 10, 5));
  });
});

describe("output buffer", () => {
  it("keeps everything that fits and head + tail of the rest", () => {
    const small = createOutputBuffer(10);
    small.push("12345");
    small.push("67890");
    expect(small.result()).toEqual({ output: "1234567890", truncated: false });
    const big = createOutputBuffer(10);
    for (const c of "abcdefghijklmnopqrstuvwxyz") big.push(c);
    expect(big.result()).toEqual({ output: "abcde\n[... 16 characters truncated ...]\nvwxyz", truncated: true });
  });
});

describe("glob planning", () => {
  it("walks only the literal leading directories, with a depth limit when there is no **", () => {
    expect(planGlob("*.py", "/p")).toEqual({ base: "/p", rest: "*.py", maxDepth: 1 });
    expect(planGlob("src/components/**/*.tsx", "/p")).toEqual({
      base: "/p/src/components",
      rest: "**/*.tsx",
      maxDepth: undefined,
    });
    expect(planGlob("/abs/dir/*/x.ts", "/ignored")).toEqual({ base: "/abs/dir", rest: "*/x.ts", maxDepth: 2 });
    expect(planGlob("./a/b.txt", "/")).toEqual({ base: "/a", rest: "b.txt", maxDepth: 1 });
  });
});

describe("searchText", () => {
  it("reports each matching line once with 1-based numbers", () => {
    const found: Array<[number, string]> = [];
    searchText("xx\nno\nxx xx\r\n\nlast xx", "xx", (line, text) => {
      found.push([line, text]);
      return true;
    });
    expect(found).toEqual([
      [1, "xx"],
      [3, "xx xx"],
      [5, "last xx"],
    ]);
  });
});
