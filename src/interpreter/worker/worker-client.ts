import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Logger } from "../../util/logger.js";
import { silentLogger } from "../../util/logger.js";
import type { EngineHost } from "../quickjs/eval-run.js";
import { DEFAULT_INTERPRETER_LIMITS } from "../quickjs/limits.js";
import type { EngineOutcome, Sandbox, SandboxFactory, SandboxOptions } from "../quickjs/sandbox.js";
import { type FromWorker, type ToWorker, WORKER_MARKER, type WorkerInit } from "./worker-protocol.js";
import { standaloneAsset } from "../../util/standalone.js";

export type WorkerSandboxFactoryOptions = {
  /** Receives the worker's log lines and crash reports. Default: silent. */
  logger?: Logger;
  /** The worker exits after this long without interpreters. Default 30 000 ms. */
  idleMs?: number;
};

/** Runs interpreters in a worker thread; one worker serves every interpreter this factory creates. */
export interface WorkerSandboxFactory {
  create: SandboxFactory;
  /** Starts the worker and loads QuickJS and the transform in it, so the first eval does not wait for them. */
  prewarm(limits?: { maxStackBytes: number }): Promise<void>;
  /** Terminates the worker; interpreters created so far become unusable. */
  shutdown(): Promise<void>;
}

/**
 * Interpreters off the main thread: a script spinning in a loop blocks only its worker, so the
 * agent keeps answering the editor, other sessions keep running, and cancel takes effect at once
 * (through a shared flag the interrupt handler reads). The worker also gets a stack large enough
 * that QuickJS's own stack limit, not the host's, ends deep recursion. A worker that dies takes
 * only its interpreters with it; the next eval starts a new one.
 */
export function createWorkerSandboxFactory(options: WorkerSandboxFactoryOptions = {}): WorkerSandboxFactory {
  const logger = options.logger ?? silentLogger;
  const idleMs = options.idleMs ?? 30_000;
  let connection: Promise<WorkerConnection> | null = null;

  const connect = (stackBytes: number): Promise<WorkerConnection> => {
    connection ??= WorkerConnection.start({ logger, idleMs, stackBytes, onGone: () => (connection = null) });
    return connection;
  };

  return {
    async create(sandboxOptions: SandboxOptions) {
      const worker = await connect(sandboxOptions.limits.maxStackBytes);
      return worker.createSandbox(sandboxOptions);
    },
    async prewarm(limits = DEFAULT_INTERPRETER_LIMITS) {
      (await connect(limits.maxStackBytes)).warm();
    },
    async shutdown() {
      const current = connection;
      connection = null;
      await (await current?.catch(() => null))?.terminate();
    },
  };
}

type RunEntry = {
  host: EngineHost;
  sandbox: WorkerSandbox;
  cancel: () => void;
  finish: (outcome: EngineOutcome) => void;
  fail: (error: Error) => void;
};

class WorkerConnection {
  private readonly creates = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private readonly runs = new Map<number, RunEntry>();
  private readonly sandboxes = new Set<WorkerSandbox>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private gone = false;

  private constructor(
    private readonly worker: Worker,
    private readonly cancelFlags: Int32Array,
    private readonly logger: Logger,
    private readonly idleMs: number,
    private readonly onGone: () => void,
  ) {}

  static async start(options: {
    logger: Logger;
    idleMs: number;
    stackBytes: number;
    onGone: () => void;
  }): Promise<WorkerConnection> {
    const { WORKER_ENTRY_URL } = await import("./worker-entry.js");
    const init: WorkerInit = { [WORKER_MARKER]: true, cancelBuffer: new SharedArrayBuffer(4) };
    // ~64x the QuickJS stack limit keeps WASM recursion inside QuickJS's check (measured: 256 KiB
    // of guest stack can need over 4 MiB of host stack while parsing deeply nested input).
    const stackSizeMb = Math.max(16, Math.ceil((options.stackBytes * 64) / (1024 * 1024)));
    const worker = spawn(WORKER_ENTRY_URL, init, stackSizeMb);
    const connection = new WorkerConnection(
      worker,
      new Int32Array(init.cancelBuffer),
      options.logger,
      options.idleMs,
      options.onGone,
    );
    worker.on("message", (message: FromWorker) => connection.receive(message));
    worker.on("error", (error) => connection.lost(`the interpreter worker failed: ${error.message}`));
    worker.on("exit", (code) => connection.lost(`the interpreter worker exited (code ${code})`));
    worker.unref();
    return connection;
  }

  async createSandbox(options: SandboxOptions): Promise<Sandbox> {
    if (this.gone) throw new Error("the interpreter worker is gone");
    const id = this.nextId++;
    const sandbox = new WorkerSandbox(this, id);
    await new Promise<void>((resolve, reject) => {
      this.creates.set(id, {
        resolve: () => this.settled(resolve),
        reject: (error) => this.settled(() => reject(error)),
      });
      this.worker.ref();
      this.post({
        t: "create",
        id,
        spec: {
          limits: options.limits,
          tools: (options.tools ?? []).map(([c, n]) => [c, n]),
          subagents: options.subagents ?? false,
        },
      });
    });
    this.sandboxes.add(sandbox);
    this.clearIdle();
    return sandbox;
  }

