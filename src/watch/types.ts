/** One file or directory whose changes require a /reload, whether or not it exists yet. */
export type WatchTarget = {
  path: string;
  /** What to re-read: "skills", "memory", "hooks", "mcp", "subagents", "plugins", "config". */
  label: string;
  /** Directory levels below `path` that count. Default 4. */
  depth?: number;
};

/** One coalesced burst of changes. */
export type ConfigChange = {
  /** Sorted, unique. */
  labels: string[];
  /** Sorted, unique absolute paths that changed. */
  paths: string[];
};

export type ConfigChangeListener = (change: ConfigChange) => void;

/** Calling it unsubscribes; `ready` settles once the initial scan of the watched paths is done. */
export type WatchSubscription = (() => Promise<void>) & { ready: Promise<void> };

/** The part of a chokidar FSWatcher the hub uses; tests inject their own. */
export type FileWatcher = {
  on(event: "all", listener: (eventName: string, path: string) => void): unknown;
  on(event: "ready", listener: () => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  add(paths: string | readonly string[]): unknown;
  close(): Promise<void>;
  getWatched?(): Record<string, string[]>;
};

export type FileWatcherOptions = {
  ignoreInitial: boolean;
  /** false: watching never keeps the process alive (it exits when stdin closes). */
  persistent: boolean;
  followSymlinks: boolean;
  /** Directory levels below each watched path to descend into. */
  depth?: number;
  /** Path filter: true means "do not watch or report". */
  ignored: (path: string) => boolean;
};

export type WatchFactory = (paths: string[], options: FileWatcherOptions) => FileWatcher;
