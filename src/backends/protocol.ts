// Backend protocol V2 (reference/system-inventory.md §2), in our camelCase. Every operation returns a
// structured result: a missing file, a denied path or no match is a result with `error`, never a
// throw. Paths are absolute; backends that own a virtual tree (state, store) see "/"-rooted keys.

/** What starts a background process: the program, its arguments, folder and environment. */
export type BackgroundSpawnSpec = { file: string; args: string[]; cwd: string; env: Record<string, string> };

export type FileInfo = {
  path: string;
  isDir?: boolean;
  size?: number;
  /** ISO 8601 */
  modifiedAt?: string;
};

export type LsResult = { files?: FileInfo[]; error?: string };
export type GlobResult = { files?: FileInfo[]; truncated?: boolean; error?: string };

export type ReadResult = {
  /** Text for text files (the requested line window), bytes for binary files (whole file). */
  content?: string | Uint8Array;
  mimeType?: string;
  /** Total number of lines in a text file, when known. */
  totalLines?: number;
  error?: string;
};

export type FileData = {
  content: string | Uint8Array;
  mimeType: string;
  createdAt: string;
  modifiedAt: string;
};
export type ReadRawResult = { data?: FileData; error?: string };

export type WriteResult = {
  path?: string;
  /** The file's text before the write: `null` when it did not exist, absent when unknown or binary. */
  before?: string | null;
  error?: string;
};

export type EditResult = {
  path?: string;
  occurrences?: number;
  before?: string;
  after?: string;
  error?: string;
};

export type DeleteResult = { path?: string; error?: string };

export type GrepMatch = { path: string; /** 1-based */ line: number; text: string };
export type GrepResult = { matches?: GrepMatch[]; truncated?: boolean; error?: string };

export type FileOperationError = "file_not_found" | "permission_denied" | "is_directory" | "invalid_path";
export type FileUploadResponse = { path: string; error: FileOperationError | null };
export type FileDownloadResponse = { path: string; content: Uint8Array | null; error: FileOperationError | null };

/** A gated call's approved paths: requested path -> the real path the gate decided on. */
export type ApprovedTargets = ReadonlyMap<string, string>;

export interface BackendProtocol {
  /** Non-recursive listing; directories have `isDir` and a trailing "/" in `path`. */
  ls(path: string): Promise<LsResult>;
  /** Text: lines [offset, offset+limit) (0-based offset, default 0/500). Binary: whole file as bytes. */
  read(filePath: string, offset?: number, limit?: number): Promise<ReadResult>;
  readRaw(filePath: string): Promise<ReadRawResult>;
  /** Create or overwrite. Strings are UTF-8 text; bytes are written as is. */
  write(filePath: string, content: string | Uint8Array): Promise<WriteResult>;
  /** Literal string replacement with the semantics of performStringReplacement (backends/edit-semantics). */
  edit(filePath: string, oldString: string, newString: string, replaceAll?: boolean): Promise<EditResult>;
  /** Literal (not regex) search. `glob` filters file basenames. */
  grep(pattern: string, path?: string | null, glob?: string | null, maxCount?: number | null): Promise<GrepResult>;
  glob(pattern: string, path?: string): Promise<GlobResult>;
  /** Recursive for directories. */
  delete?(filePath: string): Promise<DeleteResult>;
  uploadFiles?(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]>;
  downloadFiles?(paths: string[]): Promise<FileDownloadResponse[]>;
  /**
   * The same backend bound to one gated call's approved real paths (backends/approved-targets.ts):
   * what it opens must be the real path the gate decided on. Absent: nothing in it opens host paths.
   */
  forCall?(approved: ApprovedTargets): BackendProtocol;
}

export type ExecuteOptions = {
  /** Absolute working directory; defaults to the backend's root. */
  cwd?: string;
  /** Per-command timeout; the process group is killed when it passes. */
  timeoutMs?: number;
  /** Aborting kills the whole process group. */
  signal?: AbortSignal;
  /** Live output, in arrival order (stdout and stderr interleaved). */
  onOutput?: (chunk: string) => void;
  /** Called when the command runs in an editor terminal, with that terminal's id. */
  onTerminal?: (terminalId: string) => void;
};

export type ExecuteResponse = {
  output: string;
  exitCode: number | null;
  signal?: string | null;
  truncated: boolean;
  timedOut?: boolean;
  /** True when the command was stopped because the caller's signal aborted. */
  aborted?: boolean;
  /** Set when the output lives in an editor terminal the user can see. */
  terminalId?: string;
  /** The command never started: the editor refused its terminal, or starting it failed. */
  notStarted?: "refused" | "failed";
};

export interface SandboxBackendProtocol extends BackendProtocol {
  readonly id: string;
  /**
   * "stream" (default): output arrives through `onOutput` as the command runs.
   * "editor-terminal": the command runs in an editor terminal the user watches; `onTerminal` gives its id.
   */
  readonly outputMode?: "stream" | "editor-terminal";
  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResponse>;
  /**
   * How to start `command` as a long-running background process (execute with background: true);
   * absent where commands cannot outlive a call (editor terminals). A string is why it cannot start.
   */
  backgroundSpec?(command: string, cwd?: string): BackgroundSpawnSpec | string;
}

export function isSandboxBackend(backend: BackendProtocol): backend is SandboxBackendProtocol {
  const candidate = backend as Partial<SandboxBackendProtocol>;
  return typeof candidate.execute === "function" && typeof candidate.id === "string" && candidate.id.length > 0;
}
