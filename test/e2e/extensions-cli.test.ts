// The built binary's extension commands and headless hooks: `deep-acp skills ...`, `deep-acp plugins
// ...`, `deep-acp doctor` on a broken hooks.json, and `deep-acp -n` with and without
// --trust-project-hooks. Each run gets a fresh HOME; the model is the fake server on 127.0.0.1.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn } from "../support/fake-model/index.js";

const MARKET = resolve(__dirname, "../fixtures/e2e-plugins/market");
const RECORD = resolve(__dirname, "../fixtures/e2e-hooks/record.mjs");

const suite = useAgentSuite({ name: "cli", prepare: ({ project }) => mkdir(join(project, ".git")) });

/** Runs `deep-acp ARGS` to completion in the project, `env` laid over HOME and the fake model's key and URL. */
const run = (args: string[], env: Record<string, string> = {}) => suite.run(args, { env });

describe("deep-acp skills", () => {
  it("create, list, info and delete, for the user and the project", async () => {
    const userSkill = join(suite.home, ".deepagents", "agent", "skills", "changelog", "SKILL.md");
    const projectSkill = join(suite.project, ".deepagents", "skills", "release-notes", "SKILL.md");
    const created = await run(["skills", "create", "changelog"]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(userSkill);
    expect(await readFile(userSkill, "utf8")).toMatch(/^---\nname: changelog\ndescription: .+\n/);
    expect((await run(["skills", "create", "release-notes", "--project"])).code).toBe(0);
    expect(existsSync(projectSkill)).toBe(true);
    expect((await run(["skills", "create", "Bad_Name"])).code).not.toBe(0);

    const list = await run(["skills", "list"]);
    expect(list.code).toBe(0);
    for (const name of ["changelog", "release-notes", "remember", "skill-creator"])
      expect(list.stdout).toContain(`  ${name}`);
    expect(list.stdout).toMatch(/Project skills \(.*\):\n  release-notes/);

    await writeFile(
      userSkill,
      "---\nname: changelog\ndescription: Write the changelog entry\nlicense: MIT\n---\n\nList every user-visible change.\n",
    );
    const info = await run(["skills", "info", "changelog"]);
    expect(info.code).toBe(0);
    expect(info.stdout).toContain("Name: changelog");
    expect(info.stdout).toContain("Description: Write the changelog entry");
    expect(info.stdout).toContain(`Path: ${userSkill}`);
    expect(info.stdout).toContain("License: MIT");
    expect(info.stdout).toContain("List every user-visible change.");
    expect((await run(["skills", "info", "no-such-skill"])).code).toBe(1);

    const refused = await run(["skills", "delete", "changelog"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--force");
    expect(existsSync(userSkill)).toBe(true);
    expect((await run(["skills", "delete", "changelog", "--force"])).code).toBe(0);
    expect(existsSync(userSkill)).toBe(false);
    expect((await run(["skills", "list"])).stdout).not.toContain("  changelog");
  });
});

describe("deep-acp plugins", () => {
  it("add reports component paths that escape the plugin; enable shows what it will run and needs --force; disable and remove", async () => {
    const added = await run(["plugins", "add", MARKET]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("kit@market 1.0.0: disabled");
    expect(added.stdout).toContain("escapee@market 0.1.0: disabled");
    expect(added.stdout).toContain("skills: './../kit/skills' must not contain '..'; ignored");
    expect(added.stdout).toContain("hooks: '../outside/hooks.json' must start with './'");
    expect(added.stdout).toContain("mcpServers: '/etc/mcp.json' must start with './'");

    const consent = await run(["plugins", "enable", "kit@market"]);
    expect(consent.code).toBe(2);
    expect(consent.stdout).toMatch(/notes \(as plugin__kit_market_[0-9a-f]{8}__notes\): runs node .*mcp-server\.mjs/);
    expect(consent.stdout).toContain('UserPromptSubmit: echo "kit hook ran in $CLAUDE_PLUGIN_ROOT');
    expect(consent.stdout).toContain("kit@market:greet");
    expect(consent.stderr).toContain("--force");
    expect((await run(["plugins", "list"])).stdout).toContain("kit@market 1.0.0: disabled");

    expect((await run(["plugins", "enable", "kit@market", "--force"])).code).toBe(0);
    const listed = await run(["plugins", "list"]);
    expect(listed.stdout).toContain("kit@market 1.0.0: enabled");
    expect(listed.stdout).toContain("skill dirs: 1, MCP servers: notes, hook commands: 1");
    expect((await run(["skills", "list"])).stdout).toContain("kit@market:greet");

    expect((await run(["plugins", "disable", "kit@market"])).code).toBe(0);
    expect((await run(["plugins", "list"])).stdout).toContain("kit@market 1.0.0: disabled");
    expect((await run(["skills", "list"])).stdout).not.toContain("kit@market:greet");
    const removed = await run(["plugins", "remove", "market"]);
    expect(removed.code).toBe(0);
    for (const copy of ["kit/1.0.0", "escapee/0.1.0"])
      expect(existsSync(join(suite.home, ".deepagents", "plugins", "cache", "market", copy))).toBe(false);
    expect((await run(["plugins", "list"])).stdout).toContain("Plugins: none");
  });
});

describe("hooks outside the editor", () => {
  it("doctor reports an invalid hooks.json entry and exits 1; the valid entries are still counted", async () => {
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    const file = join(suite.home, ".deepagents", "hooks.json");
    await writeFile(
      file,
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "(unclosed", hooks: [{ type: "command", command: "true" }] }],
          Stop: [{ hooks: [{ type: "command", command: "true" }] }],
        },
      }),
    );
    const doctor = await run(["doctor"]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      `✗ user: ${file}: invalid: hooks.PreToolUse[0].matcher: invalid regular expression`,
    );
    expect(doctor.stdout).toMatch(/problem:\n\s+hooks: .*hooks\.json: hooks\.PreToolUse\[0\]\.matcher/);
  });

  it("-n runs project hooks only with --trust-project-hooks, and says why it skipped them", async () => {
    const log = join(suite.project, "hook.log");
    await mkdir(join(suite.project, ".deepagents"), { recursive: true });
    const hooks = {
      hooks: {
        UserPromptSubmit: [
          { hooks: [{ type: "command", argv: [process.execPath, RECORD, log, "--stdout", "PROJECT HOOK CONTEXT"] }] },
        ],
      },
    };
    await writeFile(join(suite.project, ".deepagents", "hooks.json"), JSON.stringify(hooks));

    suite.model.enqueue(textTurn("answered"));
    const untrusted = await run(["-n", "hello"]);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).toBe("answered\n");
    expect(untrusted.stderr).toContain("--trust-project-hooks");
    expect(existsSync(log)).toBe(false);
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).not.toContain("PROJECT HOOK CONTEXT");

    suite.model.enqueue(textTurn("answered again"));
    const trusted = await run(["-n", "hello", "--trust-project-hooks"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toBe("answered again\n");
    const [entry] = (await readFile(log, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(entry.payload).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "hello", cwd: suite.project });
    expect(entry.envNames).not.toContain("ANTHROPIC_API_KEY");
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("PROJECT HOOK CONTEXT");
    // The flag trusts for one run only; nothing is remembered.
    expect(existsSync(join(suite.home, ".deepagents", ".state", "hooks_trust.json"))).toBe(false);
  });
});
