// Shared harness of the attack suites (test/e2e/attack-*.test.ts): a throwaway home holding a
// secret key, a project next to it, the built binary driven by a fake model that calls the given
// tools in order, and the checks that no secret got out and nothing outside the project changed.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { link, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { startAgentProcess, type AgentProcess, type JsonRpcMessage } from "./agent-process.js";
import { createFakeEditor } from "./fake-editor.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "./fake-model/index.js";

export const API_KEY = `sk-ant-FAKEKEY-${process.pid}-gate`;
export const SSH_SECRET = `SECRET-SSH-${process.pid}-gate`;

export type Call = [name: string, input: Record<string, unknown>];
export type AttackMode = "default" | "accept-edits" | "bypass" | "plan";
export type FakeEditor = ReturnType<typeof createFakeEditor>;

/** Runs git with only PATH and the test's HOME, so the developer's git config plays no part. */
export function git(home: string, cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
    stdio: "ignore",
  });
}

/**
 * Lays out base/home (with ~/.ssh/id_rsa holding SSH_SECRET) and base/project, a git repository
 * full of links out of it: file, folder, relative, chained, dangling and hard links, a link to
 * /proc/self/environ. `more` adds suite-specific traps before the clone (base/upstream, with a
 * committed symlink to the key) is made into project/clone.
 */
export async function plantHostileRepository(
  base: string,
  more: (home: string, project: string) => Promise<void> = async () => {},
): Promise<{ home: string; project: string }> {
  const home = join(base, "home");
  const project = join(base, "project");
  await mkdir(join(home, ".ssh"), { recursive: true });
  await mkdir(project);
  await writeFile(join(home, ".ssh", "id_rsa"), `${SSH_SECRET}\n`);
  await writeFile(join(project, "ok.txt"), "ordinary\n");
  git(home, project, "init", "-q");
  await symlink(join(home, ".ssh", "id_rsa"), join(project, "link.txt"));
  await symlink("../home/.ssh/id_rsa", join(project, "rel.txt"));
  await symlink(join(project, "rel.txt"), join(project, "chain.txt"));
  await symlink(join(home, ".ssh"), join(project, "dirlink"));
  await symlink(join(home, "created-through-link.txt"), join(project, "dangling.txt"));
  await symlink("/proc/self/environ", join(project, "env-link"));
  await link(join(home, ".ssh", "id_rsa"), join(project, "hard.txt"));
  await more(home, project);
  // A repository cloned with a committed symlink, as git stores it.
  const upstream = join(base, "upstream");
  await mkdir(upstream);
  git(home, upstream, "init", "-q");
  await symlink(join(home, ".ssh", "id_rsa"), join(upstream, "leak"));
  git(home, upstream, "add", "leak");
  git(home, upstream, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "-m", "x");
  git(home, project, "clone", "-q", upstream, "clone");
  return { home, project };
}

export type AttackSession = {
  model: FakeModelServer;
  base: string;
  home: string;
  project: string;
  agent: AgentProcess | undefined;
  /** Every session/request_permission the editor was shown in the current test. */
  dialogs: JsonRpcMessage[];
};

/**
 * Registers the suite's hooks: one fake model for the file, a fresh temporary `base` per test laid
 * out by `setup` (which returns home and project), and the agent stopped and `base` removed after.
 * The returned object's fields are valid inside tests.
 */
export function useAttackSession(
  prefix: string,
  setup: (base: string) => Promise<{ home: string; project: string }>,
): AttackSession {
  const state = { dialogs: [] as JsonRpcMessage[], agent: undefined } as AttackSession;
  beforeAll(async () => {
    state.model = await createFakeModelServer();
  });
  afterAll(async () => {
    await state.model.close();
  });
  beforeEach(async () => {
    state.base = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    Object.assign(state, await setup(state.base));
    state.dialogs = [];
    state.model.setHandler(undefined as never);
  });
  afterEach(async () => {
    await state.agent?.stop();
    state.agent = undefined;
    await rm(state.base, { recursive: true, force: true });
  });
  return state;
}

/**
 * Starts the binary in `mode` with an editor that rejects every dialog (or gives `answer` to each),
 * has the model make `calls` one per turn, and checks the turn ended normally after all of them were made.
 */
