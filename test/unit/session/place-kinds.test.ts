import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExecuteOptions, SandboxBackendProtocol } from "../../../src/backends/protocol.js";
import { nodeRealPathFs } from "../../../src/backends/paths/real-path.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import { defaultConfig } from "../../../src/config/config-defaults.js";
import { userPaths } from "../../../src/config/paths.js";
import { silentLogger } from "../../../src/util/logger.js";
import type { PlaceKind, PlaceSetup } from "../../../src/session/workspace/place.js";
import { registerPlaceKind } from "../../../src/session/workspace/place-kinds.js";
import { selectWorkspace } from "../../../src/session/workspace/remote-workspace.js";
import { createWorkspace, removeSessionWorkspace } from "../../../src/session/workspace/workspace.js";
import { applyWorkspaceChanges, describeWorkspaceChanges } from "../../../src/session/workspace/changes-commands.js";

// Issue 35 item 2: a kind of place is one object registered by its URL scheme. A fake kind defined
// here, in test code, is chosen, opened, asked and let go of by the session's own code, which names
// no kind: what the session does comes from the place's members.

type Calls = { opened: string[]; ran: string[]; disposed: number; forgot: string[] };

/** A place whose files are in memory and whose "commands" are recorded; `changes` only when asked for. */
function fakeKind(calls: Calls, withChanges: boolean): PlaceKind {
  return {
    name: "fake",
    schemes: ["fake"],
    usage: "fake://HOST/path",
    select: (url, at) => ({
      url,
      async open(setup: PlaceSetup) {
        calls.opened.push(`${url} from ${at.source}${at.local ? ` for ${at.local}` : ""}`);
        const remoteCwd = new URL(url).pathname;
        const files = createStateBackend();
        const shell: SandboxBackendProtocol = Object.assign(files, {
          id: "fake-shell",
          async execute(command: string, options?: ExecuteOptions) {
            calls.ran.push(`${command} @ ${options?.cwd ?? remoteCwd}`);
            return { output: `fake ran ${command}`, exitCode: 0, truncated: false };
          },
        });
        setup.diagnostics.push({ severity: "warning", source: "fake", message: "a fake place" });
        return {
          files: shell,
          shell,
          cwd: remoteCwd,
          roots: [remoteCwd],
          realPathFs: nodeRealPathFs,
          sandboxed: false,
          announce: url,
          mentions: (blocks) => blocks.map((b) => (b.type === "file" ? { ...b, path: `${remoteCwd}/x` } : b)),
          status: async () => ({ label: "Fake workspace", text: `${url} answers` }),
          ...(withChanges
            ? {
                changes: {
                  describe: async () => "fake: 1 change",
                  apply: async () => ({ applied: ["a"], skipped: [], conflicts: [], failed: [], text: "applied a" }),
                },
              }
            : {}),
          async dispose() {
            calls.disposed++;
          },
        };
      },
      check: async () => ({ ok: true, summary: `${url} is fine`, title: "Fake workspace" }),
    }),
    async forgetSession(_paths, sessionId) {
      calls.forgot.push(sessionId);
    },
  };
}

