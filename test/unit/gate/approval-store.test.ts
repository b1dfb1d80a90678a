import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApprovalStore } from "../../../src/gate/memory/approval-store.js";

let home: string;
let stateDir: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-approvals-"));
  stateDir = join(home, ".deepagents", ".state");
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const clock = () => new Date("2026-03-01T12:00:00Z");

describe("approval store", () => {
  it("remembers decisions per project root in a private file", async () => {
    const store = createApprovalStore({ stateDir, clock });
    expect(await store.lookup("/proj/a", "execute:npm test")).toBeUndefined();
    await store.remember("/proj/a", "execute:npm test", "allow", "Always allow `npm test`");
    await store.remember("/proj/a", "edit:/proj/a/**", "deny", "Never edit");
    await store.remember("/proj/b", "execute:npm test", "deny", "no");

    expect(await store.lookup("/proj/a", "execute:npm test")).toBe("allow");
    expect(await store.lookup("/proj/a/", "execute:npm test")).toBe("allow");
    expect(await store.lookup("/proj/b", "execute:npm test")).toBe("deny");
    expect(await store.lookup("/proj/c", "execute:npm test")).toBeUndefined();

    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    const onDisk = JSON.parse(await readFile(store.path, "utf8"));
    expect(onDisk.projects["/proj/a"]["execute:npm test"]).toEqual({
      decision: "allow",
      label: "Always allow `npm test`",
      updatedAt: "2026-03-01T12:00:00.000Z",
    });

    // A second process sees the same decisions.
    expect(await createApprovalStore({ stateDir }).lookup("/proj/a", "edit:/proj/a/**")).toBe("deny");
  });

  it("lists and forgets entries", async () => {
    const store = createApprovalStore({ stateDir, clock });
    await store.remember("/p", "b", "allow", "B");
    await store.remember("/p", "a", "deny", "A");
    expect(await store.list("/p")).toEqual([
      { key: "a", decision: "deny", label: "A", updatedAt: "2026-03-01T12:00:00.000Z" },
      { key: "b", decision: "allow", label: "B", updatedAt: "2026-03-01T12:00:00.000Z" },
    ]);
    expect(await store.forget("/p", "a")).toBe(true);
    expect(await store.forget("/p", "a")).toBe(false);
    expect(await store.forget("/p", "constructor")).toBe(false);
    expect((await store.list("/p")).map((e) => e.key)).toEqual(["b"]);
  });

  it("treats ordinary-looking keys such as __proto__ as plain entries", async () => {
    const store = createApprovalStore({ stateDir });
    await store.remember("/p", "__proto__", "allow", "odd");
    expect(await store.lookup("/p", "__proto__")).toBe("allow");
    expect(await store.lookup("/p", "toString")).toBeUndefined();
  });

  it("survives concurrent remembers without losing any", async () => {
    const store = createApprovalStore({ stateDir });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.remember("/p", `k${i}`, "allow", `${i}`)));
    expect(await store.list("/p")).toHaveLength(20);
  });

  it("treats a corrupted file as empty, reports it, and keeps a copy when writing", async () => {
    await mkdir(stateDir, { recursive: true });
    const path = join(stateDir, "approvals.json");
    await writeFile(path, "{ not json");
    const store = createApprovalStore({ stateDir });
    expect(await store.lookup("/p", "k")).toBeUndefined();
    expect(store.diagnostics()).toEqual([
      expect.objectContaining({ severity: "warning", source: path, message: expect.stringMatching(/corrupted/) }),
    ]);
    await store.remember("/p", "k", "allow", "K");
    expect(await store.lookup("/p", "k")).toBe("allow");
    expect(await readFile(`${path}.corrupt`, "utf8")).toBe("{ not json");
    expect(store.diagnostics()).toEqual([]);

    await writeFile(
      path,
      JSON.stringify({ projects: { "/p": { good: { decision: "allow", label: "g" }, bad: { decision: "maybe" } } } }),
    );
    expect(await store.lookup("/p", "good")).toBe("allow");
    expect(await store.lookup("/p", "bad")).toBeUndefined();
    expect(store.diagnostics().map((d) => d.message)).toEqual(["ignored malformed approval for /p: bad"]);
    expect(existsSync(path)).toBe(true);
  });
});
