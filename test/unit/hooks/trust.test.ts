import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadHooksConfig } from "../../../src/hooks/config-loader.js";
import {
  describeProjectHooks,
  formatHookTrustRequest,
  resolveProjectHookTrust,
  type HookTrustRequest,
} from "../../../src/hooks/project-trust.js";
import { createHookTrustStore } from "../../../src/hooks/trust-store.js";
import type { HookSource } from "../../../src/hooks/types.js";
import { makeTempDir } from "./helpers.js";

let tmp: { dir: string; cleanup: () => Promise<void> };
let root: string;
let stateDir: string;
let projectFile: string;
let userFile: string;
let sources: HookSource[];

beforeEach(async () => {
  tmp = await makeTempDir();
  root = join(tmp.dir, "repo");
  stateDir = join(tmp.dir, "home", ".deepagents", ".state");
  projectFile = join(root, ".deepagents", "hooks.json");
  userFile = join(tmp.dir, "home", ".deepagents", "hooks.json");
  await mkdir(join(root, ".deepagents"), { recursive: true });
  await mkdir(join(tmp.dir, "home", ".deepagents"), { recursive: true });
  await writeProject("echo project");
  await writeFile(
    userFile,
    JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "echo user" }] }] } }),
  );
  sources = [
    { scope: "project", file: projectFile },
    { scope: "user", file: userFile },
  ];
});
afterEach(async () => {
  await tmp.cleanup();
});

async function writeProject(command: string) {
  await writeFile(
    projectFile,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command },
              { type: "command", argv: ["/bin/echo", "two words"] },
            ],
          },
        ],
      },
    }),
  );
}

describe("hook trust store", () => {
  it("remembers a root + fingerprint in a 0600 file inside a 0700 dir", async () => {
    const store = createHookTrustStore({ stateDir, clock: { now: () => Date.UTC(2026, 0, 2) } });
    expect(await store.isTrusted(root, "a".repeat(64))).toBe(false);
    await store.trust(root, "a".repeat(64));
    expect(await store.isTrusted(root, "a".repeat(64))).toBe(true);
    expect(await store.isTrusted(root, "b".repeat(64))).toBe(false);
    expect(await createHookTrustStore({ stateDir }).isTrusted(root, "a".repeat(64))).toBe(true);

    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(store.file, "utf8"));
    expect(saved.projects[root]).toEqual({ sha256: "a".repeat(64), trusted_at: "2026-01-02T00:00:00.000Z" });
  });

  it("keys by the canonical root, so a symlinked path shares the entry", async () => {
    const link = join(tmp.dir, "link");
    await symlink(root, link);
    const store = createHookTrustStore({ stateDir });
    await store.trust(link, "c".repeat(64));
    expect(await store.isTrusted(root, "c".repeat(64))).toBe(true);
  });

  it("a corrupt file trusts nothing and is replaced on the next write", async () => {
    await mkdir(stateDir, { recursive: true });
    const store = createHookTrustStore({ stateDir });
    await writeFile(store.file, "{nope");
    expect(await store.isTrusted(root, "d".repeat(64))).toBe(false);
    await store.trust(root, "d".repeat(64));
    expect(await store.isTrusted(root, "d".repeat(64))).toBe(true);
  });
});

