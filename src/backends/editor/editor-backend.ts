import { mkdir as fsMkdir } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { errorMessage } from "../../util/errors.js";
import { fileNotFoundMessage, performStringReplacement } from "../files/edit-semantics.js";
import type { EditorBridge, EditorTerminal, EditorTerminalExit } from "./editor-bridge.js";
import { windowLines } from "../files/line-window.js";
import { defaultShell, failedToStart } from "../local/local-shell.js";
import { getMimeType, isTextMimeType, sniffFileIsBinary, TEXT_PLAIN } from "../files/mime.js";
import { approvedRealPath } from "../paths/approved-targets.js";
import { isWithin } from "../../util/path-within.js";
import { realRoots, resolveRealTarget } from "../paths/real-path.js";
import {
  isSandboxBackend,
  type BackendProtocol,
  type EditResult,
  type ExecuteOptions,
  type ExecuteResponse,
  type ReadRawResult,
  type ReadResult,
  type SandboxBackendProtocol,
  type WriteResult,
} from "../protocol.js";
import type { ApprovedTargets } from "../paths/approved-targets.js";
import { backendForCall } from "../paths/approved-targets.js";

// The editor as the file system for the session roots: reads see unsaved buffers and writes go
// through the editor (which can show them for review). Paths outside the roots, binary files and
// listing/searching/deleting use the local fallback backend. Commands run in editor terminals (the
// user watches them live, so `onOutput` is not called; `onTerminal` gets the terminal id) when the
// editor offers terminals, else on the fallback executor. An editor that offers terminals and then
// refuses or fails one ends the call there (never the fallback).

/** How an editor words "the user said no" to terminal/create (acpx: "Permission denied for terminal/create"). */
const REFUSAL = /denied|refus|reject|declin|not allowed|forbidden|cancel/i;

export type EditorBackendOptions = {
  bridge: EditorBridge;
  /** Session roots (absolute). Relative paths resolve against the first. */
  roots: readonly string[];
  /** Local backend for everything the editor does not handle; its `execute` is used when the editor has no terminals. */
  fallback: BackendProtocol;
  /**
   * Default true: run commands in editor terminals when the editor offers them. Pass false when
   * commands must stay in the fallback's sandbox (editor terminals are not sandboxed).
   */
  useEditorTerminals?: boolean;
  /** Default /bin/bash when present, else /bin/sh; commands run as `<shell> -c <command>`. */
  shell?: string;
  /** Default 120000. */
  defaultTimeoutMs?: number;
  /** Default 30000; passed to the editor as the terminal's outputByteLimit. */
  maxOutputChars?: number;
  /** Default 2000: how long to wait for the editor after killing a command. */
  killGraceMs?: number;
  /** Extra environment for terminal commands. Default none. */
  terminalEnv?: Record<string, string>;
  /** Default sniffFileIsBinary (extension, then NUL bytes on disk). */
  isBinary?: (path: string) => Promise<boolean | undefined>;
  /** Default node:fs/promises mkdir; parents are created before the editor writes a new file. */
  mkdir?: (path: string, options: { recursive: true }) => Promise<unknown>;
  /** Default `editor:<roots[0]>`. */
  id?: string;
  /** Set by forCall: a gated call's approved real paths; a path leading elsewhere is not sent to the editor. */
  approved?: ApprovedTargets;
};

export interface EditorBackend extends BackendProtocol {
  /** Whether `execute` is available (editor terminals or a sandbox fallback); then it is a SandboxBackendProtocol. */
  readonly canExecute: boolean;
}

