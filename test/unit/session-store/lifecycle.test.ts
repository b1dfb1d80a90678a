import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  InvalidAttachmentNameError,
  SessionExistsError,
  SessionNotFoundError,
} from "../../../src/transcript/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let t: TempStore;
afterEach(async () => t?.cleanup());

const turns = (n: number) => Array.from({ length: n }, (_, i) => ({ type: i % 2 ? "assistant" : "user", n: i }));

describe("session store: delete, rewrite, fork, attachments", () => {
  it("deletes the log, the attachments and the listing; deleting again succeeds", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await t.store.create({ id: "s2", cwd: "/p" });
    await t.store.writeAttachment("s1", "state.json", '{"files":{}}');
    await t.store.writeAttachment("s1", "backup-1", new Uint8Array([0, 1, 2]));
    expect((await t.store.list()).sessions).toHaveLength(2);

    await t.store.delete("s1");
    await t.store.delete("s1");
    await t.store.delete("never-existed");
    await t.store.flush(); // index.json is written in the background; flush() writes it now
    expect((await readdir(t.dir)).sort()).toEqual(["index.changes", "index.json", "s2.jsonl"]);
    expect((await t.store.list()).sessions.map((s) => s.id)).toEqual(["s2"]);
    await expect(t.store.read("s1")).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await t.store.listAttachments("s1")).toEqual([]);
  });

  it("stores attachments atomically per session and validates their names", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p" });
    await t.store.writeAttachment("s1", "state.json", "v1");
    void t.store.writeAttachment("s1", "state.json", "v2");
    await t.store.writeAttachment("s1", "rewind-0001.bin", new Uint8Array([255, 0]));
    expect((await t.store.readAttachment("s1", "state.json"))?.toString("utf8")).toBe("v2");
    expect([...(await t.store.readAttachment("s1", "rewind-0001.bin"))!]).toEqual([255, 0]);
    expect(await t.store.readAttachment("s1", "missing")).toBeUndefined();
    expect(await t.store.listAttachments("s1")).toEqual(["rewind-0001.bin", "state.json"]);
    await t.store.deleteAttachment("s1", "rewind-0001.bin");
    await t.store.deleteAttachment("s1", "rewind-0001.bin");
    expect(await t.store.listAttachments("s1")).toEqual(["state.json"]);
    expect(await readdir(join(t.dir, "s1.files"))).toEqual(["state.json"]);

    for (const name of ["../s2.jsonl", ".hidden", "a/b", "", "x".repeat(201)]) {
      await expect(t.store.writeAttachment("s1", name, "x")).rejects.toBeInstanceOf(InvalidAttachmentNameError);
    }
    await expect(t.store.writeAttachment("nope", "state.json", "x")).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await readdir(t.dir)).not.toContain("nope.files");
  });

  it("rewrites the records atomically and keeps the meta", async () => {
    t = await tempStore();
    await t.store.create({ id: "s1", cwd: "/p", extra: { mode: "plan" } });
    for (const record of turns(6)) void t.store.append("s1", record);
    void t.store.updateMeta("s1", { title: "Before rewind" });
    const before = await t.store.read("s1");
    expect(before.records).toHaveLength(6);

    await t.store.rewrite("s1", before.records.slice(0, 2));
    await t.store.append("s1", { type: "user", n: 99 });
    const after = await t.store.read("s1");
    expect(after.records).toEqual([...turns(2), { type: "user", n: 99 }]);
    expect(after.meta).toEqual(before.meta);
    expect(after.diagnostics).toEqual([]);
    const lines = (await readFile(join(t.dir, "s1.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[0]!)).toMatchObject({ $store: "header", title: "Before rewind", extra: { mode: "plan" } });
    expect((await readdir(t.dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    expect((await t.store.list()).sessions[0]).toMatchObject({ id: "s1", title: "Before rewind" });
  });

  it("forks all records or the first N, with attachments, leaving the source untouched", async () => {
    t = await tempStore();
    await t.store.create({ id: "src", cwd: "/p", additionalDirectories: ["/lib"], extra: { model: "m" } });
    for (const record of turns(5)) void t.store.append("src", record);
    void t.store.updateMeta("src", { title: "Source" });
    void t.store.writeAttachment("src", "state.json", "snapshot");

    const full = await t.store.fork("src", { id: "copy", cwd: "/p" });
    expect(full).toMatchObject({
      id: "copy",
      cwd: "/p",
      additionalDirectories: ["/lib"],
      title: "Source",
      extra: { model: "m" },
    });
    expect((await t.store.read("copy")).records).toEqual(turns(5));
    expect((await t.store.readAttachment("copy", "state.json"))?.toString()).toBe("snapshot");

    const partial = await t.store.fork(
      "src",
      { id: "early", cwd: "/q", title: "Early" },
      { uptoRecordCount: 2, copyAttachments: false },
    );
    expect(partial).toMatchObject({ cwd: "/q", title: "Early" });
    expect((await t.store.read("early")).records).toEqual(turns(2));
    expect(await t.store.listAttachments("early")).toEqual([]);

    await t.store.append("copy", { type: "user", n: 100 });
    expect((await t.store.read("src")).records).toEqual(turns(5));
    await expect(t.store.fork("src", { id: "copy", cwd: "/p" })).rejects.toBeInstanceOf(SessionExistsError);
    await expect(t.store.fork("missing", { id: "x", cwd: "/p" })).rejects.toBeInstanceOf(SessionNotFoundError);
    expect((await t.store.read("copy")).records).toHaveLength(6);
    expect((await t.store.list()).sessions.map((s) => s.id).sort()).toEqual(["copy", "early", "src"]);
  });
});
