import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceThrough } from "./support/conformance-run.js";
import { stagePackage } from "./support/stage.js";

// What a user does: `npm install -g deep-acp`, here from the packed tarball into a temporary
// prefix with a private, empty npm cache and no registry: the package has no dependencies, so
// nothing else is fetched. Then the conformance checks through the installed `deep-acp` bin.

const run = promisify(execFile);
let root: string;
let prefix: string;
let installOutput = "";

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-global-")));
  const staged = await stagePackage(root);
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", root], { cwd: staged.dir });
  const tarball = join(root, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
  prefix = join(root, "prefix");
  await mkdir(join(root, "home"));
  const installed = await run("npm", ["install", "-g", "--prefix", prefix, tarball], {
    env: {
      PATH: process.env.PATH,
      HOME: join(root, "home"),
      npm_config_cache: join(root, "npm-cache"),
      npm_config_offline: "true",
      npm_config_update_notifier: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
    },
  });
  installOutput = installed.stdout + installed.stderr;
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("npm install -g of the packed tarball", () => {
  it("installs one package, offline, without install-script warnings", async () => {
    expect(installOutput).toMatch(/added 1 package/);
    expect(installOutput).not.toMatch(/install-scripts|allow-scripts|npm warn/i);
    const modules = (await readdir(join(prefix, "lib", "node_modules"))).filter((name) => !name.startsWith("."));
    expect(modules).toEqual(["deep-acp"]);
  });

  it("installs under 5 MB", async () => {
    const dir = join(prefix, "lib", "node_modules", "deep-acp");
    let bytes = 0;
    for (const file of await readdir(dir, { recursive: true })) {
      const info = await stat(join(dir, file));
      if (info.isFile()) bytes += info.size;
    }
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
  });
});

describe("ACP conformance through the installed bin", () => {
  conformanceThrough({ executable: () => join(prefix, "bin", "deep-acp"), path: () => process.env.PATH ?? "" });
});
