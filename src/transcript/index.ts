// The transcript room's public entry: what a session writes down (records), how it is written
// (recorder), read back (restore), undone (rewind) and kept (the JSONL store).
export { createRecorder, type Recorder } from "./recorder.js";
export {
  restoreSession,
  type ReplayItem,
  type RestoredSession,
  type SessionRecord,
  type ToolCallRecord,
} from "./restore.js";
export { fileChanges, restoreFiles, type RewindReport } from "./rewind.js";
export { messageFingerprint, resolveRewindPoints, type HistoryPoint } from "./history-point.js";
export { describeRewindProblem, findCut, type RewindProblem, type RewindTarget } from "./rewind-cut.js";
export * from "./store/index.js";
export { saveTurnEnd, STATE_ATTACHMENT } from "./turn-end.js";
export { createJournal, type Journal, type RewindDone } from "./journal.js";
