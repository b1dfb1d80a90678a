export { createConfigWatcherHub, type ConfigWatcherHub, type ConfigWatcherHubOptions } from "./hub.js";
export { sessionWatchTargets, type SessionWatchTargetsOptions } from "./targets.js";
export type {
  ConfigChange,
  ConfigChangeListener,
  FileWatcher,
  FileWatcherOptions,
  WatchFactory,
  WatchSubscription,
  WatchTarget,
} from "./types.js";
