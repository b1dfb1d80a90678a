import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeModelServer, textTurn, type FakeModelServer } from "../../support/fake-model/index.js";
import { clientBin, clientMissing, clientNode } from "../../support/test-clients.js";
import { readEditorLaunches, type EditorLaunch } from "../../unit/packaging/editor-configs.js";
import { probeInitialize } from "./support/initialize.js";
import { stagePackage, type StagedPackage } from "./support/stage.js";

// Each editor config launches `deep-acp` (the global install's bin, never npx). Here that command
// line is mapped onto a fresh local build (`node <stage>/dist/deep-acp.js`): same arguments, no
// network. pack.test.ts proves the installed bin is this same entry.

let root: string;
let staged: StagedPackage;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-editors-")));
  staged = await stagePackage(root);
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function toLocalBuild(launch: EditorLaunch): [string, string[]] {
  if (launch.command !== "deep-acp") throw new Error(`${launch.file} does not launch deep-acp`);
  return [process.execPath, [staged.entry, ...launch.args]];
}

async function freshDirs(name: string): Promise<{ home: string; cwd: string }> {
  const home = join(root, name, "home");
  const cwd = join(root, name, "project");
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
  return { home, cwd };
}

/** Processes whose command line mentions the staged build: none may outlive a test. */
async function processesUsing(path: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(join("/proc", entry, "cmdline"), "utf8").catch(() => "");
    const state = await readFile(join("/proc", entry, "stat"), "utf8").catch(() => "");
    if (cmdline.includes(path) && !/\) [ZX] /.test(state)) pids.push(Number(entry));
  }
  return pids;
}

describe("editors/ command lines", () => {
  it("every editor's command starts deep-acp, which answers initialize and exits 0 when stdin closes", async () => {
    const launches = await readEditorLaunches();
    expect(launches.length).toBe(6);
    await Promise.all(
      launches.map(async (launch) => {
        const [command, args] = toLocalBuild(launch);
        const { home, cwd } = await freshDirs(launch.file.replace(/\W+/g, "-"));
        const probe = await probeInitialize(command, args, {
          cwd,
          env: { PATH: process.env.PATH, HOME: home, ...launch.env },
          clientName: launch.editor,
        });
        expect(probe.response.result, `${launch.file}: ${probe.stderr}`).toMatchObject({
          protocolVersion: 1,
          agentInfo: { name: "deep-acp", version: staged.pkg.version },
        });
        // stdout carries only JSON-RPC.
        for (const line of probe.lines)
          expect(() => JSON.parse(line), `${launch.file} wrote a non-JSON line: ${line}`).not.toThrow();
        expect(probe.code, launch.file).toBe(0);
      }),
    );
    expect(await processesUsing(staged.entry)).toEqual([]);
  });
});

const acpxMissing = clientMissing("acpx");
if (acpxMissing) console.warn(`skipping the acpx test: ${acpxMissing}`);

describe.skipIf(acpxMissing !== undefined)("acpx against the editors/ command line", () => {
  let model: FakeModelServer;
  beforeAll(async () => {
    model = await createFakeModelServer({ handler: () => textTurn("Hello from the fake model, via acpx.") });
  });
  afterAll(async () => {
    await model.close();
  });

  it("runs a prompt turn through the Zed config's command and prints the model's answer", async () => {
    const zed = (await readEditorLaunches()).find((launch) => launch.editor === "Zed")!;
    const [command, args] = toLocalBuild(zed);
    const { home, cwd } = await freshDirs("acpx");
    // acpx runs on the Node it needs (>= 22.13); deep-acp on the one under test.
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        clientNode()!,
        [
          clientBin("acpx")!,
          ...["--agent", [command, ...args].join(" "), "--format", "quiet", "--timeout", "60", "exec", "hello"],
        ],
        {
          cwd,
          env: {
            PATH: process.env.PATH,
            HOME: home,
            ANTHROPIC_API_KEY: "test-key",
            ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
          },
          timeout: 60_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.stdout, result.stderr).toContain("Hello from the fake model, via acpx.");
    expect(result.code).toBe(0);
    expect(model.requests.at(-1)?.lastUserText).toContain("hello");
    expect(await processesUsing(staged.entry)).toEqual([]);
  }, 90_000);
});
