// Red-team attack suite (new cases beyond attack-links), links: a hostile repository (file, folder, relative, chained, dangling and hard
// links, a link to /proc/self/environ, a clone with a committed symlink) and a model calling every
// file tool with hostile arguments, through the built binary, with a client that rejects every
// dialog. Whatever the mode, the secrets never reach a model request or a tool call the editor
// sees, and nothing outside the project changes.
import { existsSync } from "node:fs";
import { link, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  SSH_SECRET,
  expectEditorSawOrdinaryRead,
  expectNoEscape as expectNoEscapeIn,
  ordinaryRead,
  plantHostileRepository,
  runAttack as runAttackIn,
  useAttackSession,
  type AttackMode,
  type Call,
  type FakeEditor,
} from "../support/attack-harness.js";
import { ZED_CAPABILITIES } from "../support/fake-editor.js";

const s = useAttackSession("deep-acp-attack-", (base) =>
  plantHostileRepository(base, async (home, project) => {
    await writeFile(join(home, "top-secret.txt"), `${SSH_SECRET}\n`);
    await mkdir(join(project, "sub"));
    await symlink(home, join(project, "sublink"));
    await symlink(join(project, ".git"), join(project, "gitlink"));
    await mkdir(join(project, "deep/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o"), { recursive: true });
    await symlink(join(home, ".ssh", "id_rsa"), join(project, "deep/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p"));
  }),
);
const runAttack = (mode: AttackMode, calls: Call[], capabilities?: unknown, prompt?: unknown[]) =>
  runAttackIn(s, mode, calls, capabilities, prompt);

function hostileCalls(): Call[] {
  const p = (name: string) => join(s.project, name);
  const hs = join(s.home, ".ssh", "id_rsa");
  const reads: Call[] = [
    p("/link.txt"),
    `${s.project}//link.txt`,
    `${s.project}/./link.txt`,
    p("sub/../link.txt"),
    p("dirlink/../top-secret.txt"),
    "link.txt",
    "./dirlink/id_rsa",
    "dirlink/./id_rsa",
    "sub/../dirlink/id_rsa",
    `/proc/self/root${hs}`,
    "/proc/self/cwd/link.txt",
    "/proc/self/cwd/dirlink/id_rsa",
    "/proc/self/environ",
    "/proc/self/fd/0",
    "/dev/stdin",
    "~/.ssh/id_rsa",
    `file://${hs}`,
    p("sublink/../top-secret.txt"),
    p("deep/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/leak"),
  ].map((f) => ["read_file", { file_path: f }]);
  return [
    ...reads,
    ["grep", { pattern: "SECRET", path: p("dirlink/") }],
    ["grep", { pattern: "SECRET", path: p("sub/../dirlink") }],
    ["grep", { pattern: "SECRET", path: s.project, glob: "../**" }],
    ["grep", { pattern: "SECRET", path: s.project, glob: "**/id_rsa" }],
    ["grep", { pattern: "SECRET", path: "~/.ssh" }],
    ["grep", { pattern: "SECRET", path: "/proc/self/cwd/dirlink" }],
    ["grep", { pattern: "--pre=cat", path: s.project }],
    ["grep", { pattern: "sk-", path: "/proc/self/environ" }],
    ["grep", { pattern: "SECRET", path: p("sublink") }],
    ["glob", { pattern: "dirlink/*" }],
    ["glob", { pattern: "dirlink/../*" }],
    ["glob", { pattern: "**/id_rsa" }],
    ["glob", { pattern: "{dirlink,sub}/*" }],
    ["glob", { pattern: "sub/../../home/.ssh/*" }],
    ["glob", { pattern: "/proc/self/cwd/dirlink/*" }],
    ["glob", { pattern: "~/.ssh/*" }],
    ["glob", { pattern: "*", path: p("sublink/..") }],
    ["glob", { pattern: "../*/.ssh/*", path: p("sub") }],
    ["ls", { path: p("dirlink/.") }],
    ["ls", { path: "dirlink/" }],
    ["ls", { path: "/proc/self/cwd/dirlink" }],
    ["ls", { path: "~" }],
    ["write_file", { file_path: p("gitlink/config"), content: "[core]\n\tfsmonitor = touch /tmp/pwned\n" }],
    ["write_file", { file_path: p("sub/../.git/hooks/pre-commit"), content: "#!/bin/sh\ntouch /tmp/pwned\n" }],
    ["write_file", { file_path: p(".zed/settings.json"), content: "{}" }],
    ["write_file", { file_path: p("dirlink/../planted.txt"), content: "PWNED" }],
    ["write_file", { file_path: "/proc/self/cwd/dirlink/planted", content: "PWNED" }],
    ["write_file", { file_path: p("sub/.git"), content: "gitdir: ../evil\n" }],
    ["write_file", { file_path: p("sublink/planted.txt"), content: "PWNED" }],
    ["write_file", { file_path: p("deep/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/leak"), content: "PWNED" }],
    ["edit_file", { file_path: p("dirlink/../top-secret.txt"), old_string: "SECRET", new_string: "PWNED" }],
    ["edit_file", { file_path: p("sublink/top-secret.txt"), old_string: "SECRET", new_string: "PWNED" }],
    ["delete", { file_path: p("link.txt") }],
    ["delete", { file_path: p("sublink") }],
    ["delete", { file_path: p("sublink/") }],
    ["delete", { file_path: p("sublink/top-secret.txt") }],
    [
      "eval",
      {
        code: [
          `const out = [];`,
          `for (const call of [`,
          `  () => tools.readFile({ file_path: ${JSON.stringify(p("dirlink/../top-secret.txt"))} }),`,
          `  () => tools.readFile({ file_path: "/proc/self/cwd/link.txt" }),`,
          `  () => tools.readFile({ filePath: ${JSON.stringify(p("link.txt"))} }),`,
          `  () => tools.grep({ pattern: "SECRET", path: ${JSON.stringify(p("sublink"))} }),`,
          `  () => tools.glob({ pattern: ${JSON.stringify(join(s.home, "*"))} }),`,
          `  () => tools.ls({ path: ${JSON.stringify(p("dirlink"))} }),`,
          `  () => tools.writeFile({ file_path: ${JSON.stringify(p("sublink/planted.txt"))}, content: "PWNED" }),`,
          `  () => tools.execute({ command: "cat " + ${JSON.stringify(hs)} }),`,
          `]) { try { out.push(String(await call())); } catch (e) { out.push(String(e)); } }`,
          `out.join("\\n")`,
        ].join("\n"),
      },
    ],
    ["task", { description: "read it", subagent_type: "general-purpose" }],
    ["read_file", { file_path: p("link.txt") }],
    ["grep", { pattern: "sk-", path: p("env-link") }],
    ["write_file", { file_path: p("dirlink/authorized_keys"), content: "PWNED" }],
  ];
}

