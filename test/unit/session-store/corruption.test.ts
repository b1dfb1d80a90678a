import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempStore, type TempStore } from "./helpers.js";

let t: TempStore;
afterEach(async () => t?.cleanup());

const logOf = (id: string) => join(t.dir, `${id}.jsonl`);

describe("session store: torn and corrupted logs", () => {
  it("ignores a torn last line with a diagnostic, and the next append starts on its own line", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await t.store.append("s1", { n: 1 });
    await appendFile(logOf("s1"), '{"n":2,"text":"half of a str'); // a writer killed mid-write

    const torn = await t.store.read("s1");
    expect(torn.records).toEqual([{ n: 1 }]);
    expect(torn.diagnostics).toHaveLength(1);
    expect(torn.diagnostics[0]).toMatchObject({ severity: "warning", source: logOf("s1") });
    expect(torn.diagnostics[0]!.message).toMatch(/^line 3: torn last line ignored/);

    await t.store.append("s1", { n: 3 });
    const lines = (await readFile(logOf("s1"), "utf8")).split("\n");
    expect(lines[3]).toBe('{"n":3}');
    const after = await t.store.read("s1");
    expect(after.records).toEqual([{ n: 1 }, { n: 3 }]);
    expect(after.diagnostics.map((d) => d.message)).toEqual(["line 3: invalid JSON, line skipped"]);
  });

  it("skips a corrupted line in the middle and names its line number", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await t.store.append("s1", { n: 1 });
    await appendFile(logOf("s1"), "not json at all\n");
    await t.store.append("s1", { n: 2 });
    await appendFile(logOf("s1"), "\n[1,2]\n");
    await t.store.append("s1", { n: 3 });

    const { records, diagnostics } = await t.store.read("s1");
    expect(records).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      "line 3: invalid JSON, line skipped",
      "line 6: invalid JSON, line skipped",
    ]);
  });

  it("recovers a complete record written right after another process's torn write", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    // Process A died mid-line; process B had already checked the tail and appended its record.
    const tornPrefix = '{"n":1,"args":{"path":"/x","nested":{"k"';
    await appendFile(logOf("s1"), tornPrefix);
    await appendFile(logOf("s1"), '{"n":2,"args":{"deep":{"k":[{"a":1}]}}}\n');
    const { records, diagnostics } = await t.store.read("s1");
    expect(records).toEqual([{ n: 2, args: { deep: { k: [{ a: 1 }] } } }]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      `line 2: dropped ${tornPrefix.length} characters of a torn write before a complete line`,
    ]);
  });

  it("keeps a last line that is complete but lost its newline, consistently with later appends", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await appendFile(logOf("s1"), '{"n":1}');
    expect((await t.store.read("s1")).records).toEqual([{ n: 1 }]);
    await t.store.append("s1", { n: 2 });
    const after = await t.store.read("s1");
    expect(after.records).toEqual([{ n: 1 }, { n: 2 }]);
    expect(after.diagnostics).toEqual([]);
  });

  it("returns the records of a log whose header was destroyed, with an error diagnostic", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await t.store.append("s1", { n: 1 });
    const text = await readFile(logOf("s1"), "utf8");
    await writeFile(logOf("s1"), `garbage${text.slice(text.indexOf("\n"))}`);
    const { meta, records, diagnostics } = await t.store.read("s1");
    expect(records).toEqual([{ n: 1 }]);
    expect(meta).toMatchObject({ id: "s1", cwd: "" });
    expect(diagnostics[0]).toMatchObject({ severity: "error", message: "line 1: missing or corrupted session header" });
    // Not listable without a header, but list() itself keeps working.
    await t.store.create({ id: "s2", cwd: "/p" });
    expect((await t.store.list()).sessions.map((s) => s.id)).toEqual(["s2"]);
  });
});
