// Issue 34 item 1, "what goes into the container", through the built binary on the real engine: a
// hostile repository's dev container must not send anything of the host but the project to the
// engine (a context of "../..", a linked-out .devcontainer or context, a linked-out file), HOME is
// never a container's project (the dotfiles case), and nothing is built or started before the user
// agreed to the plan shown in the editor. Each test removes the containers and images it made, by id.
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { checkDockerAvailable, createContainerTracker, TEST_IMAGE } from "../support/docker.js";
import { createFakeEditor } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const availability = await checkDockerAvailable();
if (!availability.ok) describe("container inputs", () => it.skip(`skipped: ${availability.reason}`, () => {}));

const env = process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {};
const SECRET = `host-secret-${randomUUID()}`;

(availability.ok ? describe : describe.skip)("attack: what goes into a container (built binary, real engine)", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const suite = useAgentSuite({ name: "container-inputs" });
  const tracker = createContainerTracker(docker);
  afterEach(async () => {
    await Promise.resolve()
      .then(() => suite.agent.stop())
      .catch(() => undefined);
    await tracker.removeAll();
  });

  /** A scratch folder: `outside/secret.txt` (what must never reach the engine) next to `proj` (a git root). */
  async function layout() {
    const base = await mkdtemp(join(tmpdir(), "deep-acp-attack-inputs-"));
    onTestFinished(() => rm(base, { recursive: true, force: true }));
    await mkdir(join(base, "outside"), { recursive: true });
    await writeFile(join(base, "outside", "secret.txt"), `${SECRET}\n`);
    const proj = join(base, "proj");
    await mkdir(join(proj, ".git"), { recursive: true });
    await mkdir(join(proj, ".devcontainer"), { recursive: true });
    return { base, proj, outside: join(base, "outside") };
  }

  /** Images this test's Dockerfiles made (they carry LABEL deep-acp.test=<marker>); removed after the test. */
  async function imagesOf(marker: string) {
    return docker.listImages({ all: true, filters: { label: [`deep-acp.test=${marker}`] } });
  }
  function dockerfile(marker: string, body: string) {
    onTestFinished(async () => {
      for (const image of await imagesOf(marker))
        await docker
          .getImage(image.Id)
          .remove({ force: true })
          .catch(() => undefined);
    });
    return `FROM ${TEST_IMAGE}\nLABEL deep-acp.test=${marker}\n${body}\n`;
  }

  /** A session in `cwd` through an editor; the first prompt runs `command` in it (or fails to start). */
  async function tryDevContainer(cwd: string, options: { permission?: (m: JsonRpcMessage) => unknown } = {}) {
    suite.model.enqueue(
      toolTurn("execute", { command: "cat /x/outside/secret.txt /leak.txt 2>&1; ls -R /x 2>&1 | head -50" }),
      textTurn("Done."),
    );
    const editor = createFakeEditor(options);
    await suite.start({ env, args: ["--workspace", "devcontainer"], onRequest: editor.handle });
    await suite.agent.initialize({});
    const { result } = await suite.agent.request("session/new", { cwd, mcpServers: [] });
    const sessionId = result.sessionId as string;
    await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const answer = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look" }] });
    for (const c of await docker.listContainers({ all: true, filters: { label: [`deep-acp.session=${sessionId}`] } }))
      tracker.add(c.Id);
    const sent = JSON.stringify(suite.model.requests);
    return { answer, sent, sessionId };
  }

  it('refuses build.context "../.." (the folder above the project): nothing is sent, nothing built', async () => {
    const { proj } = await layout();
    const marker = randomUUID();
    await writeFile(join(proj, ".devcontainer", "Dockerfile"), dockerfile(marker, "COPY . /x"));
    await writeFile(
      join(proj, ".devcontainer", "devcontainer.json"),
      JSON.stringify({ build: { dockerfile: "Dockerfile", context: "../.." } }),
    );
    const { answer, sent } = await tryDevContainer(proj);
    expect(sent).not.toContain(SECRET);
    expect(JSON.stringify(answer)).toMatch(/build context .* is outside the project/);
    expect(await imagesOf(marker)).toEqual([]);
  });

  it("refuses a build context that is a link to a folder outside the project", async () => {
    const { proj, outside } = await layout();
    const marker = randomUUID();
    await writeFile(join(outside, "Dockerfile"), dockerfile(marker, "COPY . /x/outside"));
    await symlink(outside, join(proj, ".devcontainer", "ctx"));
    await writeFile(
      join(proj, ".devcontainer", "devcontainer.json"),
      JSON.stringify({ build: { dockerfile: "ctx/Dockerfile", context: "ctx" } }),
    );
    const { answer, sent } = await tryDevContainer(proj);
    expect(sent).not.toContain(SECRET);
    expect(JSON.stringify(answer)).toMatch(/build context .*ctx \(resolves to .*outside\) is outside the project/);
    expect(await imagesOf(marker)).toEqual([]);
  });

  it("refuses a .devcontainer folder that links out of the project", async () => {
    const { proj, outside } = await layout();
    const marker = randomUUID();
    await rm(join(proj, ".devcontainer"), { recursive: true });
    await writeFile(join(outside, "Dockerfile"), dockerfile(marker, "COPY . /x/outside"));
    await writeFile(join(outside, "devcontainer.json"), JSON.stringify({ build: { dockerfile: "Dockerfile" } }));
    await symlink(outside, join(proj, ".devcontainer"));
    const { answer, sent } = await tryDevContainer(proj);
    expect(sent).not.toContain(SECRET);
    expect(JSON.stringify(answer)).toMatch(/the definition .* is outside the project/);
    expect(await imagesOf(marker)).toEqual([]);
  });

  it("a COPY of a link to a file outside the project finds nothing: links go to the engine as links", async () => {
    const { proj, outside } = await layout();
    const marker = randomUUID();
    await symlink(join(outside, "secret.txt"), join(proj, "leak.txt"));
    await writeFile(join(proj, ".devcontainer", "Dockerfile"), dockerfile(marker, "COPY leak.txt /leak.txt"));
    await writeFile(
      join(proj, ".devcontainer", "devcontainer.json"),
      JSON.stringify({ build: { dockerfile: "Dockerfile", context: ".." } }),
    );
    const { sent, answer } = await tryDevContainer(proj);
    // The engine resolves the archived link inside the context, where its target is not.
    expect(JSON.stringify(answer)).toMatch(/building .*Dockerfile failed/);
    expect(sent).not.toContain(SECRET);
  });

  it("a refused plan dialog builds and starts nothing, and says so", async () => {
    const { proj } = await layout();
    const marker = randomUUID();
    await writeFile(join(proj, ".devcontainer", "Dockerfile"), dockerfile(marker, "RUN echo built"));
    await writeFile(
      join(proj, ".devcontainer", "devcontainer.json"),
      JSON.stringify({
        build: { dockerfile: "Dockerfile" },
        postCreateCommand: "echo planted",
        mounts: ["source=/,target=/host"],
      }),
    );
    const dialogs: any[] = [];
    const { answer, sessionId } = await tryDevContainer(proj, {
      permission: (m) => {
        dialogs.push(m.params);
        return {
          outcome: {
            outcome: "selected",
            optionId: m.params.options.find((o: any) => o.kind === "reject_once").optionId,
          },
        };
      },
    });
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0].toolCall.title).toContain(`Build and start the dev container of ${proj}`);
    const shown = JSON.stringify(dialogs[0].toolCall.content);
    for (const part of ["RUN echo built", "echo planted", "mounts", "the build context"]) expect(shown).toContain(part);
    expect(JSON.stringify(answer)).toMatch(/was refused: nothing was built or started/);
    expect(await imagesOf(marker)).toEqual([]);
    expect(await docker.listContainers({ all: true, filters: { label: [`deep-acp.session=${sessionId}`] } })).toEqual(
      [],
    );
  });

  for (const mount of ["copy", "bind"])
    it(`HOME as the project (a dotfiles .git in HOME, a folder without .git opened) is refused in ${mount} mode`, async () => {
      await writeFile(join(suite.home, ".secret-token"), `${SECRET}\n`);
      await mkdir(join(suite.home, ".git"), { recursive: true });
      const opened = join(suite.home, "code", "new-thing");
      await mkdir(opened, { recursive: true });
      suite.model.enqueue(
        toolTurn("execute", { command: "cat ~/.secret-token .secret-token 2>&1; pwd" }),
        textTurn("Done."),
      );
      const run = await suite.run(
        ["-n", "look", "--yes", "--workspace", `docker://${TEST_IMAGE}${mount === "bind" ? "?mount=bind" : ""}`],
        { env, cwd: opened },
      );
      for (const c of await docker.listContainers({ all: true, filters: { label: [`deep-acp.root=${suite.home}`] } }))
        tracker.add(c.Id);
      expect(JSON.stringify(suite.model.requests)).not.toContain(SECRET);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/refuses .* as the project: it is your home folder[\s\S]*git init/);
      expect(tracker.ids.size).toBe(0);
    });
});

