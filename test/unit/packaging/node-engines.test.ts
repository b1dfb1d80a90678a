import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectNodeFacts } from "../../../src/cli/doctor/doctor-system.js";

// package.json "engines" claims the Node release lines .ci/run tests on, and no others: the machine's
// Node 20 runs the whole suite, .ci/node-releases' CI_NODE_VERSIONS the end-to-end tests.

const REPO = join(import.meta.dirname, "..", "..", "..");
const engines: string = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).engines.node;
const ciVersions = /CI_NODE_VERSIONS=\(([^)]*)\)/
  .exec(readFileSync(join(REPO, ".ci", "node-releases"), "utf8"))![1]!
  .split(/\s+/);

describe("engines", () => {
  it("claims one line per runtime .ci/run tests, each from the version it tests", () => {
    const lines = engines.split("||").map((range) => range.trim());
    expect(lines).toEqual(["^20.20.0", ...ciVersions.map((version) => `^${version.replace(/\.\d+$/, ".0")}`)]);
    for (const version of ciVersions) expect(collectNodeFacts(`v${version}`).diagnostics).toEqual([]);
    expect(collectNodeFacts(process.version).diagnostics).toEqual([]);
  });

  it("doctor calls an older Node an error and an untested newer one a warning", () => {
    expect(collectNodeFacts("v18.20.0")).toMatchObject({ ok: false, diagnostics: [{ severity: "error" }] });
    expect(collectNodeFacts("v20.19.0")).toMatchObject({ ok: false, diagnostics: [{ severity: "error" }] });
    expect(collectNodeFacts("v23.11.0")).toMatchObject({ ok: true, diagnostics: [{ severity: "warning" }] });
    expect(collectNodeFacts("v26.12.1").diagnostics[0]?.message).toContain("not a release deep-acp is tested on");
    expect(collectNodeFacts("v24.22.3")).toMatchObject({ ok: true, diagnostics: [] });
  });
});
