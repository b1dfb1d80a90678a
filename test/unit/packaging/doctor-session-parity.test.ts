import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { collectDoctorReport } from "../../../src/cli/doctor/doctor.js";
import { defaultConfig } from "../../../src/config/config-file.js";
import { userPaths } from "../../../src/config/paths.js";
import { closeExtensions, loadExtensions } from "../../../src/extensions/index.js";
import { createDoor } from "../../../src/gate/door/door.js";
import { trustThroughDoor } from "../../../src/gate/seams/through-door.js";
import { silentLogger } from "../../../src/util/logger.js";
import { createConfigWatcherHub } from "../../../src/watch/index.js";
import { installReviewPlugin } from "./review-plugin.js";

// doctor and a session compose skills and plugins through the same loaders; this pins that they agree.

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function homeWithPlugin(): Promise<{ home: string; project: string }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-doctor-parity-")));
  temps.push(dir);
  const home = join(dir, "home");
  const project = join(dir, "project");
  await mkdir(join(project, ".git"), { recursive: true });
  await installReviewPlugin({ home });
  return { home, project };
}

it("doctor lists the built-in and plugin skills exactly as a session loads them", async () => {
  const { home, project } = await homeWithPlugin();
  const paths = userPaths("agent", home);
  const watchHub = createConfigWatcherHub();
  const extensions = await loadExtensions({
    sessionId: "parity",
    cwd: project,
    projectRoot: project,
    services: {
      logger: silentLogger,
      paths,
      agentName: "agent",
      env: {},
      config: async () => ({ config: defaultConfig(), diagnostics: [] }),
      reloadConfig: async () => ({ config: defaultConfig(), diagnostics: [] }),
      watchHub,
      flags: { noMcp: true },
    },
    config: defaultConfig(),
    editorMcpServers: [],
    // Headless: no trust dialog, nobody answers.
    trust: trustThroughDoor(createDoor({ approver: { requestApproval: async () => "unattended" } })),
    transcriptPath: join(project, "transcript.jsonl"),
    permissionMode: () => "default",
    hookGrants: new Set(),
  });
  await extensions.settled;
  await closeExtensions(extensions);
  await watchHub.close();

  // After a session has started (it writes the built-ins), doctor reports the same skills, same order.
  const report = await collectDoctorReport({
    cwd: project,
    home,
    env: {},
    agent: "agent",
    json: true,
    noMcp: true,
    checkBwrap: async () => ({ ok: true }),
  });
  const session = extensions.skills.items.map((skill) => ({ name: skill.name, scope: skill.scope, path: skill.path }));
  expect(session).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: "remember", scope: "builtin" }),
      expect.objectContaining({ name: "review@acme:review-pr", scope: "plugin" }),
    ]),
  );
  expect(report.skills.skills.map(({ name, scope, path }) => ({ name, scope, path }))).toEqual(session);
  expect(report.skills.dirs.map((dir) => dir.path)).toEqual(extensions.skills.sources.map((source) => source.dir));
  expect(report.plugins.enabled).toEqual([expect.objectContaining({ id: "review@acme", loaded: true, skills: 1 })]);
});
