import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../../support/fake-model/index.js";
import { probeInitialize } from "./support/initialize.js";
import { startLocalRegistry, type LocalRegistry } from "./support/local-registry.js";
import { REPO, stagePackage, type StagedPackage } from "./support/stage.js";
import { runCommand } from "../../support/processes.js";

// What `npm publish` would ship, installed the way `npx deep-acp` installs it: production
// dependencies only, from the tarball, with no network: they come from a registry on 127.0.0.1 that
// serves what `npm ci` put in node_modules, through a fresh private npm cache. So the test works
// from any clean clone after `npm ci`, whatever HOME is and wherever npm keeps its own cache.

const run = promisify(execFile);
const ALLOWED = /^(package\.json|README\.md|LICENSE|acp-manifest\.json|icon\.svg|dist\/.+\.js|dist\/quickjs\.wasm)$/;

// Specifiers that appear in code strings ajv and sucrase generate (never imported by the bundle).
const IN_GENERATED_CODE = ["${", "ajv/dist/runtime/", "ajv-formats/", "react-hot-loader", "flow-enums-runtime"];

let root: string;
let staged: StagedPackage;
/** Environment for every npm call: private HOME and cache, no network, no notices. */
let npmEnv: NodeJS.ProcessEnv;
let registry: LocalRegistry;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-pack-")));
  registry = await startLocalRegistry(REPO, join(root, "registry"));
  const home = join(root, "home");
  await mkdir(home);
  npmEnv = {
    PATH: process.env.PATH,
    HOME: home,
    npm_config_cache: join(root, "npm-cache"),
    npm_config_registry: registry.url,
    npm_config_userconfig: join(home, ".npmrc"),
    // Dependencies' install scripts (native builds) could reach for the network; none is needed to run.
    npm_config_ignore_scripts: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  staged = await stagePackage(root);
}, 60_000);

afterAll(async () => {
  await registry?.close();
  await rm(root, { recursive: true, force: true });
});

type PackResult = { filename: string; files: Array<{ path: string }> };

async function npmPack(cwd: string, args: string[]): Promise<PackResult> {
  const { stdout } = await run("npm", ["pack", "--json", ...args], { cwd, env: npmEnv });
  return (JSON.parse(stdout) as PackResult[])[0]!;
}

