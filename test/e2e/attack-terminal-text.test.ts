// Attack suite, round 4: what the CLI prints reaches the user's terminal with no control sequence in
// it. A file name, a session title, the model's answer and a container's change list can all carry
// ESC sequences (set the window title, write the clipboard with OSC 52, clear the screen, hide text
// behind a link) or bidi overrides; printed raw, the terminal obeys them. The `-n` answer stays raw
// when stdout is a pipe (it is data there) and is escaped on a TTY. Built binary, fake model, and a
// real engine for the container part.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { BINARY } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { checkDockerAvailable, createContainerTracker, TEST_IMAGE } from "../support/docker.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const CLIPBOARD = "\u001b]52;c;cHduZWQ=\u0007";
const TITLE = "\u001b]0;owned\u0007";
const CLEAR = "\u001b[2J";
const OVERRIDE = "\u202e";
/** Raw bytes a terminal acts on: ESC, BEL, a C1 CSI or a bidi override. */
const RAW = /[\u001b\u0007\u009b\u202e]/;

const suite = useAgentSuite({ name: "terminal-text", prepare: ({ project }) => mkdir(join(project, ".git")) });

describe("attack: control sequences in what the CLI prints", () => {
  it("-n (piped), sessions list and sessions show print titles, file names and answers escaped", async () => {
    const hostile = join(suite.project, `notes${TITLE}${OVERRIDE}txt.md`);
    suite.model.enqueue(toolTurn("read_file", { file_path: hostile }), textTurn(`answer ${CLIPBOARD} end`));
    const run = await suite.run(["-n", `fix ${CLEAR}it`, "--yes"]);
    expect(run.code).toBe(0);
    // stdout is a pipe: the answer is data and stays as the model wrote it.
    expect(run.stdout).toContain(CLIPBOARD);
    expect(run.stderr).not.toMatch(RAW);
    expect(run.stderr).toContain("notes\\x1b]0;owned\\x07\\u202etxt.md");

    const list = await suite.run(["sessions", "list"]);
    expect(list.stdout).not.toMatch(RAW);
    expect(list.stdout).toContain("fix \\x1b[2Jit");
    const [session] = JSON.parse((await suite.run(["sessions", "list", "--json"])).stdout) as { id: string }[];
    const show = await suite.run(["sessions", "show", session!.id]);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(RAW);
    expect(show.stdout).toContain("answer \\x1b]52;c;cHduZWQ=\\x07 end");
  });

  it.skipIf(!existsSync("/usr/bin/script"))("-n on a TTY: the answer is escaped", async () => {
    suite.model.enqueue(textTurn(`answer ${CLIPBOARD} end`));
    // script(1) gives the agent a pseudo-terminal as stdout; what it prints comes back on ours. Not
    // execFileSync: the fake model answers from this process.
    const command = [process.execPath, BINARY, "-n", "go", "--yes"].map((a) => `'${a}'`).join(" ");
    const { stdout: out } = await promisify(execFile)("script", ["-qfec", command, "/dev/null"], {
      cwd: suite.project,
      env: { PATH: process.env.PATH, ...suite.env() },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(out).toContain("answer \\x1b]52;c;cHduZWQ=\\x07 end");
    expect(out).not.toContain(CLIPBOARD);
  });
});

const availability = await checkDockerAvailable();
const env = process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {};

(availability.ok ? describe : describe.skip)("attack: control sequences in a container's file names", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const tracker = createContainerTracker(docker);
  afterEach(() => tracker.removeAll());

  it("-n --apply and workspaces list name the planted file escaped", async () => {
    // printf writes the ESC and BEL bytes into the name inside the container.
    const make = `touch "$(printf 'planted\\033]0;owned\\007.txt')"`;
    suite.model.enqueue(toolTurn("execute", { command: make }), textTurn("Done."));
    const first = await suite.run(["-n", "plant", "--yes", "--workspace", `docker://${TEST_IMAGE}`], { env });
    expect(first.code).toBe(0);
    const [container] = await docker.listContainers({
      all: true,
      filters: { label: [`deep-acp.root=${suite.project}`] },
    });
    tracker.add(container!.Id);
    const list = await suite.run(["workspaces", "list"], { env });
    expect(list.stdout).toContain("planted\\x1b]0;owned\\x07.txt");
    expect(list.stdout).not.toMatch(RAW);

    suite.model.enqueue(toolTurn("execute", { command: make }), textTurn("Done."));
    const applied = await suite.run(["-n", "plant", "--yes", "--workspace", `docker://${TEST_IMAGE}`, "--apply"], {
      env,
    });
    for (const c of await docker.listContainers({ all: true, filters: { label: [`deep-acp.root=${suite.project}`] } }))
      tracker.add(c.Id);
    expect(applied.stderr).toContain("planted\\x1b]0;owned\\x07.txt");
    expect(applied.stderr).not.toMatch(RAW);
  });
});
