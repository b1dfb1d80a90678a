import { isMainThread, type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { Logger } from "../../util/logger.js";
import type { EngineHost } from "../quickjs/eval-run.js";
import type { Sandbox } from "../quickjs/sandbox.js";
import { type FromWorker, isWorkerInit, type ToWorker, type WorkerInit } from "./worker-protocol.js";

// Entry module of the interpreter worker. The main thread imports it only for its URL; inside a
// worker started with the marker it serves sandboxes. Guest code runs here, so a busy script
// never blocks the main thread (ACP messages, other sessions, cancel).

export const WORKER_ENTRY_URL = import.meta.url;

if (!isMainThread && parentPort && isWorkerInit(workerData)) serve(parentPort, workerData);

function serve(port: MessagePort, init: WorkerInit): void {
  const cancelFlags = new Int32Array(init.cancelBuffer);
  const sandboxes = new Map<number, Promise<Sandbox>>();
  const calls = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  const cancelListeners = new Map<number, Set<() => void>>();
  let nextCallId = 1;
  const post = (message: FromWorker) => port.postMessage(message);
  const logger = workerLogger(post);
  const engine = import("../quickjs/sandbox.js");

  const request = (runId: number, kind: "tool" | "task", name: string, json: string) =>
    new Promise<string>((resolve, reject) => {
      const callId = nextCallId++;
      calls.set(callId, { resolve, reject });
      post({ t: "call", runId, callId, kind, name, json });
    });

  const hostFor = (runId: number): EngineHost => ({
    callTool: (name, json) => request(runId, "tool", name, json),
    runTask: (json) => request(runId, "task", "", json),
    isCancelled: () => Atomics.load(cancelFlags, 0) === runId,
    onCancel(listener) {
      const listeners = cancelListeners.get(runId) ?? new Set();
      listeners.add(listener);
      cancelListeners.set(runId, listeners);
      return () => listeners.delete(listener);
    },
  });

  const run = async (id: number, runId: number, code: string) => {
    try {
      const sandbox = await sandboxes.get(id);
      if (!sandbox) throw new Error(`no interpreter ${id} in this worker`);
      post({ t: "done", runId, outcome: await sandbox.run(code, hostFor(runId)) });
    } catch (error) {
      post({ t: "runFailed", runId, message: error instanceof Error ? error.message : String(error) });
    } finally {
      cancelListeners.delete(runId);
    }
  };

  port.on("message", (message: ToWorker) => {
    switch (message.t) {
      case "warm":
        void import("../quickjs/warm-up.js")
          .then(({ warmUp }) => warmUp())
          .catch((error: unknown) => logger.debug("warm-up failed", error));
        return;
      case "create": {
        const created = engine.then(({ createSandbox }) => createSandbox({ ...message.spec, logger }));
        sandboxes.set(message.id, created);
        created.then(
          () => post({ t: "created", id: message.id }),
          (error: unknown) => {
            sandboxes.delete(message.id);
            post({
              t: "createFailed",
              id: message.id,
              message: error instanceof Error ? error.message : String(error),
            });
          },
        );
        return;
      }
      case "run":
        void run(message.id, message.runId, message.code);
        return;
      case "reply": {
        const call = calls.get(message.callId);
        calls.delete(message.callId);
        if (!call) return;
        if (message.ok) call.resolve(message.text);
        else call.reject(Object.assign(new Error(message.message), { name: message.name }));
        return;
      }
      case "cancel":
        for (const listener of cancelListeners.get(message.runId) ?? []) listener();
        return;
      case "dispose": {
        const sandbox = sandboxes.get(message.id);
        sandboxes.delete(message.id);
        void sandbox?.then((s) => s.dispose()).catch(() => undefined);
        return;
      }
    }
  });
}

function workerLogger(post: (message: FromWorker) => void): Logger {
  const log = (level: "debug" | "info" | "warn" | "error") => (message: string, details?: unknown) =>
    post({ t: "log", level, message, details: details === undefined ? undefined : describe(details) });
  const logger: Logger = {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    child: () => logger,
  };
  return logger;
}

function describe(details: unknown): string {
  if (details instanceof Error) return details.stack ?? details.message;
  return typeof details === "string" ? details : (JSON.stringify(details) ?? String(details));
}
