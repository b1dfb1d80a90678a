import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../../support/fake-model/index.js";
import { runCommand } from "../../support/processes.js";
import { conformanceThrough } from "./support/conformance-run.js";
import { REPO } from "./support/stage.js";

// The standalone binary (npm run build:binary; .ci/run builds it before the suite) as a user without
// Node runs it: copied out of the checkout into a folder of its own, with a PATH that has no node
// (only the few programs a session may start), and a fresh HOME.

const run = promisify(execFile);
const BUILT = join(REPO, "dist", "bin", `deep-acp-${process.platform}-${process.arch}`);
const TOOLS = ["sh", "git", "rg", "ls", "cat"];
let root: string;
let binary: string;
let path: string;

beforeAll(async () => {
  if (!existsSync(BUILT)) await run(process.execPath, [join(REPO, "scripts", "build-binary.mjs")], { cwd: REPO });
  root = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-binary-")));
  await mkdir(join(root, "opt"));
  binary = join(root, "opt", "deep-acp");
  await copyFile(BUILT, binary);
  path = join(root, "path");
  await mkdir(path);
  for (const tool of TOOLS) {
    const found = await run("sh", ["-c", `command -v ${tool}`]).catch(() => undefined);
    if (found) await symlink(found.stdout.trim(), join(path, tool));
  }
}, 180_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the standalone binary", () => {
  let model: FakeModelServer;
  const env = (extra: NodeJS.ProcessEnv = {}) => ({ PATH: path, HOME: join(root, "home"), ...extra });

  beforeAll(async () => {
    model = await createFakeModelServer({});
    await mkdir(join(root, "home"), { recursive: true });
  });
  afterAll(async () => {
    await model.close();
  });

  it("runs with no node on PATH", async () => {
    await expect(run("sh", ["-c", "command -v node"], { env: env() })).rejects.toThrow();
    const result = await runCommand(binary, ["--version"], { cwd: root, env: env() });
    expect(result.stdout.trim()).toBe(JSON.parse(await readFile(join(REPO, "package.json"), "utf8")).version);
  });

  it("`deep-acp setup zed` writes the binary's own path as the whole launch line", async () => {
    const result = await runCommand(binary, ["setup", "zed"], { cwd: root, env: env() });
    expect(result.code, result.stderr).toBe(0);
    const settings = JSON.parse(await readFile(join(root, "home", ".config", "zed", "settings.json"), "utf8"));
    expect(settings.agent_servers["deep-acp"]).toMatchObject({ command: binary, args: [] });
  });

  it("runs the interpreter from the QuickJS it carries", async () => {
    model.enqueue(toolTurn("eval", { code: "6 * 7" }), textTurn("evaluated"));
    const project = join(root, "project-eval");
    await mkdir(project, { recursive: true });
    const result = await runCommand(binary, ["-n", "compute"], {
      cwd: project,
      env: env({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.anthropicBaseUrl }),
    });
    expect(result.stdout, result.stderr).toBe("evaluated\n");
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain("42");
  });

  it("starts from the code caches it carries, which its own Node accepts", async () => {
    model.enqueue(textTurn("cached"));
    const project = join(root, "project-cache");
    await mkdir(project, { recursive: true });
    const result = await runCommand(binary, ["-n", "hello"], {
      cwd: project,
      env: env({
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
        DEEP_ACP_CODE_CACHE_CHECK: "1",
      }),
    });
    expect(result.stdout, result.stderr).toBe("cached\n");
    expect(result.stderr).toContain("early code cache rejected: false");
    expect(result.stderr).toContain("rest code cache rejected: false");
  });

  // A V8 flag in the user's NODE_OPTIONS (the binary, a Node, reads it) made a startup snapshot fail
  // to load, a fatal error; a code cache it does not fit is only compiled afresh.
  it("still answers with a V8 heap flag in NODE_OPTIONS", async () => {
    model.enqueue(textTurn("answered"));
    const project = join(root, "project-node-options");
    await mkdir(project, { recursive: true });
    const result = await runCommand(binary, ["-n", "hello"], {
      cwd: project,
      env: env({
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
        NODE_OPTIONS: "--max-old-space-size=4096",
      }),
    });
    expect(result.stdout, result.stderr).toBe("answered\n");
  });

  it("a bedrock: model says which packages it needs", async () => {
    const project = join(root, "project-bedrock");
    await mkdir(project, { recursive: true });
    const result = await runCommand(binary, ["-n", "hello"], {
      cwd: project,
      env: env({
        DEEP_ACP_MODEL: "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "secret",
        AWS_REGION: "us-east-1",
      }),
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      "use the npm package, `npm install -g deep-acp @aws-sdk/client-bedrock-runtime @smithy/node-http-handler`",
    );
  });
});

describe("ACP conformance through the standalone binary", () => {
  conformanceThrough({ executable: () => binary, path: () => path });
});