export async function runAttack(
  s: AttackSession,
  mode: AttackMode,
  calls: Call[],
  capabilities: unknown = {},
  prompt: unknown[] = [{ type: "text", text: "go" }],
  answer: "reject_once" | "allow_once" = "reject_once",
) {
  const editor = createFakeEditor({
    permission: (m) => {
      s.dialogs.push(m);
      const option = m.params.options.find((o: { kind: string }) => o.kind === answer);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    },
  });
  const agent = await startAgentProcess({
    cwd: s.project,
    env: { HOME: s.home, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: s.model.anthropicBaseUrl },
    onRequest: editor.handle,
  });
  s.agent = agent;
  await agent.initialize(capabilities);
  let next = 0;
  s.model.setHandler(() => (next < calls.length ? toolTurn(calls[next]![0], calls[next++]![1]) : textTurn("done")));
  const { result } = await agent.request("session/new", { cwd: s.project, mcpServers: [] });
  await agent.request("session/set_mode", { sessionId: result.sessionId, modeId: mode });
  const response = await agent.request("session/prompt", { sessionId: result.sessionId, prompt });
  expect(response.result.stopReason).toBe("end_turn");
  expect(next).toBe(calls.length);
  return { editor, sessionId: result.sessionId as string };
}

/** No secret reached the model or the editor, nothing outside the project changed or appeared. */
export async function expectNoEscape(s: AttackSession, editor: FakeEditor) {
  const { model, home, project } = s;
  const last = model.requests.at(-1)!;
  const calls = new Map(last.messages.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c]));
  const leaks = last.messages
    .filter((m) => m.role === "tool" && (m.text.includes(SSH_SECRET) || m.text.includes(API_KEY)))
    .map((m) => JSON.stringify(calls.get(m.toolCallId!)));
  expect(leaks).toEqual([]);
  const sent = JSON.stringify(model.requests.map((r) => r.body));
  expect(sent.includes(SSH_SECRET) || sent.includes(API_KEY)).toBe(false);
  const lines = s.agent!.lines;
  const shown = lines.join("\n");
  const bad = lines.filter((l) => l.includes(SSH_SECRET) || l.includes(API_KEY)).map((l) => l.slice(0, 600));
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

/**
 * The editor-fs runs prepend this ordinary read and pass the result to expectEditorSawOrdinaryRead:
 * the "only real paths inside the project reach the editor" loop of expectNoEscape proves nothing
 * unless the editor's fs/* was used at all.
 */
export function ordinaryRead(s: AttackSession): Call {
  return ["read_file", { file_path: join(s.project, "ok.txt") }];
}

export function expectEditorSawOrdinaryRead(s: AttackSession, editor: FakeEditor) {
  expect(editor.reads).toContain(join(s.project, "ok.txt"));
}

/** How the editor answers a dialog in commandSession (the dialog and its index in the test). */
export type CommandChoice = (dialog: JsonRpcMessage, index: number) => "allow_always" | "allow_once" | "reject_once";

/**
 * One session of the binary in `mode` whose editor answers each dialog with `choose` (reject_once
 * when the wanted option is not offered); returns a runner that makes `calls` in one prompt, one
 * per model turn, and checks the turn ended after all of them.
 */
export async function commandSession(
  s: AttackSession,
  mode: AttackMode,
  choose: CommandChoice = () => "reject_once",
): Promise<(calls: Call[]) => Promise<void>> {
  s.agent = await startAgentProcess({
    cwd: s.project,
    env: { HOME: s.home, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: s.model.anthropicBaseUrl },
    onRequest: (m) => {
      if (m.method !== "session/request_permission") throw new Error(`unexpected ${m.method}`);
      s.dialogs.push(m);
      const wanted = choose(m, s.dialogs.length - 1);
      const option =
        m.params.options.find((o: { kind: string }) => o.kind === wanted) ??
        m.params.options.find((o: { kind: string }) => o.kind === "reject_once");
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    },
  });
  await s.agent.initialize({});
  const { result } = await s.agent.request("session/new", { cwd: s.project, mcpServers: [] });
  await s.agent.request("session/set_mode", { sessionId: result.sessionId, modeId: mode });
  return async (calls: Call[]) => {
    let next = 0;
    s.model.setHandler(() => (next < calls.length ? toolTurn(calls[next]![0], calls[next++]![1]) : textTurn("done")));
    const response = await s.agent!.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(response.result.stopReason).toBe("end_turn");
    expect(next).toBe(calls.length);
  };
}

/** The command line a dialog asks about ("" for a file dialog). */
export const commandOf = (dialog: JsonRpcMessage) => String(dialog.params.toolCall.rawInput?.command ?? "");

export const offersAlways = (dialog: JsonRpcMessage) =>
  dialog.params.options.some((o: { kind: string }) => o.kind === "allow_always");

/** base/home with ~/.ssh/id_rsa holding SSH_SECRET, and base/project, an empty git repository. */
export async function homeWithKeyAndRepository(base: string): Promise<{ home: string; project: string }> {
  const home = join(base, "home");
  const project = join(base, "project");
  await mkdir(join(home, ".ssh"), { recursive: true });
  await writeFile(join(home, ".ssh", "id_rsa"), `${SSH_SECRET}\n`);
  await mkdir(project);
  git(home, project, "init", "-q");
  return { home, project };
}
