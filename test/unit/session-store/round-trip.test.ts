import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  InvalidRecordError,
  InvalidSessionIdError,
  SessionExistsError,
  SessionNotFoundError,
} from "../../../src/transcript/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let t: TempStore;
afterEach(async () => t?.cleanup());

describe("session store: create, append, read", () => {
  it("reads back the header meta and every record in order", async () => {
    t = await tempStore();
    const meta = await t.store.create({
      id: "s1",
      cwd: "/home/me/project",
      additionalDirectories: ["/home/me/lib"],
      extra: { mode: "default" },
    });
    expect(meta).toMatchObject({
      id: "s1",
      cwd: "/home/me/project",
      additionalDirectories: ["/home/me/lib"],
      extra: { mode: "default" },
    });
    expect(meta.updatedAt).toBe(meta.createdAt);

    const records = [
      { type: "user", text: "fix the bug\nin two lines" },
      { type: "assistant", text: "Sure \u2028 line separators stay inside one line" },
      { type: "tool_call", id: "t1", args: { file_path: "/a.ts" }, result: "ok" },
    ];
    for (const record of records) await t.store.append("s1", record);

    const read = await t.store.read("s1");
    expect(read.records).toEqual(records);
    expect(read.meta).toEqual(meta);
    expect(read.diagnostics).toEqual([]);

    const lines = (await readFile(join(t.dir, "s1.jsonl"), "utf8")).split("\n");
    expect(lines).toHaveLength(5); // header, three records, trailing ""
    expect(JSON.parse(lines[0]!)).toMatchObject({ $store: "header", v: 1, id: "s1", cwd: "/home/me/project" });
  });

  it("writes unawaited appends in call order, and read() waits for them", async () => {
    t = await tempStore();
    void t.store.create({ id: "s1", cwd: "/p" });
    for (let n = 0; n < 300; n += 1) void t.store.append("s1", { n });
    const { records } = await t.store.read("s1");
    expect(records.map((r) => r.n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
  });

  it("flush() resolves once queued appends are on disk", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    for (let n = 0; n < 50; n += 1) void t.store.append("s1", { n });
    await t.store.flush();
    const text = await readFile(join(t.dir, "s1.jsonl"), "utf8");
    expect(text.trim().split("\n")).toHaveLength(51);
  });

  it("serialises a record when append() is called, not when it is written", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    const record = { text: "first" };
    const pending = t.store.append("s1", record);
    record.text = "mutated";
    await pending;
    expect((await t.store.read("s1")).records).toEqual([{ text: "first" }]);
  });

  it("folds meta updates into read() and keeps them in the log", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p", extra: { mode: "default", model: "a" } });
    await t.store.append("s1", { type: "user", text: "hi" });
    void t.store.updateMeta("s1", { title: "Fix the bug", extra: { model: "b", mode: null } });
    await t.store.updateMeta("s1", { updatedAt: "2030-01-02T03:04:05Z" });
    const { meta, records } = await t.store.read("s1");
    expect(records).toEqual([{ type: "user", text: "hi" }]);
    expect(meta).toMatchObject({ title: "Fix the bug", extra: { model: "b" }, updatedAt: "2030-01-02T03:04:05.000Z" });
    expect(meta.extra).not.toHaveProperty("mode");
    await t.store.updateMeta("s1", { title: null });
    expect((await t.store.read("s1")).meta).not.toHaveProperty("title");
  });

  it("has a meta update with nothing queued on disk when updateMeta returns, in order with appends", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    void t.store.append("s1", { type: "user", text: "hi" });
    void t.store.updateMeta("s1", { title: "Now on disk" });
    void t.store.append("s1", { type: "assistant", text: "hello" });
    // Read straight from the file, without waiting for anything the store may have queued.
    const lines = (await readFile(join(t.dir, "s1.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('"hi"');
    expect(lines[2]).toContain("Now on disk");
    expect(lines[3]).toContain("hello");
    expect((await t.store.read("s1")).meta.title).toBe("Now on disk");
  });

  it("rejects bad ids, reserved keys, unknown sessions and duplicate creates with typed errors", async () => {
    t = await tempStore();
    await expect(t.store.create({ id: "../escape", cwd: "/p" })).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(t.store.create({ id: "a".repeat(129), cwd: "/p" })).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(t.store.read("nope")).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(t.store.append("nope", { a: 1 })).rejects.toBeInstanceOf(SessionNotFoundError);
    await t.store.create({ id: "s1", cwd: "/p" });
    await expect(t.store.create({ id: "s1", cwd: "/q" })).rejects.toBeInstanceOf(SessionExistsError);
    await expect(t.store.append("s1", { $store: "meta" })).rejects.toBeInstanceOf(InvalidRecordError);
    await expect(t.store.append("s1", [1, 2] as unknown as Record<string, unknown>)).rejects.toBeInstanceOf(
      InvalidRecordError,
    );
    await expect(t.store.append("s1", { toJSON: () => "not an object" })).rejects.toBeInstanceOf(InvalidRecordError);
    expect((await readdir(t.dir)).sort()).toEqual(["index.changes", "s1.jsonl"]);
  });

  it("does not recreate the log of a deleted session when an append arrives late", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await t.store.delete("s1");
    await expect(t.store.append("s1", { late: true })).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await readdir(t.dir)).not.toContain("s1.jsonl");
  });

  it("keeps the sessions dir 0700 and every file 0600", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await t.store.append("s1", { a: 1 });
    await t.store.writeAttachment("s1", "state.json", "{}");
    await t.store.rewrite("s1", [{ b: 2 }]);
    await t.store.fork("s1", { id: "s2", cwd: "/p" });
    await t.store.list();
    await t.store.flush();
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(t.dir)).toBe(0o700);
    expect(await mode(join(t.dir, "s1.files"))).toBe(0o700);
    expect(await mode(join(t.dir, "s2.files"))).toBe(0o700);
    for (const file of [
      "s1.jsonl",
      "s2.jsonl",
      "index.json",
      "index.changes",
      "s1.files/state.json",
      "s2.files/state.json",
    ]) {
      expect([file, await mode(join(t.dir, file))]).toEqual([file, 0o600]);
    }
  });
});