(availability.ok ? describe : describe.skip)("dev container consent and images (built binary, real engine)", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const suite = useAgentSuite({ name: "container-consent" });
  const tracker = createContainerTracker(docker);
  afterEach(async () => {
    await Promise.resolve()
      .then(() => suite.agent.stop())
      .catch(() => undefined);
    await tracker.removeAll();
  });
  const pick = (kind: string) => (m: JsonRpcMessage) => ({
    outcome: {
      outcome: "selected",
      optionId: m.params.options.find((o: { kind: string }) => o.kind === kind).optionId,
    },
  });

  it('"Always" asks once per definition; a changed Dockerfile asks again; headless needs --trust-devcontainer; the image is labelled, listed and removed', async () => {
    const marker = randomUUID();
    onTestFinished(async () => {
      for (const image of await docker.listImages({ all: true, filters: { label: [`deep-acp.test=${marker}`] } }))
        await docker
          .getImage(image.Id)
          .remove({ force: true })
          .catch(() => undefined);
    });
    await mkdir(join(suite.project, ".git"), { recursive: true });
    await mkdir(join(suite.project, ".devcontainer"), { recursive: true });
    const writeDockerfile = (step: string) =>
      writeFile(
        join(suite.project, ".devcontainer", "Dockerfile"),
        `FROM ${TEST_IMAGE}\nLABEL deep-acp.test=${marker}\nRUN echo ${step} > /step\n`,
      );
    await writeDockerfile("one");
    await writeFile(
      join(suite.project, ".devcontainer", "devcontainer.json"),
      JSON.stringify({ build: { dockerfile: "Dockerfile" } }),
    );
    const dialogs: string[] = [];
    const session = async (answer: string) => {
      const editor = createFakeEditor({
        permission: (m) => {
          dialogs.push(m.params.toolCall.title);
          return pick(m.params.toolCall.title.includes("dev container") ? answer : "allow_once")(m);
        },
      });
      suite.model.enqueue(toolTurn("execute", { command: "cat /step" }), textTurn("Done."));
      const sessionId = await suite.startSession({
        env,
        args: ["--workspace", "devcontainer"],
        onRequest: editor.handle,
      });
      await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
      const result = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
      for (const c of await docker.listContainers({ all: true, filters: { label: [`deep-acp.session=${sessionId}`] } }))
        tracker.add(c.Id);
      await suite.agent.stop();
      return result;
    };
    expect((await session("allow_always")).result.stopReason).toBe("end_turn");
    expect((await session("reject_once")).result.stopReason).toBe("end_turn");
    expect(dialogs.filter((t) => t.includes("dev container"))).toHaveLength(1);
    // The same content is the same image: the second session did not build again.
    const images = await docker.listImages({ filters: { label: [`deep-acp.test=${marker}`] } });
    expect(images).toHaveLength(1);
    expect(images[0]!.Labels).toMatchObject({
      "deep-acp.image": "devcontainer",
      "deep-acp.root": suite.project,
      "deep-acp.definition": join(suite.project, ".devcontainer", "devcontainer.json"),
    });
    expect(images[0]!.RepoTags![0]).toMatch(/^deep-acp-devcontainer:[0-9a-f]{16}$/);

    await writeDockerfile("two");
    const changed = await session("reject_once");
    expect(dialogs.filter((t) => t.includes("dev container"))).toHaveLength(2);
    expect(JSON.stringify(changed)).toMatch(/was refused: nothing was built or started/);

    // Headless: refused without the flag (nothing asked, nothing built), built and run with it.
    suite.model.enqueue(textTurn("never reached"));
    const refused = await suite.run(["-n", "go", "--yes", "--workspace", "devcontainer"], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/has not been approved[\s\S]*--trust-devcontainer/);
    suite.model.enqueue(toolTurn("execute", { command: "cat /step" }), textTurn("Done."));
    const trusted = await suite.run(["-n", "go", "--yes", "--workspace", "devcontainer", "--trust-devcontainer"], {
      env,
    });
    for (const c of await docker.listContainers({ all: true, filters: { label: [`deep-acp.root=${suite.project}`] } }))
      tracker.add(c.Id);
    expect(trusted.code).toBe(0);
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("two");

    // Listed with where they came from; an image in use is kept until its container goes.
    const built = await docker.listImages({ filters: { label: [`deep-acp.test=${marker}`] } });
    expect(built).toHaveLength(2);
    const list = await suite.run(["workspaces", "list"], { env });
    for (const image of built) expect(list.stdout).toContain(image.Id.replace(/^sha256:/, "").slice(0, 12));
    expect(list.stdout).toContain(`from ${suite.project}`);
    // Every session's container is still there, so both images are in use.
    const tag = built[0]!.RepoTags![0]!;
    const inUse = await suite.run(["workspaces", "rm", tag], { env });
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/is used by container\(s\)/);
    await tracker.removeAll();
    for (const image of built) {
      const removed = await suite.run(["workspaces", "rm", image.RepoTags![0]!], { env });
      expect(removed.stdout).toContain("Removed image deep-acp-devcontainer:");
    }
    expect(await docker.listImages({ filters: { label: [`deep-acp.test=${marker}`] } })).toEqual([]);
  }, 120_000);
});

describe.skipIf(!existsSync("/usr/bin/bwrap"))("attack: HOME is never writable in the sandbox", () => {
  const suite = useAgentSuite({ name: "bwrap-home" });

  it("a session opened on HOME under --sandbox bwrap runs no command, and says why", async () => {
    await writeFile(join(suite.home, ".bashrc"), "# mine\n");
    suite.model.enqueue(
      toolTurn("execute", { command: `echo planted >> ${join(suite.home, ".bashrc")}` }),
      textTurn("Done."),
    );
    const run = await suite.run(["-n", "go", "--yes", "--sandbox", "bwrap"], { cwd: suite.home });
    expect(await readFile(join(suite.home, ".bashrc"), "utf8")).toBe("# mine\n");
    expect(run.stderr).toMatch(/the bubblewrap sandbox refuses .* as the project: it is your home folder/);
  });
});
