import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isSecretEnvName, scrubHookEnv } from "../../../src/hooks/env.js";
import { formatHooksDescription } from "../../../src/hooks/format.js";
import { emit, hooksJson, makeProject, type Project } from "./helpers.js";

let project: Project;
beforeEach(async () => {
  project = await makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

describe("/hooks listing", () => {
  it("lists hooks by event with source, matcher and last-run problems, then load problems", async () => {
    await project.write("project", hooksJson({ PreToolUse: [{ matcher: "Edit|Write", command: "echo fmt" }] }));
    await project.write("plugin", hooksJson({ Stop: [{ argv: emit("--exit", "7") }] }));
    await project.write("user", { hooks: { Stop: [{ hooks: [{ type: "command", async: true, command: "x" }] }] } });
    const engine = await project.engine();
    expect(formatHooksDescription(engine.describe())).not.toContain("last run");
    await engine.run("Stop", { stop_hook_active: false });

    const text = formatHooksDescription(engine.describe());
    expect(text).toContain("### PreToolUse");
    expect(text).toContain(`- \`echo fmt\` matcher \`Edit|Write\` (project: ${join(project.root, ".deepagents", "hooks.json")}, timeout 600s)`);
    expect(text).toContain("### Stop");
    expect(text).toContain("(plugin demo@local:");
    expect(text).toContain("last run: warning: exited with code 7");
    expect(text).toContain("### Problems");
    expect(text).toContain(`"async": true is not supported`);
    expect(text.indexOf("PreToolUse")).toBeLessThan(text.indexOf("### Stop"));
  });

  it("says so when nothing is loaded", async () => {
    expect(formatHooksDescription((await project.engine()).describe())).toBe("No hooks loaded.");
  });
});

describe("secret scrubbing", () => {
  it("drops names containing KEY, TOKEN, SECRET, PASSWORD or APIKEY, case-insensitively", () => {
    expect(["MY_API_KEY", "github_token", "ClientSecret", "DB_PASSWORD", "OPENAI_APIKEY", "KEYBOARD"].map(isSecretEnvName)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(scrubHookEnv({ PATH: "/bin", HOME: "/h", NPM_TOKEN: "x", EMPTY: undefined })).toEqual({ PATH: "/bin", HOME: "/h" });
  });
});
