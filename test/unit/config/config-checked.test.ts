import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfigFile } from "../../../src/config/config-file.js";

// A start with a config.toml takes the result of checking it from the last start when the file and the
// schema are the same, so the schema library is not loaded on the way to the editor's first session.

const dir = mkdtempSync(join(tmpdir(), "deep-acp-config-checked-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a kept config check", () => {
  const configFile = join(dir, "config.toml");
  const checked = { file: join(dir, "state", "config-checked.json"), schemaId: "schema-1" };
  const forge = (change: (record: { config: { acp: { max_loaded_sessions: number } } }) => void) => {
    const record = JSON.parse(readFileSync(checked.file, "utf8"));
    change(record);
    writeFileSync(checked.file, JSON.stringify(record));
  };

  it("is used while the file and the schema stay the same, and only then", async () => {
    writeFileSync(configFile, "bogus = 1\n[acp]\nmax_loaded_sessions = 5\n");
    const first = await loadConfigFile(configFile, checked);
    expect(first.config.acp.max_loaded_sessions).toBe(5);
    expect(first.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/unknown key "bogus"/)]);
    // Marked, so its use shows: the same file and schema now yield the kept result, diagnostics and all.
    forge((record) => (record.config.acp.max_loaded_sessions = 7));
    const kept = await loadConfigFile(configFile, checked);
    expect(kept.config.acp.max_loaded_sessions).toBe(7);
    expect(kept.diagnostics).toEqual(first.diagnostics);
    // Another schema: checked again.
    expect(
      (await loadConfigFile(configFile, { ...checked, schemaId: "schema-2" })).config.acp.max_loaded_sessions,
    ).toBe(5);
    // Another file: checked again.
    forge((record) => (record.config.acp.max_loaded_sessions = 7));
    writeFileSync(configFile, "[acp]\nmax_loaded_sessions = 6\n");
    expect((await loadConfigFile(configFile, checked)).config.acp.max_loaded_sessions).toBe(6);
  });

  it("is ignored when unreadable, and the file is checked as if there were none", async () => {
    writeFileSync(configFile, "[acp]\nmax_loaded_sessions = 4\n");
    writeFileSync(checked.file, "{not json");
    expect((await loadConfigFile(configFile, checked)).config.acp.max_loaded_sessions).toBe(4);
    writeFileSync(checked.file, JSON.stringify({ schemaId: "schema-1", sha256: 5 }));
    expect((await loadConfigFile(configFile, checked)).config.acp.max_loaded_sessions).toBe(4);
  });

  it("is not needed to start: a state folder that cannot be written only costs the check", async () => {
    writeFileSync(configFile, "[acp]\nmax_loaded_sessions = 3\n");
    const blocked = { file: join(configFile, "cannot", "be", "here.json"), schemaId: "schema-1" };
    const result = await loadConfigFile(configFile, blocked);
    expect(result.config.acp.max_loaded_sessions).toBe(3);
    expect(result.found).toBe(true);
  });
});
