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
    expect(text).toContain(
      `- \`echo fmt\` matcher \`Edit|Write\` (project: ${join(project.root, ".deepagents", "hooks.json")}, timeout 600s)`,
    );
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

describe("hook environment allowlist", () => {
  it("passes only base variables and the names in [hooks] pass_env; credentials and model keys never by default", () => {
    const env = {
      PATH: "/bin",
      HOME: "/h",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      NPM_TOKEN: "x",
      DB_PASS: "p",
      DATABASE_URL: "postgres://u:p@db/x",
      GH_PAT: "ghp_x",
      NPM_AUTH: "a",
      SENTRY_DSN: "https://k@sentry/1",
      MY_SETTING: "visible-only-if-listed",
      ANTHROPIC_API_KEY: "sk-ant",
      EMPTY: undefined,
    };
    expect(scrubHookEnv(env)).toEqual({ PATH: "/bin", HOME: "/h", LANG: "C.UTF-8", LC_ALL: "C" });
    expect(scrubHookEnv(env, ["MY_SETTING", "GH_PAT", "ANTHROPIC_API_KEY"])).toEqual({
      PATH: "/bin",
      HOME: "/h",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      MY_SETTING: "visible-only-if-listed",
      GH_PAT: "ghp_x",
    });
  });

  it("recognises credential-looking names as words, not substrings of ordinary ones", () => {
    for (const name of [
      "MY_API_KEY",
      "github_token",
      "ClientSecret",
      "DB_PASSWORD",
      "DB_PASS",
      "OPENAI_APIKEY",
      "GH_PAT",
      "NPM_AUTH",
      "SENTRY_DSN",
      "DATABASE_URL",
      "REDIS_URL",
      "SESSION_COOKIE",
      // Round 4: PASS anywhere (PASSAGE too: better a harmless name dropped than a password passed),
      // PW and CRED(S) as words, JWT, BEARER, AUTHORIZATION and CONNECTION_STRING anywhere.
      "PGPASSFILE_CONTENT",
      "PGPASSFILE",
      "LDAP_BINDPASS",
      "PASSAGE",
      "MYSQL_PW",
      "SMTP_CRED",
      "REGISTRY_CREDS",
      "SERVICE_JWT",
      "API_BEARER",
      "HTTP_AUTHORIZATION",
      "AZURE_STORAGE_CONNECTION_STRING",
    ]) {
      expect([name, isSecretEnvName(name)]).toEqual([name, true]);
    }
    for (const name of [
      "PATH",
      "HOME",
      "AUTHOR",
      "PATHEXT",
      "SSL_CERT_FILE",
      "CREDIT_LIMIT",
      "PWRSAVE",
      "GIT_ASKPASS",
      "LANG",
    ])
      expect([name, isSecretEnvName(name)]).toEqual([name, false]);
  });
});
