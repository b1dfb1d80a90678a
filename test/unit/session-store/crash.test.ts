import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reap, spawnAppendLoop, tempStore, type Child, type TempStore } from "./helpers.js";

let t: TempStore;
const children: Child[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map(reap));
  await t?.cleanup();
});

/** Highest sequence number the child reported as written. */
const lastReported = (child: Child) => Math.max(-1, ...child.lines.filter((l) => /^\d+$/.test(l)).map(Number));

async function killMidStream(bytes: number, afterRecords: number) {
  t = await tempStore();
  await t.store.create({ id: "live", cwd: "/p" });
  const child = spawnAppendLoop(["--dir", t.dir, "--id", "live", "--bytes", String(bytes)]);
  children.push(child);
  await child.waitForLine((line) => Number(line) >= afterRecords);
  child.process.kill("SIGKILL");
  const exit = await child.exited;
  expect(exit.signal).toBe("SIGKILL");
  return lastReported(child);
}

function expectPrefix(records: Record<string, unknown>[], reported: number) {
  // Every reported record is there, in order; at most the one being written when the kill landed
  // may follow (its append completed but the child died before printing).
  expect(records.length).toBeGreaterThanOrEqual(reported + 1);
  expect(records.length).toBeLessThanOrEqual(reported + 2);
  expect(records.map((r) => r.n)).toEqual(Array.from({ length: records.length }, (_, n) => n));
}

describe("session store: a process killed with SIGKILL", () => {
  it("loses nothing it reported written during a stream of small events", async () => {
    const reported = await killMidStream(200, 300);
    const { records, diagnostics } = await t.open().read("live");
    expectPrefix(records, reported);
    expect(diagnostics.every((d) => /torn last line ignored/.test(d.message))).toBe(true);
    expect(diagnostics.length).toBeLessThanOrEqual(1);
  });

  it("loses nothing it reported written during large tool results, and the log stays appendable", async () => {
    const reported = await killMidStream(256 * 1024, 8);
    const store = t.open();
    const { records, diagnostics } = await store.read("live");
    expectPrefix(records, reported);
    expect(diagnostics.length).toBeLessThanOrEqual(1);

    await store.append("live", { type: "user", text: "after the crash" });
    const after = await t.open().read("live");
    expect(after.records.slice(0, records.length)).toEqual(records);
    expect(after.records.at(-1)).toEqual({ type: "user", text: "after the crash" });
    expect(
      (await readFile(join(t.dir, "live.jsonl"), "utf8")).endsWith('{"type":"user","text":"after the crash"}\n'),
    ).toBe(true);
  });
});

describe("session store: several processes on one directory", () => {
  it("two child processes appending to one session and creating their own lose nothing", async () => {
    t = await tempStore();
    await t.store.create({ id: "shared", cwd: "/p" });
    const a = spawnAppendLoop([
      "--dir",
      t.dir,
      "--id",
      "shared",
      "--tag",
      "a",
      "--count",
      "200",
      "--own-session",
      "only-a",
    ]);
    const b = spawnAppendLoop([
      "--dir",
      t.dir,
      "--id",
      "shared",
      "--tag",
      "b",
      "--count",
      "200",
      "--own-session",
      "only-b",
    ]);
    children.push(a, b);
    const [exitA, exitB] = await Promise.all([a.exited, b.exited]);
    expect([exitA.code, exitA.stderr, exitB.code, exitB.stderr]).toEqual([0, "", 0, ""]);

    const { records, diagnostics } = await t.store.read("shared");
    expect(diagnostics).toEqual([]);
    for (const tag of ["a", "b"]) {
      expect(records.filter((r) => r.tag === tag).map((r) => r.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    }
    const listed = (await t.store.list()).sessions.map((s) => [s.id, s.title ?? null]).sort();
    expect(listed).toEqual([
      ["only-a", "title from a"],
      ["only-b", "title from b"],
      ["shared", null],
    ]);
  });

  it("two stores interleaving appends, meta updates and lists lose no update", async () => {
    t = await tempStore();
    const one = t.store;
    const two = t.open();
    await one.create({ id: "s", cwd: "/p" });
    await one.list();
    await two.list();
    const work: Promise<unknown>[] = [];
    for (let n = 0; n < 100; n += 1) {
      work.push(one.append("s", { from: 1, n }), two.append("s", { from: 2, n }));
      if (n % 25 === 0) work.push(one.create({ id: `one-${n}`, cwd: "/p" }), two.create({ id: `two-${n}`, cwd: "/q" }));
    }
    work.push(one.updateMeta("s", { extra: { fromOne: true } }), two.updateMeta("s", { extra: { fromTwo: true } }));
    await Promise.all(work);

    const { records, meta } = await two.read("s");
    for (const from of [1, 2])
      expect(records.filter((r) => r.from === from).map((r) => r.n)).toEqual(Array.from({ length: 100 }, (_, n) => n));
    expect(meta.extra).toEqual({ fromOne: true, fromTwo: true });
    for (const store of [one, two]) {
      const sessions = (await store.list()).sessions;
      expect(sessions).toHaveLength(9);
      expect(sessions.find((s) => s.id === "s")?.extra).toEqual({ fromOne: true, fromTwo: true });
    }
  });
});
