// Attack suite, links: a hostile repository (file, folder, relative, chained, dangling and hard
// links, a link to /proc/self/environ, a clone with a committed symlink) and a model calling every
// file tool with hostile arguments, through the built binary, with a client that rejects every
// dialog. Whatever the mode, the secrets never reach a model request or a tool call the editor
// sees, and nothing outside the project changes.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
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

const s = useAttackSession("deep-acp-attack-", (base) => plantHostileRepository(base));
const runAttack = (mode: AttackMode, calls: Call[], capabilities?: unknown, prompt?: unknown[]) =>
  runAttackIn(s, mode, calls, capabilities, prompt);

function hostileCalls(): Call[] {
  const p = (name: string) => join(s.project, name);
  const reads: Call[] = [
    "link.txt",
    "rel.txt",
    "chain.txt",
    "dirlink/id_rsa",
    "hard.txt",
    "env-link",
    "clone/leak",
    join(s.home, ".ssh/id_rsa"),
  ].map((f) => ["read_file", { file_path: f.startsWith("/") ? f : p(f) }]);
  return [
    ...reads,
    ["read_file", { file_path: "~/.deepagents/.state/credentials.json" }],
    ["grep", { pattern: "sk-", path: p("env-link") }],
    ["grep", { pattern: "SECRET", path: p("dirlink") }],
    ["grep", { pattern: "SECRET", path: p("link.txt") }],
    ["grep", { pattern: "SECRET", path: s.project }],
    ["grep", { pattern: "SECRET", path: p("clone") }],
    ["glob", { pattern: join(s.home, ".ssh", "*") }],
    ["glob", { pattern: "../home/.ssh/*" }],
    ["glob", { pattern: "*", path: p("dirlink") }],
    ["ls", { path: p("dirlink") }],
    ["ls", { path: join(s.home, ".ssh") }],
    ["write_file", { file_path: p("link.txt"), content: "PWNED" }],
    ["write_file", { file_path: p("dirlink/authorized_keys"), content: "PWNED" }],
    ["write_file", { file_path: p("dangling.txt"), content: "PWNED" }],
    ["write_file", { file_path: p("hard.txt"), content: "PWNED" }],
    ["write_file", { file_path: p("clone/leak"), content: "PWNED" }],
    ["write_file", { file_path: "/memories/planted.md", content: "PWNED" }],
    ["edit_file", { file_path: p("link.txt"), old_string: "SECRET", new_string: "PWNED" }],
    ["edit_file", { file_path: p("dirlink/id_rsa"), old_string: "SECRET", new_string: "PWNED" }],
    ["edit_file", { file_path: p("hard.txt"), old_string: "SECRET", new_string: "PWNED" }],
    ["write_file", { file_path: p(".git/config"), content: "[core]\n\tfsmonitor = touch /tmp/pwned\n" }],
    ["delete", { file_path: p("dirlink/id_rsa") }],
    ["delete", { file_path: p("dirlink") + "/" }],
    [
      "eval",
      {
        code: `(await tools.readFile({ file_path: ${JSON.stringify(p("link.txt"))} })) + (await tools.grep({ pattern: "sk-", path: ${JSON.stringify(p("env-link"))} }))`,
      },
    ],
  ];
}

const expectNoEscape = (editor: FakeEditor) => expectNoEscapeIn(s, editor);

describe("attack: links out of the project", () => {
  for (const mode of ["default", "accept-edits"] as const) {
    it(`every file tool, ${mode}, local backend: no secret reaches the model, nothing outside changes`, async () => {
      const { editor } = await runAttack(mode, hostileCalls());
      await expectNoEscape(editor);
      expect(s.dialogs.length).toBeGreaterThan(10);
    });

    it(`every file tool, ${mode}, through the editor's fs/*: only real paths inside the project reach the editor`, async () => {
      const { editor } = await runAttack(mode, [ordinaryRead(s), ...hostileCalls()], ZED_CAPABILITIES);
      await expectNoEscape(editor);
      expectEditorSawOrdinaryRead(s, editor);
    });
  }

  // Hard links: outside bypass a hard-linked file asks (above); a deny rule holds for a hard link of the
  // denied file in every mode (attack-rules.test.ts).
  it("a deny rule on the real path holds through every symbolic link, even in bypass", async () => {
    await mkdir(join(s.home, ".deepagents"), { recursive: true });
    await writeFile(
      join(s.home, ".deepagents", "config.toml"),
      `[[permissions]]\noperations = ["read", "write"]\npaths = ["${join(s.home, ".ssh")}/**"]\nmode = "deny"\n`,
    );
    const p = (name: string) => join(s.project, name);
    await runAttack("bypass", [
      ...["link.txt", "rel.txt", "chain.txt", "dirlink/id_rsa", "clone/leak"].map((f): Call => [
        "read_file",
        { file_path: p(f) },
      ]),
      ["grep", { pattern: "SECRET", path: p("dirlink") }],
      ["grep", { pattern: "SECRET", path: p("link.txt") }],
      ["glob", { pattern: "*", path: p("dirlink") }],
      ["ls", { path: p("dirlink") }],
      ["write_file", { file_path: p("link.txt"), content: "PWNED" }],
      ["write_file", { file_path: p("dirlink/authorized_keys"), content: "PWNED" }],
      ["edit_file", { file_path: p("chain.txt"), old_string: "SECRET", new_string: "PWNED" }],
      ["delete", { file_path: p("dirlink/id_rsa") }],
    ]);
    expect(s.dialogs).toHaveLength(0);
    const sent = JSON.stringify(s.model.requests.map((r) => r.body));
    expect(sent.includes(SSH_SECRET)).toBe(false);
    expect(await readFile(join(s.home, ".ssh", "id_rsa"), "utf8")).toBe(`${SSH_SECRET}\n`);
    expect((await readdir(join(s.home, ".ssh"))).sort()).toEqual(["id_rsa"]);
  });

  it("names the real target in the dialog when a link leads there", async () => {
    await runAttack("accept-edits", [["read_file", { file_path: join(s.project, "link.txt") }]]);
    expect(s.dialogs).toHaveLength(1);
    expect(JSON.stringify(s.dialogs[0]!.params)).toContain(join(s.home, ".ssh", "id_rsa"));
  });

  it("asks nothing for ordinary work inside the project in accept-edits", async () => {
    const p = (name: string) => join(s.project, name);
    await mkdir(p("src"));
    await writeFile(p("src/a.ts"), "export const a = 1;\n");
    const { editor } = await runAttack("accept-edits", [
      ["read_file", { file_path: p("src/a.ts") }],
      ["grep", { pattern: "export", path: p("src") }],
      ["glob", { pattern: "**/*.ts" }],
      ["ls", { path: s.project }],
      ["write_file", { file_path: p("src/b.ts"), content: "export const b = 2;\n" }],
      ["edit_file", { file_path: p("src/a.ts"), old_string: "1", new_string: "3" }],
    ]);
    expect(s.dialogs).toHaveLength(0);
    expect(await readFile(p("src/a.ts"), "utf8")).toBe("export const a = 3;\n");
    expect(await readFile(p("src/b.ts"), "utf8")).toBe("export const b = 2;\n");
    await expectNoEscape(editor);
  });
});
