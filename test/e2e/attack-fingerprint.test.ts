// Attack suite, round 4 (issue 34, item 4): a remembered "always" is re-checked at use. The model
// gets `make build` (or `npm run build`) allowed always, then the file that decides what it runs is
// changed — by an approved command, by the user between turns, through a link — and the next call
// asks again, saying what changed, instead of running the new recipe unasked. The editor rejects
// that dialog, and nothing the new recipe would write appears. Entries stored before fingerprints
// were kept ask once and are then recorded. And the ordinary loop stays quiet: a command that only
// changes a dependency in package.json does not void a remembered `npm test`.
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import {
  commandOf,
  commandSession,
  homeWithKeyAndRepository,
  useAttackSession,
  type Call,
} from "../support/attack-harness.js";

const s = useAttackSession("deep-acp-attack-fingerprint-", async (base) => {
  const { home, project } = await homeWithKeyAndRepository(base);
  const pwned = join(base, "pwned");
  await mkdir(join(project, "build"));
  await writeFile(join(project, "build", "targets.inc"), "check:\n\t@echo checked\n");
  await writeFile(join(project, "Makefile"), "include build/targets.inc\nbuild:\n\t@echo built\n");
  await writeFile(join(project, "Makefile.next"), `build:\n\t@touch ${pwned}\n`);
  const manifest = (build: string, dependencies = {}) =>
    JSON.stringify({ name: "p", version: "1.0.0", scripts: { build, test: "mytool" }, dependencies }, null, 2);
  await writeFile(join(project, "package.json"), manifest("echo built"));
  await writeFile(join(project, "package.next.json"), manifest(`touch ${pwned}`));
  await writeFile(join(project, "package.deps.json"), manifest("echo built", { leftpad: "1.0.0" }));
  await mkdir(join(project, "node_modules", "mytool"), { recursive: true });
  await mkdir(join(project, "node_modules", "evil"), { recursive: true });
  await mkdir(join(project, "node_modules", ".bin"), { recursive: true });
  await writeFile(join(project, "node_modules", "mytool", "cli.js"), "#!/bin/sh\necho tool-ran\n", { mode: 0o755 });
  await writeFile(join(project, "node_modules", "evil", "cli.js"), `#!/bin/sh\ntouch ${pwned}\n`, { mode: 0o755 });
  await symlink("../mytool/cli.js", join(project, "node_modules", ".bin", "mytool"));
  return { home, project };
});

const run = (command: string): Call => ["execute", { command }];
/** "Why this asks: ..." as the dialog shows it. */
const reasonOf = (dialog: JsonRpcMessage) =>
  String(
    (dialog.params.toolCall.content as Array<{ content?: { text?: string } }>)
      .map((c) => c.content?.text ?? "")
      .find((text) => text.startsWith("Why this asks")) ?? "",
  );
const pwned = () => existsSync(join(s.base, "pwned"));
/** Allows `always` the first dialog of each command in `always`, once those in `once`, rejects the rest. */
const session = (always: readonly string[], once: readonly string[] = []) =>
  commandSession(s, "accept-edits", (d) => {
    const command = commandOf(d);
    const before = s.dialogs.slice(0, -1).some((e) => commandOf(e) === command);
    if (always.includes(command) && !before) return "allow_always";
    return once.includes(command) ? "allow_once" : "reject_once";
  });