async function expectNoEscape(editor: FakeEditor) {
  await expectNoEscapeIn(s, editor);
  const { home, project } = s;
  expect((await readdir(home)).filter((n) => n !== ".deepagents").sort()).toEqual([".ssh", "top-secret.txt"]);
  expect(await readFile(join(home, "top-secret.txt"), "utf8")).toBe(`${SSH_SECRET}\n`);
  expect(existsSync(join(project, ".zed"))).toBe(false);
  expect(existsSync(join(project, "sub", ".git"))).toBe(false);
  expect(existsSync(join(project, ".git", "hooks", "pre-commit"))).toBe(false);
  expect(existsSync(join(project, "link.txt"))).toBe(true);
  expect(existsSync(join(project, "sublink"))).toBe(true);
}

describe("red team: new attack cases through the built binary", () => {
  for (const mode of ["default", "accept-edits"] as const) {
    it(`${mode}, local backend: no secret reaches the model, nothing outside or protected changes`, async () => {
      const { editor } = await runAttack(mode, hostileCalls());
      await expectNoEscape(editor);
    });
    it(`${mode}, through the editor's fs/*: no secret reaches the model, nothing outside or protected changes`, async () => {
      const { editor } = await runAttack(mode, [ordinaryRead(s), ...hostileCalls()], ZED_CAPABILITIES);
      await expectNoEscape(editor);
      expectEditorSawOrdinaryRead(s, editor);
    });
  }

  // Plan mode is read-only for every caller: the model, code in eval, and a subagent's own calls.
  for (const mode of ["plan", "accept-edits"] as const) {
    it(`${mode}: a subagent and eval change nothing without a dialog`, async () => {
      const p = (name: string) => join(s.project, name);
      await runAttack(mode, [
        [
          "eval",
          { code: `await tools.writeFile({ file_path: ${JSON.stringify(p("from-eval.txt"))}, content: "PWNED" })` },
        ],
        ["task", { description: "do it", subagent_type: "general-purpose" }],
        ["write_file", { file_path: p(mode === "plan" ? "planted.txt" : ".zed/tasks.json"), content: "PWNED" }],
        ["edit_file", { file_path: p("ok.txt"), old_string: "ordinary", new_string: "PWNED" }],
        ["delete", { file_path: p("ok.txt") }],
        ["execute", { command: `touch ${p("pwned")}` }],
        [
          "write_file",
          { file_path: "/large_tool_results/../../" + join(s.home, "planted.txt").slice(1), content: "PWNED" },
        ],
        ["write_file", { file_path: "/memories", content: "PWNED" }],
      ]);
      expect(existsSync(p("from-eval.txt"))).toBe(false);
      expect(existsSync(p("planted.txt"))).toBe(false);
      expect(existsSync(p(".zed"))).toBe(false);
      expect(existsSync(p("pwned"))).toBe(false);
      expect(existsSync(join(s.home, "planted.txt"))).toBe(false);
      expect(await readFile(p("ok.txt"), "utf8")).toBe(mode === "plan" ? "ordinary\n" : "PWNED\n");
    });
  }

  // Deleting a link removes the link, never what it leads to (even when allowed, here in bypass).
  it("bypass: delete of a link or a linked folder removes the link only", async () => {
    const p = (name: string) => join(s.project, name);
    await runAttack("bypass", [
      ["delete", { file_path: p("link.txt") }],
      ["delete", { file_path: p("dirlink/") }],
      ["delete", { file_path: p("sublink") }],
      ["delete", { file_path: p("chain.txt") }],
    ]);
    expect(await readFile(join(s.home, ".ssh", "id_rsa"), "utf8")).toBe(`${SSH_SECRET}\n`);
    expect(await readFile(join(s.home, "top-secret.txt"), "utf8")).toBe(`${SSH_SECRET}\n`);
    expect(existsSync(join(s.project, "rel.txt"))).toBe(true);
    for (const name of ["link.txt", "dirlink", "sublink", "chain.txt"])
      expect(
        existsSync(p(name)) ||
          (await lstat(p(name)).then(
            () => true,
            () => false,
          )),
      ).toBe(false);
  });

  // Files the agent reads into the prompt on its own (project memory, subagent definitions) may not
  // be another name for a file outside the project: a symbolic or a hard link.
  it("project memory, subagent and skill files that are links out never reach the prompt", async () => {
    await rm(join(s.project, "hard.txt"));
    await mkdir(join(s.project, ".deepagents", "agents", "helper"), { recursive: true });
    await link(join(s.home, ".ssh", "id_rsa"), join(s.project, "AGENTS.md"));
    await link(join(s.home, "top-secret.txt"), join(s.project, ".deepagents", "AGENTS.md"));
    await writeFile(join(s.home, "agent.md"), `---\nname: helper\ndescription: ${SSH_SECRET}\n---\n${SSH_SECRET}\n`);
    await link(join(s.home, "agent.md"), join(s.project, ".deepagents", "agents", "helper", "AGENTS.md"));
    await writeFile(join(s.home, "skill.md"), `---\nname: leaky\ndescription: ${SSH_SECRET}\n---\n${SSH_SECRET}\n`);
    await mkdir(join(s.project, ".agents", "skills", "leaky"), { recursive: true });
    await link(join(s.home, "skill.md"), join(s.project, ".agents", "skills", "leaky", "SKILL.md"));
    // Ordinary neighbours of the links: they must be loaded, or the check below proves nothing. Both
    // project memory files are taken by links, so the user's own memory stands in for memory loading.
    await mkdir(join(s.home, ".deepagents", "agent"), { recursive: true });
    await writeFile(join(s.home, ".deepagents", "agent", "AGENTS.md"), "ORDINARY-MEMORY-MARK\n");
    await mkdir(join(s.project, ".deepagents", "agents", "plain"), { recursive: true });
    await writeFile(
      join(s.project, ".deepagents", "agents", "plain", "AGENTS.md"),
      "---\nname: plain\ndescription: ORDINARY-SUBAGENT-MARK\n---\nbe plain\n",
    );
    await mkdir(join(s.project, ".agents", "skills", "plain"), { recursive: true });
    await writeFile(
      join(s.project, ".agents", "skills", "plain", "SKILL.md"),
      "---\nname: plain\ndescription: ORDINARY-SKILL-MARK\n---\nbe plain\n",
    );
    await runAttack("default", [["task", { description: "go", subagent_type: "helper" }]]);
    const sent = JSON.stringify(s.model.requests.map((r) => r.body));
    expect(sent.includes(SSH_SECRET)).toBe(false);
    expect(sent).toContain("ORDINARY-MEMORY-MARK");
    expect(sent).toContain("ORDINARY-SUBAGENT-MARK");
    expect(sent).toContain("ORDINARY-SKILL-MARK");
  });

  // The user mentions a file of the repository; it is a link (or a hard link) to a secret.
  for (const capabilities of [{}, ZED_CAPABILITIES]) {
    it(`a mentioned file that leads out of the project is not embedded (${capabilities === ZED_CAPABILITIES ? "editor fs" : "local"})`, async () => {
      const mention = (name: string) => ({ type: "resource_link", uri: `file://${join(s.project, name)}`, name });
      await runAttack("default", [], capabilities, [
        { type: "text", text: "look at" },
        mention("link.txt"),
        mention("dirlink/id_rsa"),
        mention("hard.txt"),
        mention("ok.txt"),
      ]);
      const sent = JSON.stringify(s.model.requests.map((r) => r.body));
      expect(sent.includes(SSH_SECRET)).toBe(false);
      expect(sent).toContain("ordinary");
    });
  }
});