describe("a registered place kind, opened by its URL scheme", () => {
  let home: string;
  let calls: Calls;
  let unregister: () => void;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "deep-acp-place-"));
    calls = { opened: [], ran: [], disposed: 0, forgot: [] };
  });
  afterEach(async () => {
    unregister();
    await rm(home, { recursive: true, force: true });
  });

  const open = (flags: { workspace?: string }, config = defaultConfig()) =>
    createWorkspace({
      cwd: "/home/me/proj",
      roots: ["/home/me/proj"],
      config,
      flags,
      paths: userPaths("agent", home),
      logger: silentLogger,
      sessionId: "s-1",
      projectRoot: "/home/me/proj",
    });

  it("files, commands, paths, status, mentions, changes and dispose are the place's", async () => {
    unregister = registerPlaceKind(fakeKind(calls, true));
    const workspace = await open({ workspace: "fake://box/srv/p" });
    expect(calls.opened).toEqual(["fake://box/srv/p from --workspace"]);
    expect({ cwd: workspace.cwd, roots: workspace.roots }).toEqual({ cwd: "/srv/p", roots: ["/srv/p"] });
    expect(workspace.diagnostics.map((d) => d.message)).toContain("a fake place");

    // The file tools' backend (routes and file rules over it) writes into the fake place.
    expect((await workspace.backend.write("/srv/p/a.txt", "hello")).error).toBeUndefined();
    expect((await workspace.place.files.read("/srv/p/a.txt")).content).toContain("hello");
    expect(await workspace.executor?.execute("make", { cwd: "/srv/p" })).toMatchObject({ output: "fake ran make" });
    expect(calls.ran).toEqual(["make @ /srv/p"]);
    expect(workspace.realPathFs).toBe(nodeRealPathFs);
    expect(workspace.sandboxed).toBe(false);

    expect(await workspace.place.status?.()).toEqual({ label: "Fake workspace", text: "fake://box/srv/p answers" });
    expect(workspace.place.announce).toBe("fake://box/srv/p");
    expect(workspace.place.mentions?.([{ type: "file", path: "/home/me/proj/a", name: "a", uri: "a" }], "/")).toEqual([
      { type: "file", path: "/srv/p/x", name: "a", uri: "a" },
    ]);

    const config = defaultConfig();
    expect(await describeWorkspaceChanges(workspace, config)).toBe("fake: 1 change");
    const signal = new AbortController().signal;
    // The gate's side (hooks, remembered choices) is handed to the place's apply, which this fake ignores.
    const applied = await applyWorkspaceChanges({
      workspace,
      config,
      signal,
      sink: () => undefined,
      hooks: async () => ({}) as never,
      approvals: {} as never,
      door: undefined,
    });
    expect(applied).toMatchObject({ applied: ["a"], text: "applied a", stopReason: "end_turn" });

    await workspace.dispose();
    expect(calls.disposed).toBe(1);
    await removeSessionWorkspace(userPaths("agent", home), "s-1");
    expect(calls.forgot).toEqual(["s-1"]);
  });

  it("a place without changes has nothing to apply, said as for the host's files", async () => {
    unregister = registerPlaceKind(fakeKind(calls, false));
    const workspace = await open({ workspace: "fake://box/q" });
    expect(await describeWorkspaceChanges(workspace, defaultConfig())).toMatch(/nothing to apply/);
    await workspace.dispose();
  });

  it("config.toml maps a local project root to the kind's URL, and doctor's check is the kind's", async () => {
    unregister = registerPlaceKind(fakeKind(calls, false));
    const config = defaultConfig();
    config.workspace.projects = { "/home/me": "fake://box/srv" };
    const chosen = selectWorkspace("/home/me/proj", ["/home/me/proj"], {}, config);
    expect(chosen).toMatchObject({
      kind: "fake",
      url: "fake://box/srv",
      source: 'config.toml [workspace.projects] "/home/me"',
    });
    expect(await chosen?.check?.({ cwd: "/home/me/proj", home, config, trustRemoteHost: false })).toEqual({
      ok: true,
      summary: "fake://box/srv is fine",
      title: "Fake workspace",
    });
    await (await open({}, config)).dispose();
    expect(calls.opened).toEqual(['fake://box/srv from config.toml [workspace.projects] "/home/me" for /home/me']);
  });

  it("a URL no kind names is refused with every kind's form; unregistered, the fake's scheme is unknown", () => {
    unregister = registerPlaceKind(fakeKind(calls, false));
    const at = (url: string) => () => selectWorkspace("/p", ["/p"], { workspace: url }, defaultConfig());
    for (const form of [/ssh:\/\/\[user@\]host/, /docker:\/\/IMAGE or devcontainer/, /fake:\/\/HOST\/path/])
      expect(at("nope://x")).toThrow(form);
    unregister();
    unregister = () => undefined;
    expect(at("fake://box/p")).toThrow(/workspace "fake:\/\/box\/p": expected ssh:\/\//);
  });
});