  run(sandbox: WorkerSandbox, code: string, host: EngineHost): Promise<EngineOutcome> {
    if (this.gone) return Promise.resolve(workerGoneOutcome("the interpreter worker is gone"));
    const runId = this.nextId++;
    return new Promise<EngineOutcome>((resolve, reject) => {
      const cancel = () => {
        Atomics.store(this.cancelFlags, 0, runId);
        this.post({ t: "cancel", runId });
      };
      if (host.isCancelled()) Atomics.store(this.cancelFlags, 0, runId);
      const unsubscribe = host.onCancel(cancel);
      const settle = () => {
        unsubscribe();
        this.runs.delete(runId);
        this.settled(() => undefined);
      };
      this.runs.set(runId, {
        host,
        sandbox,
        cancel,
        finish: (outcome) => {
          settle();
          resolve(outcome);
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      });
      this.worker.ref();
      this.post({ t: "run", id: sandbox.id, runId, code });
    });
  }

  warm(): void {
    if (!this.gone) this.post({ t: "warm" });
    if (this.sandboxes.size === 0 && this.runs.size === 0) this.scheduleIdle();
  }

  release(sandbox: WorkerSandbox): void {
    if (!this.sandboxes.delete(sandbox)) return;
    // A turn that ends while its eval still runs: stop the eval rather than wait for its timeout.
    for (const entry of this.runs.values()) if (entry.sandbox === sandbox) entry.cancel();
    if (!this.gone) this.post({ t: "dispose", id: sandbox.id });
    if (this.sandboxes.size === 0 && this.runs.size === 0) this.scheduleIdle();
  }

  async terminate(): Promise<void> {
    this.lost("the interpreter worker was shut down");
    await this.worker.terminate();
  }

  private receive(message: FromWorker): void {
    switch (message.t) {
      case "created":
      case "createFailed": {
        const pending = this.creates.get(message.id);
        if (!pending) return;
        this.creates.delete(message.id);
        if (message.t === "created") pending.resolve();
        else pending.reject(new Error(message.message));
        return;
      }
      case "call":
        this.answer(message);
        return;
      case "done": {
        const entry = this.runs.get(message.runId);
        if (entry && (message.outcome.status === "crashed" || message.outcome.lostState)) entry.sandbox.usable = false;
        entry?.finish(message.outcome);
        return;
      }
      case "runFailed":
        this.runs.get(message.runId)?.fail(new Error(message.message));
        return;
      case "log":
        this.logger[message.level](`interpreter worker: ${message.message}`, message.details);
        return;
    }
  }

  private answer(message: Extract<FromWorker, { t: "call" }>): void {
    const entry = this.runs.get(message.runId);
    const reply = (answer: { ok: true; text: string } | { ok: false; name: string; message: string }) => {
      if (!this.gone) this.post({ t: "reply", callId: message.callId, ...answer });
    };
    if (!entry) {
      reply({ ok: false, name: "Error", message: "the eval that made this call has already ended" });
      return;
    }
    const call =
      message.kind === "tool" ? entry.host.callTool(message.name, message.json) : entry.host.runTask(message.json);
    call.then(
      (text) => reply({ ok: true, text }),
      (error: unknown) =>
        reply(
          error instanceof Error
            ? { ok: false, name: error.name, message: error.message }
            : { ok: false, name: "Error", message: String(error) },
        ),
    );
  }

  /** The worker died or was terminated: its interpreters are lost, running evals end as crashes. */
  private lost(reason: string): void {
    if (this.gone) return;
    this.gone = true;
    this.clearIdle();
    this.onGone();
    this.logger.debug(reason);
    const creates = [...this.creates.values()];
    this.creates.clear();
    for (const pending of creates) pending.reject(new Error(reason));
    for (const entry of [...this.runs.values()]) entry.finish(workerGoneOutcome(reason));
    for (const sandbox of this.sandboxes) sandbox.usable = false;
    this.sandboxes.clear();
  }

  /** An idle worker must not keep the process alive; one with requests in flight must. */
  private settled(then: () => void): void {
    if (this.creates.size === 0 && this.runs.size === 0) this.worker.unref();
    then();
  }

  private post(message: ToWorker): void {
    this.worker.postMessage(message);
  }

  private scheduleIdle(): void {
    this.clearIdle();
    this.idleTimer = setTimeout(() => void this.terminate(), this.idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}

class WorkerSandbox implements Sandbox {
  usable = true;

  constructor(
    private readonly connection: WorkerConnection,
    readonly id: number,
  ) {}

  run(code: string, host: EngineHost): Promise<EngineOutcome> {
    if (!this.usable) return Promise.reject(new Error("this interpreter can no longer run code"));
    return this.connection.run(this, code, host);
  }

  dispose(): void {
    this.usable = false;
    this.connection.release(this);
  }
}

function spawn(entryUrl: string, init: WorkerInit, stackSizeMb: number): Worker {
  // The guest's memory is WASM memory outside the V8 heap; the heap cap is a safety net for the
  // worker's own bookkeeping (a worker over it is terminated, not the process).
  const resourceLimits = { stackSizeMb, maxOldGenerationSizeMb: 512 };
  // The standalone binary has no entry file on disk: it carries the worker's bundle as an asset.
  const bundled = standaloneAsset("interpreter-worker.cjs");
  if (bundled)
    return new Worker(Buffer.from(bundled).toString("utf8"), { eval: true, workerData: init, resourceLimits });
  if (!entryUrl.endsWith(".ts")) return new Worker(new URL(entryUrl), { workerData: init, resourceLimits });
  // Running from TypeScript sources (tests, `tsx` during development): the worker needs the same
  // loader. The built package ships the entry as a JavaScript chunk and never takes this path.
  const tsxApi = pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs"),
  ).href;
  const bootstrap = `(async () => { (await import(${JSON.stringify(tsxApi)})).register(); await import(${JSON.stringify(entryUrl)}); })();`;
  return new Worker(bootstrap, { eval: true, workerData: init, resourceLimits });
}

function workerGoneOutcome(reason: string): EngineOutcome {
  return {
    status: "crashed",
    output: `InternalError: the interpreter crashed (${reason})\nThe interpreter was reset: variables from earlier eval calls are gone.`,
    lostState: true,
  };
}
