import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultConfig, loadConfigFile } from "../../../src/config/config-file.js";
import { schemaDefaultConfig } from "../../../src/config/config-schema.js";

// A start without config.toml takes its defaults from a written-out copy instead of loading zod; the
// schema is the truth, so any change to a default there must show up here as a difference.

const dir = mkdtempSync(join(tmpdir(), "deep-acp-config-defaults-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("config defaults", () => {
  it("equal what the schema makes of an empty config", () => {
    expect(defaultConfig()).toStrictEqual(schemaDefaultConfig());
  });

  it("are what an absent file, an empty file and an unparsable file all yield", async () => {
    const empty = join(dir, "empty.toml");
    const broken = join(dir, "broken.toml");
    writeFileSync(empty, "");
    writeFileSync(broken, "[acp\nmax_json_depth = ");
    const absent = await loadConfigFile(join(dir, "absent.toml"));
    expect(absent).toStrictEqual({ config: schemaDefaultConfig(), diagnostics: [], found: false });
    expect((await loadConfigFile(empty)).config).toStrictEqual(schemaDefaultConfig());
    const invalid = await loadConfigFile(broken);
    expect(invalid.config).toStrictEqual(schemaDefaultConfig());
    expect(invalid.diagnostics[0]?.message).toMatch(/^invalid TOML/);
  });

  it("are a fresh copy each time, so one caller's change reaches no other", () => {
    const first = defaultConfig();
    first.acp.max_loaded_sessions = 1;
    first.interpreter.tools.push("write_file");
    expect(defaultConfig().acp.max_loaded_sessions).toBe(32);
    expect(defaultConfig().interpreter.tools).not.toContain("write_file");
  });
});
