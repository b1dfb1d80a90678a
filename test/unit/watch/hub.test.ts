import { watch as chokidarWatch } from "chokidar";
import { mkdirSync, watch as fsWatch } from "node:fs";
import { appendFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { userPaths } from "../../../src/config/paths.js";
import { createConfigWatcherHub, type ConfigWatcherHub } from "../../../src/watch/hub.js";
import { sessionWatchTargets } from "../../../src/watch/targets.js";
import type { ConfigChange, FileWatcher, WatchFactory, WatchTarget } from "../../../src/watch/types.js";
import { makeTempDir } from "../skills/temp-dir.js";

/** Collects changes; next() waits for the following one (generous timeout, no timing assertions). */
function recorder() {
  const changes: ConfigChange[] = [];
  const waiters: ((change: ConfigChange) => void)[] = [];
  return {
    changes,
    listener: (change: ConfigChange) => {
      changes.push(change);
      waiters.shift()?.(change);
    },
    next(timeoutMs = 10_000): Promise<ConfigChange> {
      return new Promise((resolve, reject) => {
        const waiter = (change: ConfigChange) => {
          clearTimeout(timer);
          resolve(change);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error("no config change reported"));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
  };
}

/** Repeats `act` until a change is reported (up to ~10 s). */
async function eventually(
  events: ReturnType<typeof recorder>,
  act: (round: number) => Promise<void>,
): Promise<ConfigChange> {
  for (let round = 0; round < 20; round++) {
    const next = events.next(500);
    await act(round);
    try {
      return await next;
    } catch {
      // Not reported yet; try again.
    }
  }
  throw new Error("no config change reported after repeated edits");
}

/** Real chokidar behind a factory that counts what it creates and closes. */
function countingFactory() {
  const stats = { created: 0, closed: 0 };
  const factory: WatchFactory = (paths, options) => {
    stats.created++;
    const watcher = chokidarWatch(paths, options);
    const wrapped: FileWatcher = {
      on: (event: string, listener: (...args: never[]) => void) => watcher.on(event as "all", listener as never),
      add: (more) => watcher.add(more as string[]),
      getWatched: () => watcher.getWatched(),
      close: async () => {
        stats.closed++;
        await watcher.close();
      },
    } as FileWatcher;
    return wrapped;
  };
  return { stats, factory };
}

let root: string;
let cleanup: () => Promise<void>;
let hub: ConfigWatcherHub;
let counting: ReturnType<typeof countingFactory>;
let targets: WatchTarget[];

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
  counting = countingFactory();
  hub = createConfigWatcherHub({ watchFactory: counting.factory });
  await mkdir(join(root, "repo", "src"), { recursive: true });
  targets = [
    { path: join(root, "repo", ".deepagents", "skills"), label: "skills", depth: 3 },
    { path: join(root, "repo", "AGENTS.md"), label: "memory", depth: 0 },
    { path: join(root, "repo", ".deepagents", "hooks.json"), label: "hooks", depth: 0 },
    { path: join(root, "home", ".deepagents", "agent", "agents"), label: "subagents", depth: 2 },
  ];
});
afterEach(async () => {
  await hub.close();
  await cleanup();
});

describe("config watcher hub", () => {
  it("reports a skills dir created where nothing existed", async () => {
    const events = recorder();
    const subscription = hub.watch(join(root, "repo"), targets, events.listener);
    await subscription.ready;
    const next = events.next();
    await mkdir(join(root, "repo", ".deepagents", "skills", "deploy"), { recursive: true });
    await writeFile(join(root, "repo", ".deepagents", "skills", "deploy", "SKILL.md"), "---\nname: deploy\n---\n");
    const change = await next;
    expect(change.labels).toEqual(["skills"]);
    expect(change.paths.every((path) => path.startsWith(join(root, "repo", ".deepagents", "skills")))).toBe(true);
  });

  it("reports memory edits and ignores unrelated files", async () => {
    await writeFile(join(root, "repo", "AGENTS.md"), "v1");
    const events = recorder();
    await hub.watch(join(root, "repo"), targets, events.listener).ready;
    const next = events.next();
    await writeFile(join(root, "repo", "src", "main.ts"), "unrelated");
    await writeFile(join(root, "repo", "README.md"), "unrelated");
    await appendFile(join(root, "repo", "AGENTS.md"), "\nv2");
    const change = await next;
    expect(change).toEqual({ labels: ["memory"], paths: [join(root, "repo", "AGENTS.md")] });
  });

  it("watches a target whose whole ancestry is missing (user dir under a new home)", async () => {
    const events = recorder();
    await hub.watch(join(root, "repo"), targets, events.listener).ready;
    const next = events.next();
    await mkdir(join(root, "home", ".deepagents", "agent", "agents", "reviewer"), { recursive: true });
    await writeFile(
      join(root, "home", ".deepagents", "agent", "agents", "reviewer", "AGENTS.md"),
      "---\ndescription: r\n---\n",
    );
    expect((await next).labels).toEqual(["subagents"]);
  });

  it("descends into a folder on the way that appears between planning and watching", async () => {
    // The race of `mkdir -p home/.deepagents/agent/agents` on a busy machine: the watch of
    // `.deepagents` is set up after `agent` was created (so its creation is never seen) but before
    // `agents` is. Events for `agent` itself are held back, as if they had come before the watch.
    const home = join(root, "home", ".deepagents");
    await mkdir(home, { recursive: true });
    const racing = createConfigWatcherHub({
      watchFactory: counting.factory,
      dirWatchFactory: (dir, listener, onError) => {
        if (dir === home) mkdirSync(join(home, "agent"));
        const watcher = fsWatch(dir, { persistent: false }, (eventType, name) => {
          if (dir !== home) listener(eventType, name === null ? null : String(name));
        });
        watcher.on("error", onError);
        return watcher;
      },
    });
    try {
      const events = recorder();
      await racing.watch(join(root, "repo"), targets, events.listener).ready;
      const change = await eventually(events, async (round) => {
        await mkdir(join(home, "agent", "agents", `reviewer-${round}`), { recursive: true });
      });
      expect(change.labels).toEqual(["subagents"]);
    } finally {
      await racing.close();
    }
  });

  it("coalesces a burst into one change naming every label", async () => {
    const slowHub = createConfigWatcherHub({ watchFactory: counting.factory, debounceMs: 400 });
    try {
      const events = recorder();
      await slowHub.watch(join(root, "repo"), targets, events.listener).ready;
      const next = events.next();
      await mkdir(join(root, "repo", ".deepagents"), { recursive: true });
      await writeFile(join(root, "repo", ".deepagents", "hooks.json"), "{}");
      await writeFile(join(root, "repo", "AGENTS.md"), "x");
      const change = await next;
      expect(change.labels).toEqual(["hooks", "memory"]);
      expect(change.paths).toEqual(
        [join(root, "repo", ".deepagents", "hooks.json"), join(root, "repo", "AGENTS.md")].sort(),
      );
    } finally {
      await slowHub.close();
    }
  });

  it("keeps watching when the directory holding a target is deleted and recreated", async () => {
    const skillsOnly = [{ path: join(root, "repo", ".deepagents", "skills"), label: "skills", depth: 3 }];
    await mkdir(join(root, "repo", ".deepagents", "skills"), { recursive: true });
    const events = recorder();
    await hub.watch(join(root, "repo"), skillsOnly, events.listener).ready;
    const removed = events.next();
    await rm(join(root, "repo", ".deepagents"), { recursive: true });
    expect((await removed).labels).toEqual(["skills"]);
    const change = await eventually(events, async (round) => {
      await mkdir(join(root, "repo", ".deepagents", "skills", "x"), { recursive: true });
      await writeFile(join(root, "repo", ".deepagents", "skills", "x", "SKILL.md"), `round ${round}`);
    });
    expect(change.labels).toEqual(["skills"]);
  });

  it("re-attaches higher up when the directory it watched from is deleted", async () => {
    const skillsOnly = [{ path: join(root, "repo", ".deepagents", "skills"), label: "skills", depth: 3 }];
    await mkdir(join(root, "repo", ".deepagents", "skills"), { recursive: true });
    const events = recorder();
    await hub.watch(join(root, "repo"), skillsOnly, events.listener).ready;
    const removed = events.next();
    // The watch hangs on repo/ (two levels above the target); remove that too.
    await rm(join(root, "repo"), { recursive: true });
    expect((await removed).labels).toEqual(["skills"]);
    const change = await eventually(events, async (round) => {
      await mkdir(join(root, "repo", ".deepagents", "skills", "x"), { recursive: true });
      await writeFile(join(root, "repo", ".deepagents", "skills", "x", "SKILL.md"), `round ${round}`);
    });
    expect(change.labels).toEqual(["skills"]);
  });

  it("shares one watcher between sessions on the same root and closes it with the last one", async () => {
    const first = recorder();
    const second = recorder();
    const a = hub.watch(join(root, "repo"), targets, first.listener);
    const b = hub.watch(join(root, "repo"), targets, second.listener);
    await Promise.all([a.ready, b.ready]);
    expect(counting.stats.created).toBe(1);

    const both = Promise.all([first.next(), second.next()]);
    await writeFile(join(root, "repo", "AGENTS.md"), "shared");
    const [one, two] = await both;
    expect(one.labels).toEqual(["memory"]);
    expect(two.labels).toEqual(["memory"]);

    await a();
    expect(counting.stats.closed).toBe(0);
    const onlySecond = second.next();
    await writeFile(join(root, "repo", "AGENTS.md"), "again");
    await onlySecond;
    expect(first.changes).toHaveLength(1);

    await b();
    expect(counting.stats.closed).toBe(1);
    // A new session on the same root gets a fresh watcher.
    await hub.watch(join(root, "repo"), targets, recorder().listener).ready;
    expect(counting.stats.created).toBe(2);
  });

  it("uses separate watchers for different roots and closes them all", async () => {
    await Promise.all([hub.watch("root-a", targets, () => {}).ready, hub.watch("root-b", targets, () => {}).ready]);
    expect(counting.stats.created).toBe(2);
    await hub.close();
    expect(counting.stats.closed).toBe(2);
  });

  it("watches only the folders on the way to each target, never a whole tree above them", async () => {
    const opened: string[] = [];
    const planned = createConfigWatcherHub({
      watchFactory: counting.factory,
      dirWatchFactory: (dir) => {
        opened.push(dir);
        return { close: () => undefined };
      },
    });
    try {
      await planned.watch(join(root, "repo"), targets, () => {}).ready;
      // Nothing under repo/ exists but src/: repo/ itself (for .deepagents and AGENTS.md) and root/ (for home).
      expect(opened.sort()).toEqual([root, join(root, "repo")].sort());
    } finally {
      await planned.close();
    }
  });

  it("watches nothing again once closed, even when a replan was pending", async () => {
    const events = recorder();
    const subscription = hub.watch(join(root, "repo"), targets, events.listener);
    await subscription.ready;
    await mkdir(join(root, "repo", ".deepagents", "skills"), { recursive: true });
    await hub.close();
    const created = counting.stats.created;
    await writeFile(join(root, "repo", "AGENTS.md"), "after close");
    await hub.watch(join(root, "repo"), targets, events.listener).ready;
    // Not a wait for something: a quiet period in which a pending replan would create a watcher.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(counting.stats.created).toBe(created);
    expect(counting.stats.closed).toBe(created);
    expect(events.changes).toEqual([]);
  });

  it("survives a watcher factory that throws", async () => {
    const broken = createConfigWatcherHub({
      watchFactory: () => {
        throw new Error("inotify limit reached");
      },
    });
    const subscription = broken.watch("root", targets, () => {});
    await expect(subscription.ready).resolves.toBeUndefined();
    await subscription();
    await broken.close();
  });
});

describe("sessionWatchTargets", () => {
  it("covers every config source of a session, including plugins", () => {
    const user = userPaths("agent", "/h");
    const list = sessionWatchTargets({
      user,
      projectRoot: "/p",
      plugins: [
        {
          root: "/h/.deepagents/plugins/cache/m/p/1",
          skillSources: [{ dir: "/h/.deepagents/plugins/cache/m/p/1/skills" }],
        },
      ],
    });
    const byLabel = (label: string) =>
      list
        .filter((target) => target.label === label)
        .map((target) => target.path)
        .sort();
    expect(byLabel("skills")).toEqual(
      [
        "/h/.agents/skills",
        "/h/.deepagents/.state/skill_trust.json",
        "/h/.deepagents/agent/skills",
        "/h/.deepagents/plugins/cache/m/p/1/skills",
        "/p/.agents/skills",
        "/p/.deepagents/skills",
      ].sort(),
    );
    expect(byLabel("memory")).toEqual(
      ["/h/.deepagents/agent/AGENTS.md", "/p/.deepagents/AGENTS.md", "/p/AGENTS.md"].sort(),
    );
    expect(byLabel("hooks")).toEqual(["/h/.deepagents/hooks.json", "/p/.deepagents/hooks.json"]);
    expect(byLabel("mcp")).toEqual(["/h/.deepagents/.mcp.json", "/p/.deepagents/.mcp.json", "/p/.mcp.json"]);
    expect(byLabel("subagents")).toEqual(["/h/.deepagents/agent/agents", "/p/.deepagents/agents"]);
    expect(byLabel("plugins")).toEqual([
      "/h/.deepagents/.state/installed_plugins.json",
      "/h/.deepagents/.state/plugin_state.json",
      "/h/.deepagents/plugins/cache/m/p/1",
    ]);
    expect(byLabel("config")).toEqual(["/h/.deepagents/config.toml"]);
  });
});