describe("attack: a remembered command is re-checked at use", () => {
  it("an approved command rewrites the Makefile: the next `make build` asks and says why", async () => {
    const go = await session(["make build"], ["cp Makefile.next Makefile"]);
    await go([run("make build"), run("make build"), run("cp Makefile.next Makefile"), run("make build")]);
    expect(s.dialogs.map(commandOf)).toEqual(["make build", "cp Makefile.next Makefile", "make build"]);
    expect(reasonOf(s.dialogs[2]!)).toMatch(/`Makefile` changed.* since you allowed `make build` always/);
    expect(pwned()).toBe(false);
  });

  it("the user changes an included file between turns, or the file tool edits the Makefile", async () => {
    const go = await session(["make build"]);
    await go([run("make build"), run("make build")]);
    expect(s.dialogs.map(commandOf)).toEqual(["make build"]);
    await writeFile(join(s.project, "build", "targets.inc"), `check:\n\t@touch ${join(s.base, "pwned")}\n`);
    await go([run("make build")]);
    expect(s.dialogs.map(commandOf)).toEqual(["make build", "make build"]);
    expect(reasonOf(s.dialogs[1]!)).toContain("`build/targets.inc` changed since you allowed `make build` always");
    await s.agent!.stop();
    s.dialogs.length = 0;
    const go2 = await session(["make build"]);
    await go2([
      run("make build"),
      [
        "edit_file",
        { file_path: join(s.project, "Makefile"), old_string: "@echo built", new_string: "@touch ../pwned" },
      ],
      run("make build"),
    ]);
    expect(s.dialogs.map(commandOf)).toEqual(["make build", "make build"]);
    expect(reasonOf(s.dialogs[1]!)).toContain("`Makefile` changed since you allowed `make build` always");
    expect(pwned()).toBe(false);
  });

  it("a GNUmakefile that appears wins over the approved Makefile: it asks", async () => {
    const go = await session(["make build"], ["cp Makefile.next GNUmakefile"]);
    await go([run("make build"), run("cp Makefile.next GNUmakefile"), run("make build")]);
    expect(s.dialogs.map(commandOf)).toEqual(["make build", "cp Makefile.next GNUmakefile", "make build"]);
    expect(reasonOf(s.dialogs[2]!)).toContain("`GNUmakefile` appeared");
    expect(pwned()).toBe(false);
  });

  it("a command rewrites the npm script, or relinks the node_modules/.bin program a script starts", async () => {
    const go = await session(
      ["npm run build", "npm test"],
      ["cp package.next.json package.json", "ln -sfn ../evil/cli.js node_modules/.bin/mytool"],
    );
    await go([
      run("npm run build"),
      run("npm test"),
      run("cp package.next.json package.json"),
      run("npm run build"),
      run("ln -sfn ../evil/cli.js node_modules/.bin/mytool"),
      run("npm test"),
    ]);
    expect(s.dialogs.map(commandOf)).toEqual([
      "npm run build",
      "npm test",
      "cp package.next.json package.json",
      "npm run build",
      "ln -sfn ../evil/cli.js node_modules/.bin/mytool",
      "npm test",
    ]);
    expect(reasonOf(s.dialogs[3]!)).toContain(
      "the `build` script in `package.json` changed since you allowed `npm run build` always",
    );
    expect(reasonOf(s.dialogs[5]!)).toContain("`node_modules/.bin/mytool` changed");
    expect(pwned()).toBe(false);
  });

  it("a command that only adds a dependency to package.json leaves a remembered `npm test` quiet", async () => {
    const go = await session(["npm test"], ["cp package.deps.json package.json"]);
    await go([run("npm test"), run("cp package.deps.json package.json"), run("npm test")]);
    expect(s.dialogs.map(commandOf)).toEqual(["npm test", "cp package.deps.json package.json"]);
  });

  it("an approval stored before fingerprints asks once, then is recorded and survives a restart", async () => {
    const state = join(s.home, ".deepagents", ".state");
    await mkdir(state, { recursive: true });
    const legacy = { decision: "allow", label: "Always allow `make build`", updatedAt: "2026-01-01T00:00:00.000Z" };
    const file = { version: 1, projects: { [s.project]: { "execute:exact:make build": legacy } } };
    await writeFile(join(state, "approvals.json"), JSON.stringify(file), { mode: 0o600 });
    const go = await session(["make build"]);
    await go([run("make build"), run("make build")]);
    expect(s.dialogs.map(commandOf)).toEqual(["make build"]);
    expect(reasonOf(s.dialogs[0]!)).toContain("asking once to record them");
    const stored = JSON.parse(await readFile(join(state, "approvals.json"), "utf8"));
    const fingerprint = stored.projects[s.project]["execute:exact:make build"].fingerprint;
    expect(Object.keys(fingerprint)).toContain(join(s.project, "Makefile"));
    expect(Object.keys(fingerprint)).toContain(join(s.project, "build", "targets.inc"));
    // A new process reads the stored fingerprint: unchanged, it does not ask; changed, it does.
    await s.agent!.stop();
    s.dialogs.length = 0;
    const again = await session([]);
    await again([run("make build")]);
    expect(s.dialogs).toEqual([]);
    await writeFile(join(s.project, "Makefile"), await readFile(join(s.project, "Makefile.next"), "utf8"));
    await again([run("make build")]);
    expect(s.dialogs.map(commandOf)).toEqual(["make build"]);
    expect(reasonOf(s.dialogs[0]!)).toMatch(/`Makefile` changed.* since you allowed `make build` always/);
    expect(pwned()).toBe(false);
  });
});
