import { existsSync } from "node:fs";
import { resolve, sep } from "node:path";
import { silentLogger, type Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import { affectedTargets, anchorFor, isRelevant, normalizeTargets, type NormalizedTarget } from "./relevance.js";
import type { ConfigChangeListener, FileWatcher, WatchFactory, WatchSubscription, WatchTarget } from "./types.js";

export type ConfigWatcherHubOptions = {
  /** Default silentLogger. */
  logger?: Logger;
  /** Creates the underlying watcher. Default chokidar's `watch`, imported on first use. */
  watchFactory?: WatchFactory;
  /** Quiet time that ends a burst of events. Default 100 ms. */
  debounceMs?: number;
  /** Default fs.existsSync. */
  exists?: (path: string) => boolean;
};

export type ConfigWatcherHub = {
  /**
   * Watches `targets` for one session. Sessions on the same `key` (project root) share one
   * watcher; it closes when the last of them unsubscribes.
   */
  watch(key: string, targets: readonly WatchTarget[], listener: ConfigChangeListener): WatchSubscription;
  /** Closes every watcher; later events are dropped. */
  close(): Promise<void>;
};

type Subscriber = {
  targets: NormalizedTarget[];
  listener: ConfigChangeListener;
  labels: Set<string>;
  paths: Set<string>;
  timer?: NodeJS.Timeout;
};

type Entry = {
  subscribers: Set<Subscriber>;
  anchors: Set<string>;
  watcher: Promise<FileWatcher | undefined>;
  ready: Promise<void>;
  reanchorTimer?: NodeJS.Timeout;
};

export function createConfigWatcherHub(options: ConfigWatcherHubOptions = {}): ConfigWatcherHub {
  const logger = options.logger ?? silentLogger;
  const debounceMs = options.debounceMs ?? 100;
  const exists = options.exists ?? existsSync;
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

  function onEvent(entry: Entry, eventName: string, rawPath: string): void {
    const path = resolve(rawPath);
    for (const subscriber of entry.subscribers) {
      const hit = affectedTargets(eventName, path, subscriber.targets);
      if (hit.length === 0) continue;
      for (const target of hit) subscriber.labels.add(target.label);
      subscriber.paths.add(path);
      if (subscriber.timer) clearTimeout(subscriber.timer);
      subscriber.timer = setTimeout(() => flush(subscriber), debounceMs);
    }
    // chokidar drops a deleted anchor for good, even if it is recreated at once; forget it and
    // re-attach to whatever is the nearest existing ancestor once the burst is over.
    if (eventName === "unlinkDir") {
      for (const anchor of [...entry.anchors]) if (anchor === path || anchor.startsWith(path + sep)) entry.anchors.delete(anchor);
      if (!entry.reanchorTimer) entry.reanchorTimer = setTimeout(() => void reanchor(entry), debounceMs);
    }
  }

  async function reanchor(entry: Entry): Promise<void> {
    entry.reanchorTimer = undefined;
    await addAnchors(entry, allTargets(entry));
  }

  /** Adds anchors the targets need that are not attached yet; returns them. */
  async function addAnchors(entry: Entry, targets: readonly NormalizedTarget[]): Promise<string[]> {
    const fresh = [...new Set(targets.map((target) => anchorFor(target, exists)))].filter((anchor) => !entry.anchors.has(anchor));
    if (fresh.length === 0) return [];
    for (const anchor of fresh) entry.anchors.add(anchor);
    const watcher = await entry.watcher;
    try {
      watcher?.add(fresh);
    } catch (error) {
      logger.warn(`cannot watch ${fresh.join(", ")}: ${errorMessage(error)}`);
    }
    return fresh;
  }

  function createEntry(key: string, targets: NormalizedTarget[]): Entry {
    const entry: Entry = { subscribers: new Set(), anchors: new Set(), watcher: Promise.resolve(undefined), ready: Promise.resolve() };
    const anchors = [...new Set(targets.map((target) => anchorFor(target, exists)))];
    for (const anchor of anchors) entry.anchors.add(anchor);
    let markReady: () => void = () => {};
    entry.ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
    entry.watcher = (async () => {
      try {
        const create = await factory();
        const watcher = create(anchors, {
          ignoreInitial: true,
          persistent: false,
          followSymlinks: true,
          ignored: (path) => !isRelevant(resolve(path), allTargets(entry)),
        });
        watcher.on("all", (eventName, path) => onEvent(entry, eventName, path));
        watcher.on("ready", markReady);
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

  async function closeEntry(key: string, entry: Entry): Promise<void> {
    entries.delete(key);
    if (entry.reanchorTimer) clearTimeout(entry.reanchorTimer);
    for (const subscriber of entry.subscribers) if (subscriber.timer) clearTimeout(subscriber.timer);
    entry.subscribers.clear();
    const watcher = await entry.watcher.catch(() => undefined);
    await watcher?.close().catch((error: unknown) => logger.warn(`closing config watcher (${key}): ${errorMessage(error)}`));
  }

  return {
    watch(key, rawTargets, listener) {
      const targets = normalizeTargets(rawTargets);
      const subscriber: Subscriber = { targets, listener, labels: new Set(), paths: new Set() };
      let ready: Promise<void>;
      let entry = entries.get(key);
      if (closed) {
        ready = Promise.resolve();
      } else if (!entry) {
        entry = createEntry(key, targets);
        entry.subscribers.add(subscriber);
        entries.set(key, entry);
        ready = entry.ready;
      } else {
        const shared = entry;
        shared.subscribers.add(subscriber);
        ready = shared.ready.then(async () => waitWatched(await shared.watcher, await addAnchors(shared, targets)));
      }
      const unsubscribe = async () => {
        if (subscriber.timer) clearTimeout(subscriber.timer);
        const current = entries.get(key);
        if (!current || !current.subscribers.delete(subscriber)) return;
        if (current.subscribers.size === 0) await closeEntry(key, current);
      };
      return Object.assign(unsubscribe, { ready });
    },
    async close() {
      closed = true;
      await Promise.all([...entries].map(([key, entry]) => closeEntry(key, entry)));
    },
  };
}

/** Anchors added to a running watcher are scanned asynchronously; wait until they show as watched. */
async function waitWatched(watcher: FileWatcher | undefined, anchors: readonly string[]): Promise<void> {
  if (!watcher?.getWatched || anchors.length === 0) return;
  for (let attempt = 0; attempt < 200; attempt++) {
    const watched = watcher.getWatched();
    if (anchors.every((anchor) => anchor in watched)) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
}
