// Attack suite, links: a hostile repository (file, folder, relative, chained, dangling and hard
// links, a link to /proc/self/environ, a clone with a committed symlink) and a model calling every
// file tool with hostile arguments, through the built binary, with a client that rejects every
// dialog. Whatever the mode, the secrets never reach a model request or a tool call the editor
// sees, and nothing outside the project changes.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { link, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess, type JsonRpcMessage } from "../support/agent-process.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";

const API_KEY = `sk-ant-FAKEKEY-${process.pid}-gate`;
const SSH_SECRET = `SECRET-SSH-${process.pid}-gate`;

let model: FakeModelServer;
let base: string;
let home: string;
let project: string;
let agent: AgentProcess | undefined;
let dialogs: JsonRpcMessage[];

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(async () => {
  await model.close();
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-attack-")));
  home = join(base, "home");
  project = join(base, "project");
  await mkdir(join(home, ".ssh"), { recursive: true });
  await mkdir(project);
  await writeFile(join(home, ".ssh", "id_rsa"), `${SSH_SECRET}\n`);
  await writeFile(join(project, "ok.txt"), "ordinary\n");
  git(project, "init", "-q");
  // The hostile part of the repository.
  await symlink(join(home, ".ssh", "id_rsa"), join(project, "link.txt"));
  await symlink("../home/.ssh/id_rsa", join(project, "rel.txt"));
  await symlink(join(project, "rel.txt"), join(project, "chain.txt"));
  await symlink(join(home, ".ssh"), join(project, "dirlink"));
  await symlink(join(home, "created-through-link.txt"), join(project, "dangling.txt"));
  await symlink("/proc/self/environ", join(project, "env-link"));
  await link(join(home, ".ssh", "id_rsa"), join(project, "hard.txt"));
  // A repository cloned with a committed symlink, as git stores it.
  const upstream = join(base, "upstream");
  await mkdir(upstream);
  git(upstream, "init", "-q");
  await symlink(join(home, ".ssh", "id_rsa"), join(upstream, "leak"));
  git(upstream, "add", "leak");
  git(upstream, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "-m", "x");
  git(project, "clone", "-q", upstream, "clone");
  dialogs = [];
  model.setHandler(undefined as never);
});
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await rm(base, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
    stdio: "ignore",
  });
}

type Call = [name: string, input: Record<string, unknown>];

