import { watch as fsWatch } from "node:fs";
import { basename, join, resolve } from "node:path";
import { silentLogger, type Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import { fsProbe, planWatches, type PlanProbe } from "./plan.js";
import { affectedTargets, isRelevant, normalizeTargets, type NormalizedTarget } from "./relevance.js";
import type { ConfigChangeListener, FileWatcher, WatchFactory, WatchSubscription, WatchTarget } from "./types.js";
import { isBelow, isWithin } from "../util/path-within.js";

/** Watches one directory without recursion; `listener` gets the name of the entry that changed. */
export type DirWatchFactory = (
  dir: string,
  listener: (eventType: string, name: string | null) => void,
  onError: (error: unknown) => void,
) => { close(): void };

export type ConfigWatcherHubOptions = {
  /** Default silentLogger. */
  logger?: Logger;
  /** Creates the watcher of existing target directories. Default chokidar's `watch`, imported on first use. */
  watchFactory?: WatchFactory;
  /** Watches the directories above targets. Default fs.watch (inotify), never persistent. */
  dirWatchFactory?: DirWatchFactory;
  /** Quiet time that ends a burst of events. Default 100 ms. */
  debounceMs?: number;
  /** Default: the real file system. */
  probe?: PlanProbe;
};

export type ConfigWatcherHub = {
  /**
   * Watches `targets` for one session. Sessions on the same `key` (project root) share one
   * watcher; it closes when the last of them unsubscribes.
   */
  watch(key: string, targets: readonly WatchTarget[], listener: ConfigChangeListener): WatchSubscription;
  /** Closes every watcher; later events are dropped and nothing is watched again. */
  close(): Promise<void>;
};

type Subscriber = {
  targets: NormalizedTarget[];
  listener: ConfigChangeListener;
  labels: Set<string>;
  paths: Set<string>;
  timer?: NodeJS.Timeout;
};

type DirWatch = { names: Set<string>; handle: { close(): void } };

type Entry = {
  key: string;
  subscribers: Set<Subscriber>;
  /** Target directories the tree watcher has been given. */
  trees: Set<string>;
  dirs: Map<string, DirWatch>;
  tree: Promise<FileWatcher | undefined>;
  ready: Promise<void>;
  replanTimer?: NodeJS.Timeout;
  closed: boolean;
};

const defaultDirWatch: DirWatchFactory = (dir, listener, onError) => {
  const watcher = fsWatch(dir, { persistent: false }, (eventType, name) =>
    listener(eventType, name === null ? null : String(name)),
  );
  watcher.on("error", onError);
  return watcher;
};

export function createConfigWatcherHub(options: ConfigWatcherHubOptions = {}): ConfigWatcherHub {
  const logger = options.logger ?? silentLogger;
  const debounceMs = options.debounceMs ?? 100;
  const probe = options.probe ?? fsProbe;
  const dirWatch = options.dirWatchFactory ?? defaultDirWatch;
  const entries = new Map<string, Entry>();
  let closed = false;

  const factory = async (): Promise<WatchFactory> => {
    if (options.watchFactory) return options.watchFactory;
    const chokidar = await import("chokidar");
    return (paths, watchOptions) => chokidar.watch(paths, watchOptions) as unknown as FileWatcher;
  };

  const allTargets = (entry: Entry) => [...entry.subscribers].flatMap((subscriber) => subscriber.targets);

  function flush(subscriber: Subscriber): void {
    subscriber.timer = undefined;
    if (subscriber.labels.size === 0) return;
    const change = { labels: [...subscriber.labels].sort(), paths: [...subscriber.paths].sort() };
    subscriber.labels.clear();
    subscriber.paths.clear();
    try {
      subscriber.listener(change);
    } catch (error) {
      logger.warn(`config change listener failed: ${errorMessage(error)}`);
    }
  }

  function report(entry: Entry, eventName: string, path: string): void {
    if (entry.closed) return;
    for (const subscriber of entry.subscribers) {
      const hit = affectedTargets(eventName, path, subscriber.targets);
      if (hit.length === 0) continue;
      for (const target of hit) subscriber.labels.add(target.label);
      subscriber.paths.add(path);
      if (subscriber.timer) clearTimeout(subscriber.timer);
      subscriber.timer = setTimeout(() => flush(subscriber), debounceMs);
    }
  }

  /** Something appeared or vanished on the way to a target: work out again what to watch. */
  function scheduleReplan(entry: Entry): void {
    if (entry.closed || entry.replanTimer) return;
    entry.replanTimer = setTimeout(
      () => void replan(entry).catch((error) => logger.warn(`config watcher (${entry.key}): ${errorMessage(error)}`)),
      0,
    );
  }

  function onTreeEvent(entry: Entry, eventName: string, rawPath: string): void {
    const path = resolve(rawPath);
    report(entry, eventName, path);
    if (eventName === "unlinkDir" && [...entry.trees].some((tree) => isWithin(tree, path))) scheduleReplan(entry);
  }

  function onDirEvent(entry: Entry, dir: string, eventType: string, name: string | null): void {
    const names = entry.dirs.get(dir)?.names;
    if (entry.closed || !names) return;
    if (name === null) return scheduleReplan(entry);
    // Linux reports the watched directory's own removal under its own name; the watch is dead then.
    if (name === basename(dir) && !probe.isDirectory(dir)) return scheduleReplan(entry);
    if (!names.has(name)) return;
    const path = join(dir, name);
    if (probe.exists(path)) reportExisting(entry, path);
    // A folder on the way removed counts for every target below it.
    else report(entry, "unlinkDir", path);
    if (eventType === "rename") scheduleReplan(entry);
  }

  /** Whether `path` is an existing folder strictly above some target. */
  function isOnTheWay(entry: Entry, path: string): boolean {
    return probe.isDirectory(path) && allTargets(entry).some((target) => isBelow(target.path, path));
  }

  /** Reports the targets at or below `path` that exist now (they may have appeared before any watch reached them). */
  function reportExisting(entry: Entry, path: string): void {
    for (const target of allTargets(entry)) {
      if (isWithin(target.path, path) && probe.exists(target.path)) report(entry, "add", target.path);
    }
  }

  /** Brings the watches in line with what exists now; returns target directories newly watched. */
  async function replan(entry: Entry, initial = false): Promise<string[]> {
    entry.replanTimer = undefined;
    if (entry.closed) return [];
    const plan = planWatches(allTargets(entry), probe);
    for (const [dir, watch] of entry.dirs) {
      if (plan.parents.has(dir)) continue;
      watch.handle.close();
      entry.dirs.delete(dir);
    }
    for (const [dir, names] of plan.parents) {
      const existing = entry.dirs.get(dir);
      if (existing) {
        existing.names = names;
        continue;
      }
      try {
        const handle = dirWatch(
          dir,
          (eventType, name) => onDirEvent(entry, dir, eventType, name),
          () => {
            entry.dirs.get(dir)?.handle.close();
            entry.dirs.delete(dir);
            scheduleReplan(entry);
          },
        );
        entry.dirs.set(dir, { names, handle });
        for (const name of names) {
          const path = join(dir, name);
          if (!initial) reportExisting(entry, path);
          // A folder on the way that appeared between planning and watching: its creation was never
          // seen, so nothing would ever descend into it. Plan again (each replan goes deeper).
          if (isOnTheWay(entry, path)) scheduleReplan(entry);
        }
      } catch (error) {
        // Gone between planning and watching: plan again from what exists now.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") scheduleReplan(entry);
        else logger.debug(`cannot watch ${dir}: ${errorMessage(error)}`);
      }
    }
    for (const tree of [...entry.trees]) if (!plan.trees.has(tree)) entry.trees.delete(tree);
    const fresh = [...plan.trees].filter((tree) => !entry.trees.has(tree));
    if (fresh.length === 0) return [];
    const watcher = await entry.tree;
    // chokidar re-opens a closed watcher on add(): never add to one that was closed meanwhile.
    if (entry.closed || !watcher) return [];
    const toAdd = fresh.filter((tree) => !entry.trees.has(tree));
    if (toAdd.length === 0) return fresh;
    for (const tree of toAdd) entry.trees.add(tree);
    if (!initial) for (const tree of toAdd) reportExisting(entry, tree);
    try {
      watcher.add(toAdd);
    } catch (error) {
      logger.warn(`cannot watch ${toAdd.join(", ")}: ${errorMessage(error)}`);
    }
    return fresh;
  }

  function createEntry(key: string): Entry {
    const entry: Entry = {
      key,
      subscribers: new Set(),
      trees: new Set(),
      dirs: new Map(),
      tree: Promise.resolve(undefined),
      ready: Promise.resolve(),
      closed: false,
    };
    let markReady: () => void = () => {};
    entry.ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
    entry.tree = (async () => {
      try {
        const create = await factory();
        if (entry.closed) return undefined;
        const initial = planWatches(allTargets(entry), probe).trees;
        for (const tree of initial) entry.trees.add(tree);
        const depth = Math.max(0, ...allTargets(entry).map((target) => target.depth));
        const watcher = create([...initial], {
          ignoreInitial: true,
          persistent: false,
          followSymlinks: true,
          depth,
          ignored: (path) => !isRelevant(resolve(path), allTargets(entry)),
        });
        watcher.on("all", (eventName, path) => onTreeEvent(entry, eventName, path));
        watcher.on("ready", markReady);
        if (initial.size === 0) markReady();
        watcher.on("error", (error) => logger.warn(`config watcher (${key}): ${errorMessage(error)}`));
        return watcher;
      } catch (error) {
        // Without a watcher the session still works; it just is not told about edits.
        logger.warn(`config watcher (${key}) unavailable: ${errorMessage(error)}`);
        markReady();
        return undefined;
      }
    })();
    return entry;
  }

  async function closeEntry(entry: Entry): Promise<void> {
    entry.closed = true;
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    if (entry.replanTimer) clearTimeout(entry.replanTimer);
    for (const subscriber of entry.subscribers) if (subscriber.timer) clearTimeout(subscriber.timer);
    entry.subscribers.clear();
    for (const watch of entry.dirs.values()) watch.handle.close();
    entry.dirs.clear();
    const watcher = await entry.tree.catch(() => undefined);
    await watcher
      ?.close()
      .catch((error: unknown) => logger.warn(`closing config watcher (${entry.key}): ${errorMessage(error)}`));
  }

  return {
    watch(key, rawTargets, listener) {
      const targets = normalizeTargets(rawTargets);
      const subscriber: Subscriber = { targets, listener, labels: new Set(), paths: new Set() };
      let ready: Promise<void> = Promise.resolve();
      let entry = entries.get(key);
      if (!closed) {
        const fresh = !entry;
        if (!entry) entries.set(key, (entry = createEntry(key)));
        const shared = entry;
        shared.subscribers.add(subscriber);
        const replanned = fresh
          ? replan(shared, true).then(() => undefined)
          : shared.ready.then(async () => waitWatched(await shared.tree, await replan(shared, true)));
        ready = Promise.all([shared.ready, replanned]).then(() => undefined);
      }
      const unsubscribe = async () => {
        if (subscriber.timer) clearTimeout(subscriber.timer);
        const current = entries.get(key);
        if (!current || !current.subscribers.delete(subscriber)) return;
        if (current.subscribers.size === 0) await closeEntry(current);
      };
      return Object.assign(unsubscribe, { ready });
    },
    async close() {
      closed = true;
      await Promise.all([...entries.values()].map((entry) => closeEntry(entry)));
    },
  };
}

/** Directories added to a running watcher are scanned asynchronously; wait until they show as watched. */
async function waitWatched(watcher: FileWatcher | undefined, dirs: readonly string[]): Promise<void> {
  if (!watcher?.getWatched || dirs.length === 0) return;
  for (let attempt = 0; attempt < 200; attempt++) {
    const watched = watcher.getWatched();
    if (dirs.every((dir) => dir in watched)) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
}
