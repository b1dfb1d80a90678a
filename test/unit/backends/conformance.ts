import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  multipleOccurrencesMessage,
  stringNotFoundMessage,
  EMPTY_OLD_STRING_MESSAGE,
} from "../../../src/backends/files/edit-semantics.js";
import type { BackendProtocol } from "../../../src/backends/protocol.js";

// One behavioural contract for every BackendProtocol implementation. A subject provides a backend
// and an empty directory (in the backend's own path space) the tests may fill.

export type ConformanceSubject = {
  backend: BackendProtocol;
  /** Absolute, initially empty directory in the backend's path space. */
  base: string;
  /** Backed by a real directory tree: .gitignore and .git are honoured by grep/glob. */
  disk: boolean;
  cleanup(): Promise<void>;
};

export type SubjectFactory = () => Promise<ConformanceSubject>;

const encoder = new TextEncoder();

export function describeBackendConformance(name: string, makeSubject: SubjectFactory): void {
  describe(`backend conformance: ${name}`, () => {
    let subject: ConformanceSubject;
    let b: BackendProtocol;
    const p = (rel: string) => `${subject.base.replace(/\/$/, "")}/${rel}`;

    beforeEach(async () => {
      subject = await makeSubject();
      b = subject.backend;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it("writes a new file (before = null), reads it back, overwrites (before = old text)", async () => {
      const first = await b.write(p("notes/a.txt"), "one\ntwo\n");
      expect(first.error).toBeUndefined();
      expect(first.before).toBeNull();
      const read = await b.read(p("notes/a.txt"));
      expect(read).toMatchObject({ content: "one\ntwo", totalLines: 2 });
      expect(read.mimeType).toMatch(/^text\//);
      const second = await b.write(p("notes/a.txt"), "three");
      expect(second.before).toBe("one\ntwo\n");
      expect((await b.read(p("notes/a.txt"))).content).toBe("three");
    });

    it("reads a window of lines and reports the total", async () => {
      const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
      await b.write(p("ten.txt"), lines.join("\n") + "\n");
      expect(await b.read(p("ten.txt"), 2, 3)).toMatchObject({ content: "line 3\nline 4\nline 5", totalLines: 10 });
      expect((await b.read(p("ten.txt"), 8, 100)).content).toBe("line 9\nline 10");
    });

    it("reads an empty file as empty text with 0 lines", async () => {
      await b.write(p("empty.txt"), "");
      expect(await b.read(p("empty.txt"))).toMatchObject({ content: "", totalLines: 0 });
    });

    it("reports an offset past the end", async () => {
      await b.write(p("three.txt"), "a\nb\nc\n");
      expect((await b.read(p("three.txt"), 5)).error).toBe("Line offset 5 exceeds file length (3 lines)");
    });

    it("answers missing files with errors, never exceptions", async () => {
      const missing = p("nope/missing.txt");
      expect((await b.read(missing)).error).toBeTruthy();
      expect((await b.readRaw(missing)).error).toBeTruthy();
      expect((await b.edit(missing, "a", "b")).error).toBeTruthy();
      expect((await b.ls(p("nope"))).error).toBeTruthy();
      if (b.delete) expect((await b.delete(missing)).error).toBeTruthy();
    });

    it("returns binary files as bytes with their MIME type", async () => {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
      await b.write(p("img/pic.png"), png);
      const read = await b.read(p("img/pic.png"));
      expect(read.mimeType).toBe("image/png");
      expect(read.content).toBeInstanceOf(Uint8Array);
      expect([...(read.content as Uint8Array)]).toEqual([...png]);
      await b.write(p("blob.unknownext"), new Uint8Array([1, 0, 2]));
      const blob = await b.read(p("blob.unknownext"));
      expect(blob.mimeType).toBe("application/octet-stream");
      expect([...(blob.content as Uint8Array)]).toEqual([1, 0, 2]);
    });

    it("readRaw returns the whole text with timestamps", async () => {
      await b.write(p("raw.md"), "# title\nbody\n");
      const raw = await b.readRaw(p("raw.md"));
      expect(raw.data?.content).toBe("# title\nbody\n");
      expect(raw.data?.mimeType).toBe("text/markdown");
      expect(Date.parse(raw.data!.modifiedAt)).not.toBeNaN();
    });

    it("edits with the reference semantics", async () => {
      await b.write(p("e.txt"), "alpha beta alpha gamma alpha\n");
      expect((await b.edit(p("e.txt"), "alpha", "A")).error).toBe(multipleOccurrencesMessage("alpha", 3));
      expect((await b.edit(p("e.txt"), "delta", "D")).error).toBe(stringNotFoundMessage("delta"));
      expect((await b.edit(p("e.txt"), "", "x")).error).toBe(EMPTY_OLD_STRING_MESSAGE);
      const one = await b.edit(p("e.txt"), "beta", "B");
      expect(one).toMatchObject({
        occurrences: 1,
        before: "alpha beta alpha gamma alpha\n",
        after: "alpha B alpha gamma alpha\n",
      });
      const all = await b.edit(p("e.txt"), "alpha", "A", true);
      expect(all.occurrences).toBe(3);
      expect((await b.read(p("e.txt"))).content).toBe("A B A gamma A");
      await b.write(p("blank.txt"), "");
      expect(await b.edit(p("blank.txt"), "", "filled")).toMatchObject({ occurrences: 0, after: "filled" });
      expect((await b.read(p("blank.txt"))).content).toBe("filled");
    });

    it("lists one level, directories with a trailing slash, sorted", async () => {
      await b.write(p("dir/b.txt"), "b");
      await b.write(p("dir/a.txt"), "aa");
      await b.write(p("dir/sub/deep.txt"), "deep");
      const listing = await b.ls(p("dir"));
      expect(listing.error).toBeUndefined();
      expect(listing.files!.map((f) => f.path)).toEqual([p("dir/a.txt"), p("dir/b.txt"), p("dir/sub/")]);
      expect(listing.files!.find((f) => f.path === p("dir/sub/"))?.isDir).toBe(true);
      expect(listing.files!.find((f) => f.path === p("dir/a.txt"))).toMatchObject({ isDir: false, size: 2 });
    });

    it("globs with ** (recursive) and * (one level), dotfiles included, sorted absolute paths", async () => {
      await b.write(p("g/x.ts"), "");
      await b.write(p("g/src/y.ts"), "");
      await b.write(p("g/src/deep/z.ts"), "");
      await b.write(p("g/src/.hidden.ts"), "");
      await b.write(p("g/src/readme.md"), "");
      const all = await b.glob("**/*.ts", p("g"));
      expect(all.files!.map((f) => f.path)).toEqual([
        p("g/src/.hidden.ts"),
        p("g/src/deep/z.ts"),
        p("g/src/y.ts"),
        p("g/x.ts"),
      ]);
      expect((await b.glob("*.ts", p("g"))).files!.map((f) => f.path)).toEqual([p("g/x.ts")]);
      expect((await b.glob("src/*.md", p("g"))).files!.map((f) => f.path)).toEqual([p("g/src/readme.md")]);
      expect((await b.glob(`${p("g")}/src/**/*.ts`)).files!.map((f) => f.path)).toEqual([
        p("g/src/.hidden.ts"),
        p("g/src/deep/z.ts"),
        p("g/src/y.ts"),
      ]);
      expect((await b.glob("**/*.rs", p("g"))).files).toEqual([]);
    });

    it("greps literally with line numbers, a file-name filter and a match cap", async () => {
      await b.write(p("s/one.py"), "x = a.b(1)\nnothing\nprint(a.b(2))\n");
      await b.write(p("s/two.js"), "a.b(3)\r\n");
      await b.write(p("s/deep/three.py"), "zzz a.b( here\n");
      await b.write(p("s/regex.txt"), "aXb(\n");
      const all = await b.grep("a.b(", p("s"));
      expect(all.error).toBeUndefined();
      expect(all.matches).toEqual([
        { path: p("s/deep/three.py"), line: 1, text: "zzz a.b( here" },
        { path: p("s/one.py"), line: 1, text: "x = a.b(1)" },
        { path: p("s/one.py"), line: 3, text: "print(a.b(2))" },
        { path: p("s/two.js"), line: 1, text: "a.b(3)" },
      ]);
      const py = await b.grep("a.b(", p("s"), "*.py");
      expect(py.matches!.map((m) => m.path)).toEqual([p("s/deep/three.py"), p("s/one.py"), p("s/one.py")]);
      const capped = await b.grep("a.b(", p("s"), null, 2);
      expect(capped.matches).toHaveLength(2);
      expect(capped.truncated).toBe(true);
      expect((await b.grep("a.b(", p("s"), null, 4)).truncated).toBeFalsy();
      expect((await b.grep("absent-text", p("s"))).matches).toEqual([]);
      expect((await b.grep("print", p("s/one.py"))).matches).toEqual([
        { path: p("s/one.py"), line: 3, text: "print(a.b(2))" },
      ]);
    });

    it("grep skips binary files", async () => {
      await b.write(p("bin/data.bin"), new Uint8Array([...encoder.encode("needle"), 0, 1]));
      await b.write(p("bin/text.txt"), "needle\n");
      expect((await b.grep("needle", p("bin"))).matches!.map((m) => m.path)).toEqual([p("bin/text.txt")]);
    });

    it("deletes files and whole directories", async (ctx) => {
      if (!b.delete) return ctx.skip();
      await b.write(p("d/keep.txt"), "k");
      await b.write(p("d/tree/a.txt"), "a");
      await b.write(p("d/tree/sub/b.txt"), "b");
      expect((await b.delete(p("d/keep.txt"))).error).toBeUndefined();
      expect((await b.read(p("d/keep.txt"))).error).toBeTruthy();
      expect((await b.delete(p("d/tree"))).error).toBeUndefined();
      expect((await b.read(p("d/tree/sub/b.txt"))).error).toBeTruthy();
      expect((await b.ls(p("d"))).files ?? []).toEqual([]);
    });

    it("uploads and downloads bytes with error codes", async (ctx) => {
      if (!b.uploadFiles || !b.downloadFiles) return ctx.skip();
      const bytes = new Uint8Array([0, 1, 2, 3]);
      expect(await b.uploadFiles([[p("up/file.bin"), bytes]])).toEqual([{ path: p("up/file.bin"), error: null }]);
      const [got, missing] = await b.downloadFiles([p("up/file.bin"), p("up/none.bin")]);
      expect([...got!.content!]).toEqual([0, 1, 2, 3]);
      expect(missing).toEqual({ path: p("up/none.bin"), content: null, error: "file_not_found" });
    });

    it("refuses to write where a directory is, and reading a directory", async () => {
      await b.write(p("isdir/child.txt"), "c");
      expect((await b.write(p("isdir"), "x")).error).toBeTruthy();
      expect((await b.read(p("isdir"))).error).toBeTruthy();
    });

    it("honours .gitignore and skips .git in grep and glob", async (ctx) => {
      if (!subject.disk) return ctx.skip();
      await b.write(p("repo/.gitignore"), "build/\n*.log\n");
      await b.write(p("repo/.git/config"), "needle\n");
      await b.write(p("repo/build/out.txt"), "needle\n");
      await b.write(p("repo/debug.log"), "needle\n");
      await b.write(p("repo/src/main.txt"), "needle\n");
      expect((await b.grep("needle", p("repo"))).matches!.map((m) => m.path)).toEqual([p("repo/src/main.txt")]);
      // A file-name filter must not bring ignored files back.
      expect((await b.grep("needle", p("repo"), "*.log")).matches).toEqual([]);
      expect((await b.grep("needle", p("repo"), "*.txt")).matches!.map((m) => m.path)).toEqual([
        p("repo/src/main.txt"),
      ]);
      expect((await b.grep("needle", p("repo"), "src/*.txt")).matches!.map((m) => m.path)).toEqual([
        p("repo/src/main.txt"),
      ]);
      expect((await b.grep("needle", p("repo"), "build/*.txt")).matches).toEqual([]);
      expect((await b.glob("**/*", p("repo"))).files!.map((f) => f.path)).toEqual([
        p("repo/.gitignore"),
        p("repo/src/main.txt"),
      ]);
    });
  });
}
