export { createConfigWatcherHub, type ConfigWatcherHub } from "./hub.js";
export { sessionWatchTargets } from "./targets.js";
export type {
  ConfigChange,
  ConfigChangeListener,
  FileWatcher,
  WatchFactory,
  WatchSubscription,
  WatchTarget,
} from "./types.js";