describe("resolveProjectHookTrust", () => {
  it("lists every project command for the dialog", async () => {
    const loaded = await loadHooksConfig(sources);
    const request = (await describeProjectHooks(loaded, root))!;
    expect(request.file).toBe(projectFile);
    expect(request.commands).toEqual([
      {
        event: "PreToolUse",
        matcher: "Bash",
        hook: "echo project",
        command: "echo project",
        path: "hooks.PreToolUse[0].hooks[0]",
      },
      {
        event: "PreToolUse",
        matcher: "Bash",
        hook: "/bin/echo 'two words'",
        argv: ["/bin/echo", "two words"],
        path: "hooks.PreToolUse[0].hooks[1]",
      },
    ]);
    const text = formatHookTrustRequest(request);
    expect(text).toContain("- PreToolUse [Bash]: `echo project`");
    expect(text).toContain("`/bin/echo 'two words'`");
  });

  it("always-allow is remembered until the file's bytes change", async () => {
    const store = createHookTrustStore({ stateDir });
    const asked: HookTrustRequest[] = [];
    const ask = async (request: HookTrustRequest) => {
      asked.push(request);
      return "allow_always" as const;
    };

    const first = await resolveProjectHookTrust({
      loaded: await loadHooksConfig(sources),
      projectRoot: root,
      remembered: store,
      ask,
    });
    expect(first.status).toBe("trusted");
    expect(first.items.map((i) => i.source.scope)).toEqual(["project", "project", "user"]);

    const again = await resolveProjectHookTrust({
      loaded: await loadHooksConfig(sources),
      projectRoot: root,
      remembered: store,
      ask,
    });
    expect(again.status).toBe("trusted");
    expect(asked).toHaveLength(1);

    await writeProject("echo changed");
    const changed = await resolveProjectHookTrust({
      loaded: await loadHooksConfig(sources),
      projectRoot: root,
      remembered: store,
      ask: async () => "reject",
    });
    expect(changed.status).toBe("rejected");
    expect(changed.items.map((i) => i.source.scope)).toEqual(["user"]);
    expect(changed.diagnostics.map((d) => d.code)).toEqual(["untrusted"]);
  });

  it("allow once lasts for the session's grants only", async () => {
    const store = createHookTrustStore({ stateDir });
    const granted = new Set<string>();
    const sessionGrants = { has: async (f: string) => granted.has(f), add: async (f: string) => void granted.add(f) };
    let asks = 0;
    const ask = async () => {
      asks += 1;
      return "allow_once" as const;
    };
    const resolve = async () =>
      resolveProjectHookTrust({
        loaded: await loadHooksConfig(sources),
        projectRoot: root,
        remembered: store,
        ask,
        sessionGrants,
      });
    expect((await resolve()).status).toBe("trusted_once");
    expect((await resolve()).status).toBe("trusted_once");
    expect(asks).toBe(1);
    expect(
      await store.isTrusted(root, (await describeProjectHooks(await loadHooksConfig(sources), root))!.fingerprint),
    ).toBe(false);
  });

  it("headless skips untrusted project hooks unless --trust-project-hooks is given", async () => {
    const store = createHookTrustStore({ stateDir });
    const loaded = await loadHooksConfig(sources);
    const headless = await resolveProjectHookTrust({ loaded, projectRoot: root, remembered: store });
    expect(headless.status).toBe("untrusted");
    expect(headless.items.map((i) => i.source.scope)).toEqual(["user"]);
    expect(headless.diagnostics[0]!.message).toContain("--trust-project-hooks");

    const flagged = await resolveProjectHookTrust({ loaded, projectRoot: root, remembered: store, trustFlag: true });
    expect(flagged.status).toBe("flag");
    expect(flagged.items).toHaveLength(3);
  });

  it("asks nothing when the project has no runnable hooks", async () => {
    await writeFile(
      projectFile,
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", async: true, command: "x" }] }] } }),
    );
    const result = await resolveProjectHookTrust({
      loaded: await loadHooksConfig(sources),
      projectRoot: root,
      remembered: createHookTrustStore({ stateDir }),
      ask: async () => {
        throw new Error("must not ask");
      },
    });
    expect(result.status).toBe("none");
    expect(result.items.map((i) => i.source.scope)).toEqual(["user"]);
  });
});

describe("scripts a trusted hook runs", () => {
  it("finds project files named by commands, argv, $CLAUDE_PROJECT_DIR and --opt=path, not programs outside", async () => {
    const { hookScriptDigests } = await import("../../../src/hooks/script-refs.js");
    await mkdir(join(root, "scripts"), { recursive: true });
    await writeFile(join(root, ".deepagents", "hook.mjs"), "console.log(1)");
    await writeFile(join(root, "scripts", "check.sh"), "#!/bin/sh\n");
    await writeFile(join(root, "cfg.json"), "{}");
    const digests = await hookScriptDigests(
      [
        { command: 'node .deepagents/hook.mjs && "$CLAUDE_PROJECT_DIR/scripts/check.sh" --config=./cfg.json' },
        { argv: ["/bin/sh", "${CLAUDE_PROJECT_DIR}/scripts/check.sh"] },
      ],
      root,
    );
    expect(Object.keys(digests).sort()).toEqual([".deepagents/hook.mjs", "cfg.json", "scripts/check.sh"]);
    // Through `cd` and `sh -c '...'`: the script is found where the command really runs it.
    const nested = await hookScriptDigests(
      [{ command: "cd scripts && sh check.sh" }, { command: "sh -c 'node .deepagents/hook.mjs > out.log 2>&1'" }],
      root,
    );
    expect(Object.keys(nested).sort()).toEqual([".deepagents/hook.mjs", "scripts/check.sh"]);
  });

  it("a changed script asks again and says which file changed; headless says so too", async () => {
    await writeProject("node .deepagents/hook.mjs");
    await writeFile(join(root, ".deepagents", "hook.mjs"), "console.log('reviewed')");
    const store = createHookTrustStore({ stateDir });
    const shown: HookTrustRequest[] = [];
    const resolve = (answer: "allow_always" | "reject" | undefined) =>
      loadHooksConfig(sources).then((loaded) =>
        resolveProjectHookTrust({
          loaded,
          projectRoot: root,
          remembered: store,
          ...(answer ? { ask: async (r: HookTrustRequest) => (shown.push(r), answer) } : {}),
        }),
      );
    expect((await resolve("allow_always")).status).toBe("trusted");
    expect(shown[0]!.scripts).toEqual({ ".deepagents/hook.mjs": expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(formatHookTrustRequest(shown[0]!)).toContain(
      "Project files these commands run (any change asks again): `.deepagents/hook.mjs`",
    );
    expect((await resolve(undefined)).status).toBe("trusted");

    await writeFile(join(root, ".deepagents", "hook.mjs"), "require('child_process').exec('curl evil')");
    const headless = await resolve(undefined);
    expect(headless.status).toBe("untrusted");
    expect(headless.items.some((item) => item.source.scope === "project")).toBe(false);
    expect(headless.diagnostics[0]!.message).toContain("changed since you trusted them: .deepagents/hook.mjs changed");
    expect((await resolve("reject")).status).toBe("rejected");
    expect(shown[1]!.changes).toEqual([".deepagents/hook.mjs changed"]);
    expect(formatHookTrustRequest(shown[1]!)).toMatch(/^Asked again because: \.deepagents\/hook\.mjs changed\./);
  });
});
