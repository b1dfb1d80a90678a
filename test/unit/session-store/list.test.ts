import { appendFile, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidCursorError, type SessionStore } from "../../../src/transcript/store/index.js";
import { steppingClock, tempStore, type TempStore } from "./helpers.js";

let t: TempStore;
afterEach(async () => t?.cleanup());

async function collect(
  store: SessionStore,
  options: { cwd?: string; limit?: number },
  between?: (page: number) => Promise<void>,
) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let page = 0;
  do {
    const result = await store.list({ ...options, ...(cursor ? { cursor } : {}) });
    expect(result.sessions.length).toBeLessThanOrEqual(options.limit ?? 50);
    ids.push(...result.sessions.map((s) => s.id));
    cursor = result.nextCursor;
    if (between) await between(page++);
  } while (cursor);
  return ids;
}

describe("session store: list", () => {
  it("filters by exact cwd and returns the newest updatedAt first with list fields", async () => {
    t = await tempStore();
    await t.store.create({ id: "a", cwd: "/p", additionalDirectories: ["/lib"] });
    await t.store.create({ id: "b", cwd: "/q" });
    await t.store.create({ id: "c", cwd: "/p/sub" });
    await t.store.create({ id: "d", cwd: "/p", extra: { mode: "plan" } });
    await t.store.updateMeta("a", { title: "Refactor parser" });

    const all = await t.store.list();
    expect(all.sessions.map((s) => s.id)).toEqual(["a", "d", "c", "b"]);
    expect(all.nextCursor).toBeUndefined();
    const inP = await t.store.list({ cwd: "/p" });
    expect(inP.sessions.map((s) => s.id)).toEqual(["a", "d"]);
    expect(inP.sessions[0]).toMatchObject({
      id: "a",
      cwd: "/p",
      additionalDirectories: ["/lib"],
      title: "Refactor parser",
    });
    expect(inP.sessions[1]).toMatchObject({ extra: { mode: "plan" } });
    expect(Date.parse(inP.sessions[0]!.updatedAt)).toBeGreaterThan(Date.parse(inP.sessions[0]!.createdAt));
    expect((await t.store.list({ cwd: "/nowhere" })).sessions).toEqual([]);
  });

  it("breaks updatedAt ties by id", async () => {
    t = await tempStore(() => new Date("2026-01-01T00:00:00Z"));
    for (const id of ["m", "b", "z", "a"]) await t.store.create({ id, cwd: "/p" });
    expect((await t.store.list()).sessions.map((s) => s.id)).toEqual(["a", "b", "m", "z"]);
  });

  it("pages through 250 sessions 20 at a time, each exactly once in order, while new sessions appear", async () => {
    t = await tempStore();
    const created: string[] = [];
    for (let i = 0; i < 250; i += 1) {
      const id = `s${String(i).padStart(3, "0")}`;
      created.push(id);
      await t.store.create({ id, cwd: i % 2 === 0 ? "/even" : "/odd" });
    }
    const newestFirst = [...created].reverse();

    const ids = await collect(t.store, { limit: 20 }, async (page) => {
      await t.store.create({ id: `new${page}`, cwd: "/even" });
    });
    expect(ids).toEqual(newestFirst);

    const even = await collect(t.store, { cwd: "/even", limit: 20 });
    expect(even).toEqual([
      ...Array.from({ length: 13 }, (_, p) => `new${12 - p}`),
      ...newestFirst.filter((id) => Number(id.slice(1)) % 2 === 0),
    ]);
  });

  it("rejects cursors it did not make", async () => {
    t = await tempStore();
    await t.store.create({ id: "a", cwd: "/p" });
    for (const cursor of [
      "",
      "!!!",
      "bm90IGpzb24",
      Buffer.from(JSON.stringify({ v: 1, t: "x", id: "a" })).toString("base64url"),
    ]) {
      await expect(t.store.list({ cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    }
  });

  it("rebuilds a deleted or corrupted index from the logs", async () => {
    t = await tempStore();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.create({ id: "b", cwd: "/p" });
    await t.store.updateMeta("a", { title: "Alpha" });
    const expected = (await t.store.list()).sessions;
    await t.store.flush();
    const indexFile = join(t.dir, "index.json");
    expect(JSON.parse(await readFile(indexFile, "utf8")).sessions).toHaveProperty("a");

    await rm(indexFile);
    expect((await t.open().list()).sessions).toEqual(expected);
    await writeFile(indexFile, "{ this is not json");
    expect((await t.open().list()).sessions).toEqual(expected);
    await writeFile(
      indexFile,
      JSON.stringify({
        v: 1,
        sessions: { a: { ino: 1, birthtimeMs: 0, size: 1, mtimeMs: 0, offset: 0, meta: { cwd: "/wrong" } } },
      }),
    );
    expect((await t.open().list()).sessions).toEqual(expected);
  });

  it("does not list a session whose log was deleted behind the index's back", async () => {
    t = await tempStore();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.create({ id: "b", cwd: "/p" });
    await t.store.list();
    await rm(join(t.dir, "a.jsonl"));
    expect((await t.open().list()).sessions.map((s) => s.id)).toEqual(["b"]);
  });

  it("sees meta written by another store after its own index was built", async () => {
    t = await tempStore();
    const other = t.open();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.create({ id: "b", cwd: "/p" });
    expect((await t.store.list()).sessions.map((s) => s.id)).toEqual(["b", "a"]);
    await other.updateMeta("a", { title: "renamed elsewhere" });
    await other.append("b", { type: "user", text: "records do not change the listing" });
    const after = await t.store.list();
    expect(after.sessions.map((s) => [s.id, s.title])).toEqual([
      ["a", "renamed elsewhere"],
      ["b", undefined],
    ]);
  });

  it("follows logs replaced by rewrite or fork in another store", async () => {
    t = await tempStore();
    const other = t.open();
    await t.store.create({ id: "a", cwd: "/p" });
    for (let n = 0; n < 20; n += 1) await t.store.append("a", { n, text: "x".repeat(100) });
    await t.store.list();
    await other.updateMeta("a", { title: "before rewind" });
    await other.rewrite("a", [{ n: 0 }]);
    await other.updateMeta("a", { extra: { rewound: true } });
    await other.fork("a", { id: "f", cwd: "/q" });
    const sessions = (await t.store.list()).sessions;
    expect(sessions.map((s) => [s.id, s.cwd, s.title, s.extra])).toEqual([
      ["f", "/q", "before rewind", { rewound: true }],
      ["a", "/p", "before rewind", { rewound: true }],
    ]);
  });

  it("removes temp files abandoned by a crashed rewrite, not ones in progress", async () => {
    t = await tempStore();
    await t.store.create({ id: "a", cwd: "/p" });
    const abandoned = join(t.dir, ".a.jsonl.0123456789ab.tmp");
    const fresh = join(t.dir, ".a.jsonl.ba9876543210.tmp");
    await writeFile(abandoned, "partial");
    await writeFile(fresh, "partial");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(abandoned, hourAgo, hourAgo);
    expect((await t.store.list()).sessions.map((s) => s.id)).toEqual(["a"]);
    await t.store.flush();
    expect((await readdir(t.dir)).sort()).toEqual([
      ".a.jsonl.ba9876543210.tmp",
      "a.jsonl",
      "index.changes",
      "index.json",
    ]);
  });

  it("ignores a meta line that is torn and picks it up once a writer completes another", async () => {
    t = await tempStore();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.list();
    await appendFile(join(t.dir, "a.jsonl"), '{"$store":"meta","patch":{"title":"half');
    expect((await t.store.list()).sessions[0]).not.toHaveProperty("title");
    await t.store.updateMeta("a", { title: "whole" });
    expect((await t.store.list()).sessions[0]).toMatchObject({ title: "whole" });
  });

  it("folds in meta lines behind more than a megabyte of new records, in this store and a new one", async () => {
    // Past the synchronous scan budget the logs are read through async reads; the result is the same.
    t = await tempStore();
    const other = t.open();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.create({ id: "b", cwd: "/p" });
    await t.store.list();
    const text = "x".repeat(64 * 1024);
    for (let i = 0; i < 20; i++) await other.append("a", { t: "text", text });
    await other.updateMeta("a", { title: "after a long answer" });
    const expected = [
      ["a", "after a long answer"],
      ["b", undefined],
    ];
    expect((await t.store.list()).sessions.map((s) => [s.id, s.title])).toEqual(expected);
    await rm(join(t.dir, "index.json"));
    expect((await t.open().list()).sessions.map((s) => [s.id, s.title])).toEqual(expected);
  });

  it("keeps answering from memory what it read, and flush() writes the index it has not written yet", async () => {
    t = await tempStore();
    const other = t.open();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.list();
    await other.updateMeta("a", { title: "renamed elsewhere" });
    // Changed within the save interval (so this list() leaves the rewrite of index.json for later)...
    expect((await t.store.list()).sessions[0]).toMatchObject({ title: "renamed elsewhere" });
    // ...and flush() writes it now, and a new store trusts it.
    await t.store.flush();
    const onDisk = JSON.parse(await readFile(join(t.dir, "index.json"), "utf8"));
    expect(onDisk.sessions.a.meta.title).toBe("renamed elsewhere");
    expect((await t.open().list()).sessions[0]).toMatchObject({ title: "renamed elsewhere" });
  });

  it("between full passes sees every create, meta update, rewrite, fork and delete another store makes", async () => {
    t = await tempStore(steppingClock(), 3_600_000); // no second full pass in this test
    const other = t.open();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.create({ id: "b", cwd: "/p" });
    await t.store.create({ id: "c", cwd: "/p" });
    expect((await t.store.list()).sessions.map((s) => s.id)).toEqual(["c", "b", "a"]);
    await other.create({ id: "d", cwd: "/p" });
    await other.updateMeta("a", { title: "renamed elsewhere" });
    await other.append("b", { t: "text", text: "records do not change the listing" });
    await other.updateMeta("b", { title: "before the rewrite" });
    await other.rewrite("b", []);
    await other.fork("c", { id: "e", cwd: "/q" });
    await other.delete("c");
    expect((await t.store.list()).sessions.map((s) => [s.id, s.title])).toEqual([
      ["e", undefined],
      ["b", "before the rewrite"],
      ["a", "renamed elsewhere"],
      ["d", undefined],
    ]);
  });

  it("sees a change that was never signalled (an older writer, or one killed before signalling) at its next full pass", async () => {
    const unsignalledTitle = async (store: SessionStore) => {
      await appendFile(join(t.dir, "a.jsonl"), `${JSON.stringify({ $store: "meta", patch: { title: "quiet" } })}\n`);
      return (await store.list()).sessions[0]?.title;
    };
    t = await tempStore(steppingClock(), 0); // every list() is a full pass
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.list();
    expect(await unsignalledTitle(t.store)).toBe("quiet");
    await t.cleanup();

    t = await tempStore(steppingClock(), 3_600_000); // the feed alone until a new store starts
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.list();
    expect(await unsignalledTitle(t.store)).toBeUndefined();
    expect((await t.open().list()).sessions[0]?.title).toBe("quiet");
  });

  it("starts a new change feed when the old one grew large, and readers of the old one follow", async () => {
    t = await tempStore(steppingClock(), 3_600_000);
    const other = t.open();
    await t.store.create({ id: "a", cwd: "/p" });
    await t.store.list();
    await appendFile(join(t.dir, "index.changes"), "a\n".repeat(600_000));
    await other.list(); // its first list is a full pass, which replaces the feed
    expect((await stat(join(t.dir, "index.changes"))).size).toBe(0);
    await other.updateMeta("a", { title: "after the new feed" });
    expect((await t.store.list()).sessions[0]).toMatchObject({ title: "after the new feed" });
  });
});