function hostileCalls(): Call[] {
  const p = (name: string) => join(project, name);
  const reads: Call[] = [
    "link.txt",
    "rel.txt",
    "chain.txt",
    "dirlink/id_rsa",
    "hard.txt",
    "env-link",
    "clone/leak",
    join(home, ".ssh/id_rsa"),
  ].map((f) => ["read_file", { file_path: f.startsWith("/") ? f : p(f) }]);
  return [
    ...reads,
    ["read_file", { file_path: "~/.deepagents/.state/credentials.json" }],
    ["grep", { pattern: "sk-", path: p("env-link") }],
    ["grep", { pattern: "SECRET", path: p("dirlink") }],
    ["grep", { pattern: "SECRET", path: p("link.txt") }],
    ["grep", { pattern: "SECRET", path: project }],
    ["grep", { pattern: "SECRET", path: p("clone") }],
    ["glob", { pattern: join(home, ".ssh", "*") }],
    ["glob", { pattern: "../home/.ssh/*" }],
    ["glob", { pattern: "*", path: p("dirlink") }],
    ["ls", { path: p("dirlink") }],
    ["ls", { path: join(home, ".ssh") }],
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

async function runAttack(mode: "default" | "accept-edits" | "bypass", calls: Call[], capabilities: unknown = {}) {
  const editor = createFakeEditor({
    permission: (m) => {
      dialogs.push(m);
      const reject = m.params.options.find((o: { kind: string }) => o.kind === "reject_once");
      return { outcome: { outcome: "selected", optionId: reject.optionId } };
    },
  });
  agent = await startAgentProcess({
    cwd: project,
    env: { HOME: home, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
    onRequest: editor.handle,
  });
  await agent.initialize(capabilities);
  let next = 0;
  model.setHandler(() => (next < calls.length ? toolTurn(calls[next]![0], calls[next++]![1]) : textTurn("done")));
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
  await agent.request("session/set_mode", { sessionId: result.sessionId, modeId: mode });
  const response = await agent.request("session/prompt", {
    sessionId: result.sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  expect(response.result.stopReason).toBe("end_turn");
  expect(next).toBe(calls.length);
  return { editor, sessionId: result.sessionId as string };
}

async function expectNoEscape(editor: ReturnType<typeof createFakeEditor>) {
  const last = model.requests.at(-1)!;
  const calls = new Map(last.messages.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c]));
  const leaks = last.messages
    .filter((m) => m.role === "tool" && (m.text.includes(SSH_SECRET) || m.text.includes(API_KEY)))
    .map((m) => JSON.stringify(calls.get(m.toolCallId!)));
  expect(leaks).toEqual([]);
  const sent = JSON.stringify(model.requests.map((r) => r.body));
  expect(sent.includes(SSH_SECRET) || sent.includes(API_KEY)).toBe(false);
  const shown = agent!.lines.join("\n");
  const bad = agent!.lines.filter((l) => l.includes(SSH_SECRET) || l.includes(API_KEY)).map((l) => l.slice(0, 600));
  expect(bad).toEqual([]);
  expect(shown.includes(SSH_SECRET) || shown.includes(API_KEY)).toBe(false);
  // Nothing outside the project changed or appeared; the editor was never handed an outside path.
  expect(await readFile(join(home, ".ssh", "id_rsa"), "utf8")).toBe(`${SSH_SECRET}\n`);
  expect((await readdir(join(home, ".ssh"))).sort()).toEqual(["id_rsa"]);
  expect(existsSync(join(home, "created-through-link.txt"))).toBe(false);
  expect(existsSync(join(home, ".deepagents", "agent", "memories", "planted.md"))).toBe(false);
  expect(await readFile(join(project, ".git", "config"), "utf8")).not.toContain("fsmonitor");
  for (const path of [...editor.reads, ...editor.writes.map((w) => w.path)])
    expect(path.startsWith(`${project}/`)).toBe(true);
}

describe("attack: links out of the project", () => {
  for (const mode of ["default", "accept-edits"] as const) {
    it(`every file tool, ${mode}, local backend: no secret reaches the model, nothing outside changes`, async () => {
      const { editor } = await runAttack(mode, hostileCalls());
      await expectNoEscape(editor);
      expect(dialogs.length).toBeGreaterThan(10);
    });

    it(`every file tool, ${mode}, through the editor's fs/*: only real paths inside the project reach the editor`, async () => {
      const { editor } = await runAttack(mode, hostileCalls(), ZED_CAPABILITIES);
      await expectNoEscape(editor);
    });
  }

  // A hard link has no "real" other name to check a rule against: outside bypass it asks (above);
  // in bypass only the rule on the name used applies (documented in docs/configuration.md).
  it("a deny rule on the real path holds through every symbolic link, even in bypass", async () => {
    await mkdir(join(home, ".deepagents"), { recursive: true });
    await writeFile(
      join(home, ".deepagents", "config.toml"),
      `[[permissions]]\noperations = ["read", "write"]\npaths = ["${join(home, ".ssh")}/**"]\nmode = "deny"\n`,
    );
    const p = (name: string) => join(project, name);
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
    expect(dialogs).toHaveLength(0);
    const sent = JSON.stringify(model.requests.map((r) => r.body));
    expect(sent.includes(SSH_SECRET)).toBe(false);
    expect(await readFile(join(home, ".ssh", "id_rsa"), "utf8")).toBe(`${SSH_SECRET}\n`);
    expect((await readdir(join(home, ".ssh"))).sort()).toEqual(["id_rsa"]);
  });

  it("names the real target in the dialog when a link leads there", async () => {
    await runAttack("accept-edits", [["read_file", { file_path: join(project, "link.txt") }]]);
    expect(dialogs).toHaveLength(1);
    expect(JSON.stringify(dialogs[0]!.params)).toContain(join(home, ".ssh", "id_rsa"));
  });

  it("asks nothing for ordinary work inside the project in accept-edits", async () => {
    const p = (name: string) => join(project, name);
    await mkdir(p("src"));
    await writeFile(p("src/a.ts"), "export const a = 1;\n");
    const { editor } = await runAttack("accept-edits", [
      ["read_file", { file_path: p("src/a.ts") }],
      ["grep", { pattern: "export", path: p("src") }],
      ["glob", { pattern: "**/*.ts" }],
      ["ls", { path: project }],
      ["write_file", { file_path: p("src/b.ts"), content: "export const b = 2;\n" }],
      ["edit_file", { file_path: p("src/a.ts"), old_string: "1", new_string: "3" }],
    ]);
    expect(dialogs).toHaveLength(0);
    expect(await readFile(p("src/a.ts"), "utf8")).toBe("export const a = 3;\n");
    expect(await readFile(p("src/b.ts"), "utf8")).toBe("export const b = 2;\n");
    await expectNoEscape(editor);
  });
});
