// A remote workspace through the built binary, driven like Zed drives it: the workspace lives on a
// real OpenSSH server (under bubblewrap, at /remote-ws, a path absent on this machine), so every file
// and command must travel over SSH; the editor's fs/* and terminal/* must never be used for it.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { poll } from "../support/poll.js";
import { runCommand } from "../support/processes.js";
import { checkSshdAvailable, startSshd, writeSshHome, type TestSshd } from "../support/sshd.js";

const availability = checkSshdAvailable();
const describeWithSshd = availability.ok ? describe : describe.skip;
if (!availability.ok) describe("remote workspace over ssh", () => it.skip(`skipped: ${availability.reason}`, () => {}));

describeWithSshd("remote workspace over ssh (Zed capabilities, built binary)", () => {
  // The project is the local folder the editor has open; the workspace is on the SSH server.
  const suite = useAgentSuite({ name: "ssh" });
  let sshd: TestSshd;
  const remoteProject = () => `${sshd.remoteRoot}/proj`;
  const remoteUrl = () => `ssh://${sshd.user}@127.0.0.1:${sshd.port}${remoteProject()}`;
  const texts = (updates: any[]) =>
    updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");

  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  beforeEach(async () => {
    await rm(join(sshd.backingDir, "proj"), { recursive: true, force: true });
    await mkdir(join(sshd.backingDir, "proj"), { recursive: true });
  });

  async function connect(
    options: { permission?: (m: JsonRpcMessage) => unknown; knownHosts?: boolean; args?: string[] } = {},
  ) {
    await writeSshHome(suite.home, sshd, { knownHosts: options.knownHosts ?? true });
    const client = createFakeEditor(options.permission ? { permission: options.permission } : {});
    const sessionId = await suite.startSession({
      env: { ANTHROPIC_API_KEY: "sk-test-key" },
      args: ["--remote", remoteUrl(), ...(options.args ?? [])],
      onRequest: client.handle,
      capabilities: ZED_CAPABILITIES,
    });
    return { client, sessionId };
  }
  const prompt = (sessionId: string, text: string) =>
    suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

  it("mentions and reads come from the remote, never from the editor or the local disk", async () => {
    await writeFile(
      join(sshd.backingDir, "proj", "foo.rs"),
      'fn main() {\n    println!("Hello from the remote!");\n}\n',
    );
    suite.model.setHandler((request) =>
      textTurn(
        JSON.stringify(request.body).includes("Hello from the remote!")
          ? "It prints Hello from the remote!"
          : "I could not see the file.",
      ),
    );
    const { client, sessionId } = await connect();
    const response = await suite.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "What does " },
        { type: "resource_link", uri: "foo.rs", name: "foo.rs" },
        { type: "text", text: " print?" },
      ],
    });
    expect(response.result.stopReason).toBe("end_turn");
    expect(texts(suite.agent.updates(sessionId))).toContain("Hello from the remote!");
    expect(client.reads).toEqual([]);
    // The system prompt gives the model the remote working directory.
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain(remoteProject());
    await prompt(sessionId, "/status");
    expect(texts(suite.agent.updates(sessionId))).toMatch(
      /Remote workspace: ssh:\/\/.*proj — connected as .* \(from --remote\)/,
    );
  });

  it("an edit asks, shows its diff and lands on the remote; a command runs there with its output in the call", async () => {
    await writeFile(join(sshd.backingDir, "proj", "main.ts"), "const a = 1;\n");
    const file = `${remoteProject()}/main.ts`;
    suite.model.enqueue(
      toolTurn("edit_file", { file_path: file, old_string: "const a = 1;", new_string: "const a = 2;" }),
      toolTurn("execute", {
        command: "cat main.ts; test -d /remote-ws && echo ON-THE-REMOTE; echo ${ANTHROPIC_API_KEY:-no-key}",
      }),
      textTurn("Done."),
    );
    const { client, sessionId } = await connect();
    const response = await prompt(sessionId, "Change a to 2 and show the file.");
    expect(response.result.stopReason).toBe("end_turn");
    const permissions = suite.agent.messages.filter((m) => m.method === "session/request_permission");
    expect(permissions.map((m) => m.params.toolCall.title).join(" | ")).toMatch(/main\.ts.*\|.*cat main\.ts/);
    const updates = suite.agent.updates(sessionId);
    const diff = updates.flatMap((u) => u.content ?? []).find((c: { type: string }) => c.type === "diff");
    expect(diff).toEqual({ type: "diff", path: file, oldText: "const a = 1;\n", newText: "const a = 2;\n" });
    expect(await readFile(join(sshd.backingDir, "proj", "main.ts"), "utf8")).toBe("const a = 2;\n");
    const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
    expect(sent).toContain("ON-THE-REMOTE");
    expect(sent).toContain("no-key");
    expect(sent).not.toContain("sk-test-key");
    // Neither the editor's file system nor its terminals were used.
    expect(client.writes).toEqual([]);
    expect(client.reads).toEqual([]);
    expect(client.terminals.size).toBe(0);
  });

  it("the gate follows links on the remote: a project file linking outside the project asks", async () => {
    const { symlink } = await import("node:fs/promises");
    await writeFile(join(sshd.backingDir, "proj", "plain.txt"), "inside\n");
    // Resolved on the remote, this leads to /remote-ws/secret.txt, outside the project.
    await writeFile(join(sshd.backingDir, "secret.txt"), "outside\n");
    await symlink(`${sshd.remoteRoot}/secret.txt`, join(sshd.backingDir, "proj", "link.txt"));
    suite.model.enqueue(
      toolTurn("read_file", { file_path: `${remoteProject()}/plain.txt` }),
      toolTurn("read_file", { file_path: `${remoteProject()}/link.txt` }),
      textTurn("Done."),
    );
    const asked: string[] = [];
    const { sessionId } = await connect({
      permission: (m) => {
        asked.push(JSON.stringify(m.params.toolCall));
        return {
          outcome: {
            outcome: "selected",
            optionId: m.params.options.find((o: { kind: string }) => o.kind === "reject_once").optionId,
          },
        };
      },
    });
    expect((await prompt(sessionId, "read both")).result.stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("link.txt");
    const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
    expect(sent).toContain("inside");
    expect(sent).not.toContain("outside");
  });

  it("attack: a hard link to a file outside the project asks on the remote as locally, and searches skip it", async () => {
    const { link } = await import("node:fs/promises");
    await writeFile(join(sshd.backingDir, "secret.txt"), "HARD-LINKED-SECRET\n");
    await link(join(sshd.backingDir, "secret.txt"), join(sshd.backingDir, "proj", "notes.txt"));
    await writeFile(join(sshd.backingDir, "proj", "plain.txt"), "plain words\n");
    suite.model.enqueue(
      toolTurn("read_file", { file_path: `${remoteProject()}/notes.txt` }),
      toolTurn("grep", { pattern: "SECRET", path: remoteProject() }),
      toolTurn("grep", { pattern: "words", path: remoteProject() }),
      textTurn("Done."),
    );
    const asked: string[] = [];
    const { sessionId } = await connect({
      permission: (m) => {
        asked.push(JSON.stringify(m.params.toolCall));
        const reject = m.params.options.find((o: { kind: string }) => o.kind === "reject_once");
        return { outcome: { outcome: "selected", optionId: reject.optionId } };
      },
    });
    expect((await prompt(sessionId, "read it")).result.stopReason).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("notes.txt");
    const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
    expect(sent).not.toContain("HARD-LINKED-SECRET");
    expect(sent).toContain("plain words");
  });

  it("a loaded session reconnects; closing a session closes its connection", async () => {
    await writeFile(join(sshd.backingDir, "proj", "notes.md"), "remote notes\n");
    suite.model.enqueue(toolTurn("read_file", { file_path: `${remoteProject()}/notes.md` }), textTurn("Read."));
    const first = await connect();
    expect((await prompt(first.sessionId, "read the notes")).result.stopReason).toBe("end_turn");
    await suite.agent.stop();
    const client = createFakeEditor();
    await suite.start({ args: ["--remote", remoteUrl()], onRequest: client.handle });
    await suite.agent.initialize(ZED_CAPABILITIES);
    expect(
      (await suite.agent.request("session/load", { sessionId: first.sessionId, cwd: suite.project, mcpServers: [] }))
        .error,
    ).toBeUndefined();
    suite.model.enqueue(toolTurn("execute", { command: "cat notes.md" }), textTurn("Ran."));
    expect((await prompt(first.sessionId, "cat them")).result.stopReason).toBe("end_turn");
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("remote notes");
    const sessions = async () =>
      (await sshd.exec("ps -eo args")).stdout.split("\n").filter((l) => /^sshd: .*@notty/.test(l)).length;
    // Our own check is one session; the agent's connection is the other.
    expect(await sessions()).toBe(2);
    await suite.agent.request("session/close", { sessionId: first.sessionId });
    let open = 2;
    await poll(async () => (open = await sessions()) === 1);
    expect(open).toBe(1);
  });

  it("file rules in config.toml apply to the remote paths", async () => {
    await mkdir(join(sshd.backingDir, "proj", "private"), { recursive: true });
    await writeFile(join(sshd.backingDir, "proj", "private", "key.txt"), "TOP-SECRET\n");
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    await writeFile(
      join(suite.home, ".deepagents", "config.toml"),
      `[[permissions]]\noperations = ["read"]\npaths = ["${remoteProject()}/private/**"]\nmode = "deny"\n`,
    );
    suite.model.enqueue(
      toolTurn("read_file", { file_path: `${remoteProject()}/private/key.txt` }),
      textTurn("Denied."),
    );
    const { sessionId } = await connect();
    expect((await prompt(sessionId, "read the key")).result.stopReason).toBe("end_turn");
    const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
    expect(sent).not.toContain("TOP-SECRET");
    expect(sent).toMatch(/denied|not allowed|permission/i);
  });

  it("hooks run locally and see the remote paths in their payload", async () => {
    await writeFile(join(sshd.backingDir, "proj", "a.txt"), "A\n");
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    const payloadFile = join(suite.project, "payload.json");
    await writeFile(
      join(suite.home, ".deepagents", "hooks.json"),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `cat > ${payloadFile}` }] }] },
      }),
    );
    suite.model.enqueue(toolTurn("read_file", { file_path: `${remoteProject()}/a.txt` }), textTurn("Read."));
    const { sessionId } = await connect();
    expect((await prompt(sessionId, "read a")).result.stopReason).toBe("end_turn");
    const payload = JSON.parse(await readFile(payloadFile, "utf8"));
    expect(payload.tool_name).toBe("Read");
    expect(payload.tool_input.file_path).toBe(`${remoteProject()}/a.txt`);
  });

  it("subagents and eval work on the remote workspace too", async () => {
    await writeFile(join(sshd.backingDir, "proj", "deep.txt"), "from-the-subagent\n");
    await writeFile(join(sshd.backingDir, "proj", "evald.txt"), "from-eval\n");
    suite.model.enqueue(
      toolTurn("task", {
        description: `Read ${remoteProject()}/deep.txt and report it`,
        subagent_type: "general-purpose",
      }),
      toolTurn("read_file", { file_path: `${remoteProject()}/deep.txt` }),
      textTurn("The file says from-the-subagent."),
      toolTurn("eval", {
        code: `const r = await tools.readFile({ file_path: "${remoteProject()}/evald.txt" }); console.log(r);`,
      }),
      textTurn("Done."),
    );
    const { client, sessionId } = await connect();
    expect((await prompt(sessionId, "delegate and eval")).result.stopReason).toBe("end_turn");
    const sent = JSON.stringify(suite.model.requests.map((r) => r.body));
    expect(sent).toContain("from-the-subagent");
    expect(sent).toContain("from-eval");
    expect(client.reads).toEqual([]);
  });

  it("cancel stops the remote command and leaves no remote process", async () => {
    suite.model.enqueue(toolTurn("execute", { command: "echo started; sleep 271 & sleep 272" }));
    const { sessionId } = await connect();
    await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const pending = prompt(sessionId, "run it");
    await suite.agent.waitFor(() =>
      suite.agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    suite.agent.notify("session/cancel", { sessionId });
    expect((await pending).result.stopReason).toBe("cancelled");
    let left = "";
    await poll(async () => {
      left = (await sshd.exec("ps -eo args")).stdout
        .split("\n")
        .filter((l) => l.startsWith("sleep 27"))
        .join("\n");
      return left === "";
    });
    expect(left).toBe("");
  });

  it("an unknown host key is an editor dialog with the fingerprint; 'always' writes known_hosts", async () => {
    suite.model.enqueue(toolTurn("ls", { path: remoteProject() }), textTurn("Listed."));
    const { sessionId } = await connect({
      knownHosts: false,
      permission: (m) => {
        if (m.params.toolCall.title.includes("SSH host key"))
          return { outcome: { outcome: "selected", optionId: "always" } };
        return {
          outcome: {
            outcome: "selected",
            optionId: m.params.options.find((o: { kind: string }) => o.kind === "allow_once").optionId,
          },
        };
      },
    });
    expect((await prompt(sessionId, "list")).result.stopReason).toBe("end_turn");
    const dialog = suite.agent.messages.find(
      (m) => m.method === "session/request_permission" && m.params.toolCall.title.includes("SSH host key"),
    )!;
    expect(JSON.stringify(dialog.params.toolCall.content)).toContain(sshd.hostFingerprint);
    expect(await readFile(join(suite.home, ".ssh", "known_hosts"), "utf8")).toContain(
      sshd.knownHostsLine.split(" ").slice(1).join(" "),
    );
    const results = suite.agent
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(results.length).toBeGreaterThan(0);
  });

  it("a changed host key is refused with a clear error and never asked about", async () => {
    suite.model.enqueue(toolTurn("ls", { path: remoteProject() }), textTurn("Could not list."));
    await writeSshHome(suite.home, sshd);
    // A different key recorded for this host: what a man in the middle looks like.
    const other = await mkdtemp(join(tmpdir(), "deep-acp-otherkey-"));
    onTestFinished(() => rm(other, { recursive: true, force: true }));
    await runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(other, "k")], {
      cwd: other,
      env: process.env,
    });
    const otherKey = (await readFile(join(other, "k.pub"), "utf8")).trim().split(" ").slice(0, 2).join(" ");
    await writeFile(join(suite.home, ".ssh", "known_hosts"), `[127.0.0.1]:${sshd.port} ${otherKey}\n`);
    const client = createFakeEditor({
      permission: (m) => ({
        outcome: {
          outcome: "selected",
          optionId: m.params.options.find((o: { kind: string }) => o.kind === "allow_once").optionId,
        },
      }),
    });
    await suite.start({ args: ["--remote", remoteUrl()], onRequest: client.handle });
    await suite.agent.initialize(ZED_CAPABILITIES);
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect((await prompt(result.sessionId, "list")).result.stopReason).toBe("end_turn");
    expect(
      suite.agent.messages.some(
        (m) => m.method === "session/request_permission" && m.params.toolCall.title.includes("SSH host key"),
      ),
    ).toBe(false);
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toMatch(/host key of \[127\.0\.0\.1\]:\d+ has CHANGED/);
  });

  it("doctor shows the remote and its health; an unknown key is reported, --trust-remote-host accepts it for the run", async () => {
    await writeSshHome(suite.home, sshd);
    const healthy = await suite.run(["doctor", "--remote", remoteUrl()], { api: "none" });
    expect(healthy.stdout).toMatch(/Remote workspace\n  ✓ ssh:\/\/.*connected as .*connect \d+ ms/);
    await rm(join(suite.home, ".ssh", "known_hosts"));
    const unknown = await suite.run(["doctor", "--remote", remoteUrl()], { api: "none" });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain(sshd.hostFingerprint);
    expect(unknown.stdout).toContain("--trust-remote-host");
    suite.model.enqueue(toolTurn("execute", { command: "echo from-$(pwd)" }), textTurn("ran it"));
    const headless = await suite.run(["-n", "run pwd", "--yes", "--remote", remoteUrl(), "--trust-remote-host"]);
    expect(headless.code).toBe(0);
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain(`from-${remoteProject()}`);
  });
});