export function createEditorBackend(options: EditorBackendOptions): EditorBackend {
  const { bridge, fallback } = options;
  const roots = options.roots.map((r) => resolve(r));
  const isBinary = options.isBinary ?? sniffFileIsBinary;
  const mkdir = options.mkdir ?? ((path: string, o: { recursive: true }) => fsMkdir(path, o));
  const absolute = (path: string) => (isAbsolute(path) ? resolve(path) : resolve(roots[0] ?? "/", path));
  let realRootsOnce: Promise<string[]> | undefined;
  /**
   * The path the editor's fs/* is given: the real path, and only when it is inside the (real)
   * roots; a link leading out, or one changed since the gate decided, stays with the local backend
   * (which opens exactly the approved file or refuses).
   */
  async function editorPath(abs: string): Promise<string | undefined> {
    const target = await resolveRealTarget(abs);
    if (target.unresolved) return undefined;
    const approved = approvedRealPath(options.approved, abs);
    if (approved !== undefined && approved !== target.real) return undefined;
    const real = await (realRootsOnce ??= realRoots(roots));
    return real.some((root) => isWithin(target.real, root)) ? target.real : undefined;
  }
  const mimeOf = (abs: string) => getMimeType(abs) ?? TEXT_PLAIN;

  /** Whether a read of `path` goes to the editor: inside the roots, text, and the editor can read. */
  async function editorReads(real: string | undefined): Promise<boolean> {
    if (!bridge.canReadFiles || real === undefined) return false;
    return (await isBinary(real)) !== true;
  }

  async function editorText(abs: string): Promise<string | undefined> {
    try {
      return await bridge.readTextFile(abs);
    } catch {
      return undefined;
    }
  }

  async function read(filePath: string, offset?: number, limit?: number): Promise<ReadResult> {
    const abs = absolute(filePath);
    const real = await editorPath(abs);
    if (!(await editorReads(real))) return fallback.read(abs, offset, limit);
    const text = await editorText(real!);
    if (text === undefined) return fallback.read(abs, offset, limit);
    const window = windowLines(text, offset, limit);
    if (window.error !== undefined) return { error: window.error };
    return { content: window.content, mimeType: mimeOf(abs), totalLines: window.totalLines };
  }

  async function readRaw(filePath: string): Promise<ReadRawResult> {
    const abs = absolute(filePath);
    const disk = await fallback.readRaw(abs);
    // A file that is not there is not asked for: acpx printed each not-found answer as an error.
    if (isNotFound(disk)) return disk;
    const real = await editorPath(abs);
    if (!(await editorReads(real))) return disk;
    const text = await editorText(real!);
    if (text === undefined) return disk;
    const now = new Date().toISOString();
    const meta = disk.data ?? { createdAt: now, modifiedAt: now, mimeType: mimeOf(abs) };
    return { data: { ...meta, content: text } };
  }

  /** The file's text before a write: editor buffer, else disk; null when it does not exist. */
  async function textBefore(abs: string): Promise<string | null | undefined> {
    const disk = await fallback.readRaw(abs);
    if (isNotFound(disk)) return null;
    const text = bridge.canReadFiles ? await editorText(abs) : undefined;
    if (text !== undefined) return text;
    if (disk.data) return typeof disk.data.content === "string" ? disk.data.content : undefined;
    return undefined;
  }

  function editorWrites(real: string | undefined, content: string | Uint8Array): real is string {
    if (!bridge.canWriteFiles || typeof content !== "string" || real === undefined) return false;
    const known = getMimeType(real);
    return !known || isTextMimeType(known);
  }

  async function write(filePath: string, content: string | Uint8Array): Promise<WriteResult> {
    const abs = absolute(filePath);
    const real = await editorPath(abs);
    if (!editorWrites(real, content)) return fallback.write(abs, content);
    const before = await textBefore(real);
    try {
      if (before === null) await mkdir(dirname(real), { recursive: true });
      await bridge.writeTextFile(real, content as string);
    } catch (error) {
      return { error: `The editor could not write '${abs}': ${errorMessage(error)}` };
    }
    return before === undefined ? { path: abs } : { path: abs, before };
  }

  async function edit(filePath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    const abs = absolute(filePath);
    const real = await editorPath(abs);
    if (!editorWrites(real, newString) || !(await editorReads(real)))
      return fallback.edit(abs, oldString, newString, replaceAll);
    const before = await textBefore(real);
    if (before === null) return { error: fileNotFoundMessage(abs) };
    if (before === undefined) return fallback.edit(abs, oldString, newString, replaceAll);
    const replaced = performStringReplacement(before, oldString, newString, replaceAll);
    if (!replaced.ok) return { error: replaced.error };
    try {
      await bridge.writeTextFile(real, replaced.content);
    } catch (error) {
      return { error: `The editor could not write '${abs}': ${errorMessage(error)}` };
    }
    return { path: abs, occurrences: replaced.occurrences, before, after: replaced.content };
  }

  const executor: SandboxBackendProtocol | undefined = isSandboxBackend(fallback) ? fallback : undefined;
  const terminals = (options.useEditorTerminals ?? true) && bridge.canRunTerminals;
  const canExecute = terminals || executor !== undefined;

  async function execute(command: string, exec: ExecuteOptions = {}): Promise<ExecuteResponse> {
    if (!terminals) {
      if (executor) return executor.execute(command, exec);
      return failedToStart("this session cannot run commands");
    }
    if (exec.signal?.aborted)
      return { output: "", exitCode: null, signal: null, truncated: false, timedOut: false, aborted: true };
    const cwd = exec.cwd ?? roots[0] ?? process.cwd();
    let terminal: EditorTerminal;
    try {
      terminal = await bridge.createTerminal({
        command: options.shell ?? defaultShell(),
        args: ["-c", command],
        cwd,
        ...(options.terminalEnv ? { env: options.terminalEnv } : {}),
        outputByteLimit: options.maxOutputChars ?? 30_000,
      });
    } catch (error) {
      // Never the local shell here: the editor offered terminals, so a refusal (acpx asks its own
      // question) is the user's answer, and a failure is the editor's; running the command anyway
      // would overrule both. The local executor serves only clients with no terminals at all.
      return terminalRefused(error);
    }
    try {
      exec.onTerminal?.(terminal.id);
      return await runInTerminal(terminal, exec);
    } finally {
      await terminal.release().catch(() => undefined);
    }
  }

  function terminalRefused(error: unknown): ExecuteResponse {
    const why = errorMessage(error);
    const refused = REFUSAL.test(why);
    return {
      ...failedToStart(
        refused
          ? `the editor refused to open a terminal (${why}); the command did not run`
          : `the editor could not open a terminal: ${why}; the command did not run`,
      ),
      notStarted: refused ? "refused" : "failed",
    };
  }

  async function runInTerminal(terminal: EditorTerminal, exec: ExecuteOptions): Promise<ExecuteResponse> {
    const grace = options.killGraceMs ?? 2000;
    let stop: "timeout" | "abort" | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<"stopped">((resolveStop) => {
      timer = setTimeout(
        () => {
          stop = "timeout";
          resolveStop("stopped");
        },
        exec.timeoutMs ?? options.defaultTimeoutMs ?? 120_000,
      );
      onAbort = () => {
        stop = "abort";
        resolveStop("stopped");
      };
      exec.signal?.addEventListener("abort", onAbort, { once: true });
    });
    const exited = terminal.waitForExit();
    exited.catch(() => undefined);
    let exit: EditorTerminalExit | undefined;
    try {
      const first = await Promise.race([exited, stopped]);
      if (first !== "stopped") exit = first;
    } catch {
      // the editor lost the terminal; report what output there is
    } finally {
      clearTimeout(timer);
      if (onAbort) exec.signal?.removeEventListener("abort", onAbort);
    }
    if (stop) {
      await within(terminal.kill(), grace);
      exit = await within(exited, grace);
    }
    const current = await within(terminal.currentOutput(), grace);
    exit ??= current?.exitStatus ?? undefined;
    return {
      output: current?.output ?? "",
      exitCode: exit?.exitCode ?? null,
      signal: exit?.signal ?? null,
      truncated: current?.truncated ?? false,
      timedOut: stop === "timeout",
      ...(stop === "abort" ? { aborted: true } : {}),
      terminalId: terminal.id,
    };
  }

  const backend: EditorBackend = {
    canExecute,
    ls: (p) => fallback.ls(p),
    read,
    readRaw,
    write,
    edit,
    grep: (p, path, g, m) => fallback.grep(p, path, g, m),
    glob: (p, path) => fallback.glob(p, path),
  };
  if (fallback.delete) backend.delete = (p) => fallback.delete!(p);
  if (fallback.uploadFiles) backend.uploadFiles = (f) => fallback.uploadFiles!(f);
  if (fallback.downloadFiles) backend.downloadFiles = (p) => fallback.downloadFiles!(p);
  if (canExecute) Object.assign(backend, { id: options.id ?? `editor:${roots[0] ?? ""}`, execute });
  backend.forCall = (approved) =>
    createEditorBackend({ ...options, fallback: backendForCall(fallback, approved), approved });
  return backend;
}

/** The promise's value, or undefined if it rejects or takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), ms);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The backend's answer for a file that does not exist. */
function isNotFound(result: ReadRawResult): boolean {
  return !result.data && result.error !== undefined && /not found/i.test(result.error);
}
