import { constants } from "node:os";
import type { Duplex } from "node:stream";
import { HELPER_OPS } from "./helper-script.js";

// The agent's side of the helper protocol (see helper-script.ts): requests multiplexed by id over the
// container's attached stdin/stdout, and the commands the helper runs, whose output and exit arrive as
// events. When the stream ends (the engine or the connection went away, the container stopped) every
// pending request fails at once with the reason and every running command ends as lost.

export type HelperOp = keyof typeof HELPER_OPS;

/** An operation the helper refused, with the errno name it gave (ENOENT, EACCES, ...). */
export class HelperError extends Error {
  override name = "HelperError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The stream went away; `reason` says why in words a user can act on. */
export class ChannelLostError extends Error {
  override name = "ChannelLostError";
}

export type CommandExit = { code: number | null; signal: string | null } | { lost: string };

export type RunningCommand = {
  id: number;
  pid: number;
  exited: Promise<CommandExit>;
};

export type CommandFlags = { mergeStderr: boolean; killBackground: boolean };

export type HelperChannel = {
  request(op: HelperOp, args?: Array<string | Uint8Array>): Promise<Buffer[]>;
  /** Starts a command in its own session (process group = its pid); output arrives through `onData`. */
  exec(
    command: string,
    cwd: string,
    flags: CommandFlags,
    onData: (stream: 1 | 2, chunk: Buffer) => void,
  ): Promise<RunningCommand>;
  /** TERM to the command's whole tree now, KILL to what is left after `graceMs`. */
  kill(id: number, graceMs: number): Promise<void>;
  /** Resolves with the reason when the stream ends; never rejects. */
  readonly dropped: Promise<string>;
  readonly lost: string | undefined;
  /** Ends the stream: the helper stops its commands and exits, and the container stops. */
  close(): void;
};

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

function encodeRequest(id: number, op: number, args: Array<string | Uint8Array>): Buffer {
  const parts = args.map((a) => (typeof a === "string" ? Buffer.from(a, "utf8") : Buffer.from(a)));
  const size = 5 + parts.reduce((n, p) => n + 4 + p.length, 0);
  const frame = Buffer.allocUnsafe(4 + size);
  frame.writeUInt32BE(size, 0);
  frame.writeUInt32BE(id, 4);
  frame.writeUInt8(op, 8);
  let offset = 9;
  for (const part of parts) {
    frame.writeUInt32BE(part.length, offset);
    part.copy(frame, offset + 4);
    offset += 4 + part.length;
  }
  return frame;
}

function decodeFields(payload: Buffer, from: number): Buffer[] {
  const fields: Buffer[] = [];
  let offset = from;
  while (offset + 4 <= payload.length) {
    const length = payload.readUInt32BE(offset);
    fields.push(payload.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  return fields;
}

type Pending = { resolve(fields: Buffer[]): void; reject(error: Error): void };
type Command = { onData(stream: 1 | 2, chunk: Buffer): void; exit(result: CommandExit): void };

/**
 * Wraps the helper's stdin (`input`) and demultiplexed stdout (`output`). `describeLoss` turns the
 * end of the stream into the message callers see.
 */
export function createHelperChannel(options: {
  input: Duplex;
  output: NodeJS.ReadableStream;
  describeLoss: () => string;
  onClose?: () => void;
}): HelperChannel {
  const { input, output } = options;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const commands = new Map<number, Command>();
  let lost: string | undefined;
  let markDropped!: (reason: string) => void;
  const dropped = new Promise<string>((resolve) => (markDropped = resolve));

  const drop = (reason: string) => {
    if (lost) return;
    lost = reason;
    markDropped(reason);
    for (const p of pending.values()) p.reject(new ChannelLostError(reason));
    pending.clear();
    for (const c of commands.values()) c.exit({ lost: reason });
    commands.clear();
    options.onClose?.();
  };

  let buffered: Buffer = Buffer.alloc(0);
  output.on("data", (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const length = buffered.readUInt32BE(0);
      if (buffered.length < 4 + length) break;
      const payload = buffered.subarray(4, 4 + length);
      buffered = buffered.subarray(4 + length);
      dispatch(payload);
    }
  });
  const ended = () => drop(options.describeLoss());
  output.on("end", ended);
  output.on("close", ended);
  input.on("close", ended);
  input.on("error", ended);

  function dispatch(payload: Buffer): void {
    const id = payload.readUInt32BE(0);
    const kind = payload.readUInt8(4);
    const fields = decodeFields(payload, 5);
    if (kind === 0 || kind === 1) {
      const request = pending.get(id);
      if (!request) return;
      pending.delete(id);
      if (kind === 0) request.resolve(fields);
      else request.reject(new HelperError(fields[0]?.toString() ?? "EIO", fields[1]?.toString() ?? "failed"));
      return;
    }
    const command = commands.get(id);
    if (!command) return;
    if (kind === 2) command.onData(fields[0]?.toString() === "2" ? 2 : 1, fields[1] ?? Buffer.alloc(0));
    else if (kind === 3) {
      commands.delete(id);
      const code = fields[0]?.toString() ?? "";
      const signal = fields[1]?.toString() ?? "";
      command.exit({
        code: code === "" ? null : Number(code),
        signal: signal === "" ? null : `SIG${SIGNAL_NAMES.get(Number(signal))?.replace(/^SIG/, "") ?? signal}`,
      });
    }
  }

  function send(id: number, op: number, args: Array<string | Uint8Array>): Promise<Buffer[]> {
    if (lost) return Promise.reject(new ChannelLostError(lost));
    return new Promise<Buffer[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      input.write(encodeRequest(id, op, args));
    });
  }

  return {
    request: (op, args = []) => send(nextId++, HELPER_OPS[op], args),
    async exec(command, cwd, flags, onData) {
      const id = nextId++;
      let finish!: (result: CommandExit) => void;
      const exited = new Promise<CommandExit>((resolve) => (finish = resolve));
      commands.set(id, { onData, exit: finish });
      const args = [command, cwd, String((flags.mergeStderr ? 1 : 0) | (flags.killBackground ? 2 : 0))];
      try {
        const [pid] = await send(id, HELPER_OPS.exec, args);
        return { id, pid: Number(pid?.toString()), exited };
      } catch (error) {
        commands.delete(id);
        throw error;
      }
    },
    async kill(id, graceMs) {
      await send(nextId++, HELPER_OPS.kill, [String(id), String(graceMs)]);
    },
    dropped,
    get lost() {
      return lost;
    },
    close() {
      input.end();
      input.destroy();
      drop("the workspace was closed");
    },
  };
}
