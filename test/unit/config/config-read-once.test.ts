import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../../src/cli/args/args.js";
import { createCoreServices } from "../../../src/cli/services/core-services.js";
import { createServices } from "../../../src/cli/services/services.js";
import { defaultConfig } from "../../../src/config/config-file.js";
import { createLogger } from "../../../src/util/logger.js";

// The early handshake reads config.toml before the rest of the agent loads, and reports its problems
// (an editor that only initializes still sees them); the rest takes that read over instead of
// reading the file again, and does not report them a second time.

const home = mkdtempSync(join(tmpdir(), "deep-acp-config-once-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("a config read handed over", () => {
  it("is what config() gives, and its problems are not reported again", async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "warn", write: (line) => void lines.push(line) });
    const config = defaultConfig();
    config.acp.max_loaded_sessions = 3; // no file says so: it can only come from the handed-over read
    const diagnostics = [
      { severity: "warning" as const, source: "config.toml", message: 'unknown key "bogus" (ignored)' },
    ];
    const services = createServices({
      cli: parseCliArgs([]),
      env: {},
      logger,
      home,
      firstConfigRead: Promise.resolve({ config, diagnostics }),
    });
    expect((await services.config()).config.acp.max_loaded_sessions).toBe(3);
    expect((await services.config()).config.acp.max_loaded_sessions).toBe(3);
    expect(lines.filter((l) => l.includes("bogus"))).toEqual([]);
    // A reload reads the file (absent here: defaults).
    expect((await services.reloadConfig()).config.acp.max_loaded_sessions).toBe(32);
  });

  it("is reported by the services that read it", async () => {
    mkdirSync(join(home, ".deepagents"), { recursive: true });
    writeFileSync(join(home, ".deepagents", "config.toml"), "bogus = 1\n");
    const lines: string[] = [];
    const logger = createLogger({ level: "warn", write: (line) => void lines.push(line) });
    const core = createCoreServices({ cli: parseCliArgs([]), env: {}, logger, home });
    const read = core.config();
    await read;
    expect(lines.filter((l) => l.includes("bogus"))).toHaveLength(1);
    const rest = createServices({ cli: parseCliArgs([]), env: {}, logger, home, firstConfigRead: read });
    await rest.config();
    expect(lines.filter((l) => l.includes("bogus"))).toHaveLength(1);
  });
});
