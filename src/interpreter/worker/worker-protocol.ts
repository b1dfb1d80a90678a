import type { InterpreterLimits } from "../quickjs/limits.js";
import type { EngineOutcome } from "../quickjs/sandbox.js";

// Messages between the main thread and the interpreter worker. Tools, the ToolContext and the
// logger stay on the main thread; the worker asks for every tool call by name with JSON input.

/** `workerData` marker, so the entry module only serves when it was started as this worker. */
export const WORKER_MARKER = "deepAcpInterpreterWorker";

export type WorkerInit = {
  [WORKER_MARKER]: true;
  /** Int32Array[0] = id of the run to cancel; read by the interrupt handler while guest code runs. */
  cancelBuffer: SharedArrayBuffer;
};

export type WorkerSandboxSpec = {
  limits: InterpreterLimits;
  tools: Array<[string, string]>;
  subagents: boolean;
};

export type ToWorker =
  | { t: "warm" }
  | { t: "create"; id: number; spec: WorkerSandboxSpec }
  | { t: "run"; id: number; runId: number; code: string }
  | { t: "reply"; callId: number; ok: true; text: string }
  | { t: "reply"; callId: number; ok: false; name: string; message: string }
  | { t: "cancel"; runId: number }
  | { t: "dispose"; id: number };

export type FromWorker =
  | { t: "created"; id: number }
  | { t: "createFailed"; id: number; message: string }
  | { t: "call"; runId: number; callId: number; kind: "tool" | "task"; name: string; json: string }
  | { t: "done"; runId: number; outcome: EngineOutcome }
  | { t: "runFailed"; runId: number; message: string }
  | { t: "log"; level: "debug" | "info" | "warn" | "error"; message: string; details?: string };

export function isWorkerInit(value: unknown): value is WorkerInit {
  return value !== null && typeof value === "object" && (value as Record<string, unknown>)[WORKER_MARKER] === true;
}
