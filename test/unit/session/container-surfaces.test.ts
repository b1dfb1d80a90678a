// A container session's gate matches container paths against the host's own surfaces, translated
// under the container root. A project folder whose name starts with ".." is inside the project.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHostSurfaceCache } from "../../../src/gate/surfaces/host-surface-cache.js";
import { containerSurfaceCache } from "../../../src/session/workspace/container/container-surfaces.js";

let base: string;
let home: string;
let project: string;
const env = () => ({ PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" });
const git = (...args: string[]) => execFileSync("git", args, { cwd: project, env: env(), stdio: "ignore" });

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-container-surfaces-")));
  home = join(base, "home");
  project = join(base, "project");
  await mkdir(home);
  await mkdir(project);
  git("init", "-q");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("containerSurfaceCache", () => {
  it("keeps a hooks folder named ..hooks as the container's /workspace/..hooks", async () => {
    git("config", "core.hooksPath", "..hooks");
    const host = createHostSurfaceCache({ home, git: { env: env() } });
    const answer = await containerSurfaceCache(host, project, "/workspace").get(project);
    expect(answer.paths).toContain("/workspace/..hooks");
    expect(answer.match("/workspace/..hooks/pre-commit")?.path).toBe("/workspace/..hooks");
    expect(answer.match("/workspace/../etc/passwd")).toBeUndefined();
  });
});