describe("npm pack", () => {
  it("the repository publishes only package.json, README, LICENSE, the manifest, the icon and dist/", async () => {
    const dryRun = await npmPack(REPO, ["--dry-run"]);
    const unexpected = dryRun.files.map((f) => f.path).filter((path) => !ALLOWED.test(path));
    expect(unexpected).toEqual([]);
  });

  it("the built package holds the bundled entry and nothing from src/ or test/", async () => {
    const packed = await npmPack(staged.dir, ["--pack-destination", root]);
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((path) => !ALLOWED.test(path))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining(["package.json", "acp-manifest.json", "icon.svg", staged.pkg.bin["deep-acp"]]),
    );
    const entry = await readFile(staged.entry, "utf8");
    expect(entry.startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("has no dependencies: everything is bundled but the optional provider SDKs", () => {
    expect(staged.pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(staged.pkg.peerDependencies).sort()).toEqual([
      "@aws-sdk/client-bedrock-runtime",
      "@smithy/node-http-handler",
      "google-auth-library",
    ]);
  });

  it("the bundle imports nothing but Node built-ins, its own chunks and the optional peers", async () => {
    // ssh2 requires its optional native parts inside try/catch and runs without them.
    const dependencies = [...Object.keys(staged.pkg.peerDependencies), "cpu-features"];
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    const dist = join(staged.dir, "dist");
    const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith(".js"));
    const outside: string[] = [];
    for (const file of files) {
      const code = await readFile(join(dist, file), "utf8");
      for (const [, specifier] of code.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g,
      )) {
        if (specifier!.startsWith("./") || specifier!.startsWith("../")) continue;
        // Not a module name: the scan also meets the word "from" in a list of strings (the MCP SDK's
        // header names: "expires","from","host"), which reads as `from ","`.
        if (!/^[@\w]/.test(specifier!)) continue;
        if (specifier!.endsWith(".node")) continue;
        if (IN_GENERATED_CODE.some((text) => specifier!.includes(text))) continue;
        if (builtins.has(specifier!)) continue;
        if (dependencies.some((dep) => specifier === dep || specifier!.startsWith(`${dep}/`))) continue;
        outside.push(`${file}: ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });
});

describe("installing the tarball without dev dependencies", () => {
  let app: string;
  let model: FakeModelServer;

  beforeAll(async () => {
    model = await createFakeModelServer({ handler: () => textTurn("Installed and answering.") });
    const packed = await npmPack(staged.dir, ["--pack-destination", root]);
    app = join(root, "app");
    await mkdir(app);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "pack-test-app", private: true }));
    try {
      await run("npm", ["install", "--omit=dev", "--no-package-lock", join(root, packed.filename)], {
        cwd: app,
        env: npmEnv,
      });
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      throw new Error(
        `install of the tarball from the local registry (${registry.packages} packages packed from node_modules) failed; run npm ci first:\n${stderr ?? String(error)}`,
      );
    }
  }, 120_000);

  afterAll(async () => {
    await model.close();
  });

  it("installs one package, with no install scripts", async () => {
    const installed = (await readdir(join(app, "node_modules"))).filter((name) => !name.startsWith("."));
    expect(installed).toEqual(["deep-acp"]);
  });

  it("node_modules/.bin/deep-acp answers initialize and exits 0", async () => {
    const probe = await probeInitialize(join(app, "node_modules", ".bin", "deep-acp"), [], {
      cwd: app,
      env: { PATH: process.env.PATH, HOME: npmEnv.HOME },
    });
    expect(probe.response.result).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: "deep-acp", version: staged.pkg.version },
    });
    expect(probe.code).toBe(0);
  });

  it("acp-manifest.json's command `npx -y deep-acp` (the ACP registry requires it) runs the installed package, offline", async () => {
    const probe = await probeInitialize("npx", ["-y", "deep-acp"], {
      cwd: app,
      env: { ...npmEnv, npm_config_offline: "true" },
    });
    expect(probe.response.result, probe.stderr).toMatchObject({ protocolVersion: 1, agentInfo: { name: "deep-acp" } });
    for (const line of probe.lines) expect(() => JSON.parse(line), `non-JSON stdout line: ${line}`).not.toThrow();
    expect(probe.code).toBe(0);
  });

  it("runs a whole prompt turn (deep-acp -n) with the lazily loaded dependencies", async () => {
    const project = join(root, "project");
    await mkdir(project, { recursive: true });
    const result = await runCommand(join(app, "node_modules", ".bin", "deep-acp"), ["-n", "say something"], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: npmEnv.HOME,
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
      },
    });
    expect(result.stdout, result.stderr).toBe("Installed and answering.\n");
    expect(result.code).toBe(0);
    expect(model.requests.at(-1)?.lastUserText).toContain("say something");
  });
});

describe("the installed package's lazily loaded parts", () => {
  let app: string;
  let model: FakeModelServer;
  const bin = () => join(app, "node_modules", ".bin", "deep-acp");
  const env = (extra: NodeJS.ProcessEnv) => ({ PATH: process.env.PATH, HOME: npmEnv.HOME, ...extra });

  beforeAll(async () => {
    model = await createFakeModelServer({});
    app = join(root, "app");
  });

  afterAll(async () => {
    await model.close();
  });

  it("the interpreter runs from the bundled QuickJS and its copied WebAssembly", async () => {
    model.enqueue(toolTurn("eval", { code: "6 * 7" }), textTurn("evaluated"));
    const project = join(root, "project-eval");
    await mkdir(project, { recursive: true });
    const result = await runCommand(bin(), ["-n", "compute"], {
      cwd: project,
      env: env({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.anthropicBaseUrl }),
    });
    expect(result.stdout, result.stderr).toBe("evaluated\n");
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain("42");
  });

  it("a bedrock: model without the AWS SDK says which packages to install", async () => {
    const project = join(root, "project-bedrock");
    await mkdir(project, { recursive: true });
    const result = await runCommand(bin(), ["-n", "hello"], {
      cwd: project,
      env: env({
        DEEP_ACP_MODEL: "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "secret",
        AWS_REGION: "us-east-1",
      }),
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("npm install -g @aws-sdk/client-bedrock-runtime @smithy/node-http-handler");
    expect(result.stderr).not.toContain("ERR_MODULE_NOT_FOUND");
  });
});
