// Container workspaces through the built binary, on a real Docker engine: the project is copied into a
// container (or mounted, in bind mode) and every file and command goes there; the editor's fs/* and
// terminal/* are never used for it, nothing of the host's environment is inside, and nothing reaches
// the host project until /apply (or -n --apply).
import { randomUUID } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import {
  checkDockerAvailable,
  containersOfSession,
  createContainerTracker,
  ENGINE_ENV,
  prepareEngineHome,
  REMOTE_ENGINE,
  TEST_IMAGE,
} from "../support/docker.js";
import { CLIENTS, createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { poll } from "../support/poll.js";
import { startTcpProxy } from "../support/socket-proxy.js";

const availability = await checkDockerAvailable();
if (!availability.ok) describe("container workspace", () => it.skip(`skipped: ${availability.reason}`, () => {}));

const texts = (updates: any[]) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");
// The engine from the environment: the local socket, or (.ci/run's second pass) ssh://... in front of it.
const env = ENGINE_ENV;
const engineSocket = (process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").replace(/^unix:\/\//, "");
const unixEngine = !process.env.DOCKER_HOST || process.env.DOCKER_HOST.startsWith("unix://");
const choose = (kind: string) => (m: JsonRpcMessage) => ({
  outcome: { outcome: "selected", optionId: m.params.options.find((o: { kind: string }) => o.kind === kind).optionId },
});

(availability.ok ? describe : describe.skip)("container workspace (built binary, real engine)", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const suite = useAgentSuite({ name: "container", prepare: ({ home }) => prepareEngineHome(home) });
  const tracker = createContainerTracker(docker);
  afterEach(async () => {
    await Promise.resolve()
      .then(() => suite.agent.stop())
      .catch(() => undefined);
    await tracker.removeAll();
  });
  /** Records the session's container so the test removes it (by id) whatever happens. */
  async function track(sessionId: string) {
    await poll(async () => (await containersOfSession(docker, sessionId)).length > 0);
    for (const c of await containersOfSession(docker, sessionId)) tracker.add(c.Id);
    return (await containersOfSession(docker, sessionId))[0]!;
  }
  const prompt = (sessionId: string, text: string) =>
    suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

  for (const [client, capabilities] of CLIENTS) {
    it(`copy mode with ${client}: files and commands in the container, nothing of the host inside, nothing on the host until /apply`, async () => {
      await writeFile(join(suite.project, "main.ts"), "const a = 1;\n");
      await writeFile(join(suite.project, "keep.txt"), "host original\n");
      const file = join(suite.project, "main.ts");
      suite.model.enqueue(
        toolTurn("read_file", { file_path: file }),
        toolTurn("edit_file", { file_path: file, old_string: "const a = 1;", new_string: "const a = 2;" }),
        toolTurn("write_file", { file_path: join(suite.project, "new.txt"), content: "made inside\n" }),
        toolTurn("write_file", { file_path: join(suite.project, ".mcp.json"), content: '{"mcpServers":{}}\n' }),
        toolTurn("write_file", { file_path: join(suite.project, "keep.txt"), content: "container edit\n" }),
        toolTurn("execute", {
          command:
            "cat main.ts; echo key=${ANTHROPIC_API_KEY:-none}; ls /sys/class/net | tr '\\n' ' '; echo; test -d " +
            suite.home +
            " && echo HOME-VISIBLE || echo no-host-home",
        }),
        textTurn("Done."),
      );
      const editor = createFakeEditor();
      const sessionId = await suite.startSession({
        env,
        args: ["--workspace", `docker://${TEST_IMAGE}`],
        onRequest: editor.handle,
        capabilities,
      });
      await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
      expect((await prompt(sessionId, "change a to 2 and run it")).result.stopReason).toBe("end_turn");
      const container = await track(sessionId);
      expect(container.Labels["deep-acp.root"]).toBe(suite.project);
      const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
      expect(sent).toContain("const a = 2;");
      expect(sent).toContain("key=none");
      expect(sent).toContain("no-host-home");
      expect(sent).toMatch(/lo \\n/); // only the loopback interface: --network none
      // The host project is untouched, and the editor was never asked to read, write or run anything.
      expect(await readFile(file, "utf8")).toBe("const a = 1;\n");
      await expect(readFile(join(suite.project, "new.txt"), "utf8")).rejects.toThrow();
      expect([editor.reads, editor.writes, editor.terminals.size]).toEqual([[], [], 0]);
      // The editor is told which workspace the session uses.
      const info = suite.agent.updates(sessionId).find((u) => u.sessionUpdate === "session_info_update" && u._meta);
      expect(info._meta["deep-acp"].workspace).toBe(`docker://${TEST_IMAGE}`);

      await prompt(sessionId, "/status");
      expect(texts(suite.agent.updates(sessionId))).toMatch(
        /Container workspace: docker:\/\/\S+ \(copy mode\) — container [0-9a-f]{12}.*(Docker|Podman) Engine/,
      );
      // Someone edits keep.txt on the host meanwhile: a conflict, never overwritten.
      await writeFile(join(suite.project, "keep.txt"), "host edit\n");
      await prompt(sessionId, "/changes");
      const listed = texts(suite.agent.updates(sessionId));
      expect(listed).toContain("modified `main.ts`");
      expect(listed).toContain("added `new.txt`");
      expect(listed).toMatch(/added `\.mcp\.json` — protected/);
      expect(listed).toMatch(/modified `keep\.txt` — conflict: changed on the host since the copy/);
    });
  }

  it("/apply: one dialog for the ordinary changes, one per protected path (rejected: skipped), conflicts named", async () => {
    await writeFile(join(suite.project, "a.txt"), "one\n");
    suite.model.enqueue(
      toolTurn("execute", {
        command: "echo two > a.txt && echo fresh > b.txt && mkdir -p .vscode && echo '{}' > .vscode/tasks.json",
      }),
      textTurn("Done."),
    );
    const dialogs: string[] = [];
    const editor = createFakeEditor({
      permission: (m) => {
        const title: string = m.params.toolCall.title;
        dialogs.push(title);
        return choose(title.includes("protected path") ? "reject_once" : "allow_once")(m);
      },
    });
    const sessionId = await suite.startSession({
      env,
      args: ["--workspace", `docker://${TEST_IMAGE}`],
      onRequest: editor.handle,
      capabilities: ZED_CAPABILITIES,
    });
    await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    expect((await prompt(sessionId, "edit")).result.stopReason).toBe("end_turn");
    await track(sessionId);
    dialogs.length = 0;
    expect((await prompt(sessionId, "/apply")).result.stopReason).toBe("end_turn");
    expect(dialogs).toEqual([
      `Apply 2 changes to ${suite.project}`,
      "Apply the change to protected path .vscode/tasks.json",
    ]);
    const dialog = suite.agent.messages.find(
      (m) => m.method === "session/request_permission" && m.params.toolCall.title.startsWith("Apply 2"),
    )!;
    expect(dialog.params.toolCall.content).toContainEqual({
      type: "diff",
      path: join(suite.project, "a.txt"),
      oldText: "one\n",
      newText: "two\n",
    });
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("two\n");
    expect(await readFile(join(suite.project, "b.txt"), "utf8")).toBe("fresh\n");
    await expect(readFile(join(suite.project, ".vscode", "tasks.json"), "utf8")).rejects.toThrow();
    expect(texts(suite.agent.updates(sessionId))).toMatch(/Skipped\*\* \(1\)\n- \.vscode\/tasks\.json: protected/);
    // Applied changes are no longer changes.
    await prompt(sessionId, "/changes");
    expect(texts(suite.agent.updates(sessionId))).toMatch(
      /1, not on the host until `\/apply`\n\n- added `\.vscode\/tasks\.json`/,
    );
  });

  it("stops when the agent is killed, comes back on session/load in a new process with the unapplied work, and goes with session/delete", async () => {
    suite.model.enqueue(toolTurn("execute", { command: "echo unapplied > work.txt" }), textTurn("Wrote it."));
    const sessionId = await suite.startSession({ env, args: ["--workspace", `docker://${TEST_IMAGE}`] });
    await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    expect((await prompt(sessionId, "write")).result.stopReason).toBe("end_turn");
    const container = await track(sessionId);
    suite.agent.child.kill("SIGKILL");
    let running = true;
    await poll(async () => !(running = (await docker.getContainer(container.Id).inspect()).State.Running));
    expect(running).toBe(false);
    // Stopped, not removed.
    expect((await containersOfSession(docker, sessionId)).map((c) => c.Id)).toEqual([container.Id]);

    await suite.start({ env, args: ["--workspace", `docker://${TEST_IMAGE}`] });
    await suite.agent.initialize({});
    await suite.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    suite.model.enqueue(toolTurn("execute", { command: "cat work.txt" }), textTurn("Read it."));
    expect((await prompt(sessionId, "read")).result.stopReason).toBe("end_turn");
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("unapplied");
    const list = await suite.run(["workspaces", "list"], { env });
    expect(list.stdout).toContain(container.Id.slice(0, 12));
    expect(list.stdout).toMatch(/unapplied changes \(1\): added work\.txt/);

    await suite.agent.request("session/delete", { sessionId });
    expect(await containersOfSession(docker, sessionId)).toEqual([]);
  });

  it("cancel stops the whole process tree inside the container", async () => {
    suite.model.enqueue(toolTurn("execute", { command: "echo started; sleep 271 & setsid sleep 273 & sleep 272" }));
    const sessionId = await suite.startSession({
      env,
      args: ["--workspace", `docker://${TEST_IMAGE}`],
      capabilities: ZED_CAPABILITIES,
    });
    await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const pending = prompt(sessionId, "run it");
    await suite.agent.waitFor(() =>
      suite.agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    const container = await track(sessionId);
    suite.agent.notify("session/cancel", { sessionId });
    expect((await pending).result.stopReason).toBe("cancelled");
    const sleeps = async () => {
      const exec = await docker.getContainer(container.Id).exec({
        Cmd: ["sh", "-c", "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '"],
        AttachStdout: true,
      });
      const stream = await exec.start({});
      let out = "";
      stream.on("data", (d: Buffer) => (out += d.toString("latin1")));
      await new Promise((r) => stream.on("end", r));
      return out.match(/sleep 27\d/g) ?? [];
    };
    let left: string[] = [];
    await poll(async () => (left = await sleeps()).length === 0);
    expect(left).toEqual([]);
  });

  (REMOTE_ENGINE ? it : it.skip)("bind mode on a remote engine is refused with what to use instead", async () => {
    const run = await suite.run(["-n", "write", "--yes", "--workspace", `docker://${TEST_IMAGE}?mount=bind`], { env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("bind mode (?mount=bind) mounts a folder of this machine");
    expect(run.stderr).toContain("use copy mode");
    const made = await docker.listContainers({ all: true, filters: { label: [`deep-acp.root=${suite.project}`] } });
    expect(made).toEqual([]);
  });

  (REMOTE_ENGINE ? it.skip : it)(
    "bind mode: edits are live on the host, the git dir is read-only inside; [workspace] limits apply",
    async () => {
      await mkdir(join(suite.project, ".git"), { recursive: true });
      await writeFile(join(suite.project, ".git", "config"), "[core]\n");
      suite.model.enqueue(
        toolTurn("execute", {
          command: "echo live > live.txt; echo '[core] fsmonitor = evil' >> .git/config; echo rc=$?",
        }),
        textTurn("Done."),
      );
      await mkdir(join(suite.home, ".deepagents"), { recursive: true });
      await writeFile(join(suite.home, ".deepagents", "config.toml"), '[workspace]\nmemory = "256m"\ncpus = 0.5\n');
      const sessionId = await suite.startSession({ env, args: ["--workspace", `docker://${TEST_IMAGE}?mount=bind`] });
      await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
      expect((await prompt(sessionId, "write")).result.stopReason).toBe("end_turn");
      const container = await track(sessionId);
      const { HostConfig } = await docker.getContainer(container.Id).inspect();
      expect([HostConfig.Memory, HostConfig.NanoCpus, HostConfig.NetworkMode]).toEqual([
        256 * 1024 * 1024,
        5e8,
        "none",
      ]);
      expect(await readFile(join(suite.project, "live.txt"), "utf8")).toBe("live\n");
      expect(await readFile(join(suite.project, ".git", "config"), "utf8")).toBe("[core]\n");
      expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toMatch(/Read-only file system[\s\S]*rc=1/);
    },
  );

  it("headless -n --workspace --apply applies the ordinary changes and lists the protected ones; sessions delete removes the container", async () => {
    suite.model.enqueue(
      toolTurn("execute", {
        command: "echo out > result.txt; mkdir -p .deepagents && echo x > .deepagents/hooks.json",
      }),
      textTurn("Done."),
    );
    const run = await suite.run(["-n", "make it", "--yes", "--workspace", `docker://${TEST_IMAGE}`, "--apply"], {
      env,
    });
    for (const c of await docker.listContainers({ all: true, filters: { label: [`deep-acp.root=${suite.project}`] } }))
      tracker.add(c.Id);
    expect(run.code).toBe(0);
    expect(await readFile(join(suite.project, "result.txt"), "utf8")).toBe("out\n");
    await expect(readFile(join(suite.project, ".deepagents", "hooks.json"), "utf8")).rejects.toThrow();
    expect(run.stderr).toMatch(/Applied\*\* \(1\)\n- result\.txt/);
    expect(run.stderr).toMatch(
      /\.deepagents\/hooks\.json: protected \(deep-acp's project hooks, MCP servers and memory\), not applied headless/,
    );

    // `deep-acp sessions delete` takes the session's container with it.
    const [container] = await docker.listContainers({
      all: true,
      filters: { label: [`deep-acp.root=${suite.project}`] },
    });
    const sessionId = container!.Labels["deep-acp.session"]!;
    const deleted = await suite.run(["sessions", "delete", sessionId], { env });
    expect(deleted.code).toBe(0);
    expect(await containersOfSession(docker, sessionId)).toEqual([]);
  });

  it("devcontainer: builds the Dockerfile FROM the base image, honours workspaceFolder, containerEnv, remoteUser and postCreateCommand", async () => {
    await mkdir(join(suite.project, ".devcontainer"), { recursive: true });
    await writeFile(
      join(suite.project, ".devcontainer", "Dockerfile"),
      // A label of this run's own: images are tagged by content, and another run (the Node 22 and 24
      // passes run side by side) must neither share this image nor remove it.
      `FROM ${TEST_IMAGE}\nLABEL deep-acp.test=${randomUUID()}\nRUN echo built-from-dockerfile > /built-marker && useradd -m -u 1234 dev\n`,
    );
    await writeFile(
      join(suite.project, ".devcontainer", "devcontainer.json"),
      `{
        // comments are allowed
        "name": "test",
        "build": { "dockerfile": "Dockerfile", "context": "." },
        "workspaceFolder": "/workspaces/proj",
        "containerEnv": { "GREETING": "hello-from-env", "LEAK": "\${localEnv:ANTHROPIC_API_KEY}" },
        "remoteUser": "dev",
        "postCreateCommand": "touch /workspaces/proj/.post-created",
        "forwardPorts": [3000],
      }`,
    );
    await writeFile(join(suite.project, "app.txt"), "app\n");
    suite.model.enqueue(
      toolTurn("execute", {
        command: "cat /built-marker; echo $GREETING; echo leak=$LEAK; pwd; id -un; ls -A; stat -c %U app.txt",
      }),
      textTurn("Done."),
    );
    const sessionId = await suite.startSession({ env, args: ["--workspace", "devcontainer"] });
    await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    expect((await prompt(sessionId, "look around")).result.stopReason).toBe("end_turn");
    const container = await track(sessionId);
    onTestFinished(() =>
      docker
        .getImage(container.ImageID)
        .remove({ force: true })
        .then(
          () => undefined,
          () => undefined,
        ),
    );
    expect(container.Image).toMatch(/^deep-acp-devcontainer:/);
    const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
    expect(sent).toContain("built-from-dockerfile");
    expect(sent).toContain("hello-from-env");
    expect(sent).toContain("leak=\\n");
    expect(sent).toMatch(/\/workspaces\/proj\\ndev\\n/);
    expect(sent).toContain(".post-created");
    expect(sent).toMatch(/app\.txt[\s\S]*dev/);
    // The model works in the container's folder.
    expect(JSON.stringify(suite.model.requests[0]!.body)).toContain("/workspaces/proj");
    expect(container.Labels["deep-acp.folder"]).toBe("/workspaces/proj");
    // The field deep-acp does not honour is named.
    expect(JSON.stringify(suite.agent.updates(sessionId))).toContain("not honoured: forwardPorts");
    await prompt(sessionId, "/changes");
    expect(texts(suite.agent.updates(sessionId))).toContain("added `.post-created`");
  });

  it("the gate follows links inside the container: a project link to the container's /etc asks, a plain file does not", async () => {
    await writeFile(join(suite.project, "plain.txt"), "inside\n");
    suite.model.enqueue(
      toolTurn("execute", { command: "ln -s /etc/os-release link.txt" }),
      toolTurn("read_file", { file_path: join(suite.project, "plain.txt") }),
      toolTurn("read_file", { file_path: join(suite.project, "link.txt") }),
      textTurn("Done."),
    );
    const asked: string[] = [];
    const editor = createFakeEditor({
      permission: (m) => {
        asked.push(JSON.stringify(m.params.toolCall));
        return choose(m.params.toolCall.kind === "execute" ? "allow_once" : "reject_once")(m);
      },
    });
    const sessionId = await suite.startSession({
      env,
      args: ["--workspace", `docker://${TEST_IMAGE}`],
      onRequest: editor.handle,
      capabilities: ZED_CAPABILITIES,
    });
    expect((await prompt(sessionId, "read both")).result.stopReason).toBe("end_turn");
    await track(sessionId);
    expect(asked).toHaveLength(2);
    // Resolved inside the container, where /etc/os-release is itself a link to /usr/lib/os-release.
    expect(asked[1]).toContain("reads /usr/lib/os-release (through the link");
    const sent = JSON.stringify(suite.model.requests.at(-1)!.body);
    expect(sent).toContain("inside");
    expect(sent).not.toContain("PRETTY_NAME");
  });

  it("doctor names the engine and its health; workspaces rm refuses a container with unapplied work unless --force", async () => {
    const healthy = await suite.run(["doctor", "--workspace", `docker://${TEST_IMAGE}`], { env, api: "none" });
    expect(healthy.stdout).toMatch(
      /Container workspace\n  ✓ docker:\/\/\S+ — (Docker|Podman) Engine \S+ \(API [\d.]+\) at \S+ \((local socket|remote, over SSH)\) — answers in [\d.]+ ms.*image \S+ present/,
    );
    expect(healthy.stdout).toContain(
      REMOTE_ENGINE ? `at ${process.env.DOCKER_HOST} (remote, over SSH)` : "(local socket)",
    );
    const missing = await suite.run(["doctor", "--workspace", "docker://deep-acp-no-such-image:0"], {
      env,
      api: "none",
    });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("is not on the engine (docker pull deep-acp-no-such-image:0)");

    suite.model.enqueue(toolTurn("execute", { command: "echo x > unsaved.txt" }), textTurn("Done."));
    const run = await suite.run(["-n", "write", "--yes", "--workspace", `docker://${TEST_IMAGE}`], { env });
    expect(run.code).toBe(0);
    const [container] = await docker.listContainers({
      all: true,
      filters: { label: [`deep-acp.root=${suite.project}`] },
    });
    tracker.add(container!.Id);
    const refused = await suite.run(["workspaces", "rm", container!.Id.slice(0, 12)], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("1 unapplied change(s): unsaved.txt");
    const removed = await suite.run(["workspaces", "rm", container!.Id.slice(0, 12), "--force"], { env });
    expect(removed.code).toBe(0);
    await expect(docker.getContainer(container!.Id).inspect()).rejects.toThrow();
  });

  (unixEngine ? it : it.skip)(
    "DOCKER_HOST=tcp://...: doctor names that engine and a session works through it",
    async () => {
      const proxy = await startTcpProxy(engineSocket);
      onTestFinished(() => proxy.stop());
      const viaTcp = { DOCKER_HOST: proxy.url };
      const doctor = await suite.run(["doctor", "--workspace", `docker://${TEST_IMAGE}`], { env: viaTcp, api: "none" });
      expect(doctor.stdout).toContain(`at ${proxy.url} (local TCP) — answers in`);
      const afterDoctor = proxy.connections;
      expect(afterDoctor).toBeGreaterThan(0);

      suite.model.enqueue(toolTurn("execute", { command: "echo through-$((6*7))" }), textTurn("Done."));
      const run = await suite.run(["-n", "run it", "--yes", "--workspace", `docker://${TEST_IMAGE}`], { env: viaTcp });
      for (const c of await docker.listContainers({
        all: true,
        filters: { label: [`deep-acp.root=${suite.project}`] },
      }))
        tracker.add(c.Id);
      expect(run.code).toBe(0);
      expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("through-42");
      expect(proxy.connections).toBeGreaterThan(afterDoctor);
    },
  );
});
