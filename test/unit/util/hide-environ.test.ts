// A command the user approves can read /proc/<agent pid>/environ. The agent overwrites its secrets
// there at start, and process.env keeps them; deleting from process.env alone would not do it.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const SECRET = "sk-ant-MARKER-environ-77";
const probe = (code: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "-e", code], {
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: SECRET, GITHUB_TOKEN: "ghp_MARKER", PLAIN: "kept" },
    encoding: "utf8",
    cwd: __dirname,
  });

describe.skipIf(process.platform !== "linux")("hideSecretsFromProcEnviron", () => {
  it("deleting from process.env leaves the secret in /proc/self/environ (why the agent does more)", () => {
    const out = probe(
      `delete process.env.ANTHROPIC_API_KEY; process.stdout.write(String(require("fs").readFileSync("/proc/self/environ", "latin1").includes(${JSON.stringify(SECRET)})))`,
    );
    expect(out.stdout).toBe("true");
  });

  it("overwrites secrets in /proc/self/environ; process.env and other variables stay", () => {
    const out = probe(
      [
        `const { hideSecretsFromProcEnviron } = require(${JSON.stringify(require.resolve("../../../src/util/hide-environ.ts"))});`,
        `const result = hideSecretsFromProcEnviron();`,
        `const block = require("fs").readFileSync("/proc/self/environ", "latin1");`,
        `process.stdout.write(JSON.stringify({ result, leaked: block.includes(${JSON.stringify(SECRET)}) || block.includes("ghp_MARKER"), plain: block.includes("PLAIN=kept"), env: process.env.ANTHROPIC_API_KEY }));`,
      ].join("\n"),
    );
    const seen = JSON.parse(out.stdout) as {
      result: { hidden: string[] };
      leaked: boolean;
      plain: boolean;
      env: string;
    };
    expect(seen.result.hidden.sort()).toEqual(["ANTHROPIC_API_KEY", "GITHUB_TOKEN"]);
    expect(seen.leaked).toBe(false);
    expect(seen.plain).toBe(true);
    expect(seen.env).toBe(SECRET);
  });
});
