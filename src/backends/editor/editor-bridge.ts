// What the editor offers the agent (ACP `fs/*` and `terminal/*`). acp/ implements this with the SDK
// for one session; backends only see this interface, so nothing here depends on the protocol library.

export type EditorTerminalExit = { exitCode: number | null; signal: string | null };

export type EditorTerminalOutput = {
  output: string;
  /** The editor dropped the start of the output to stay within outputByteLimit. */
  truncated: boolean;
  /** Present once the command has exited. */
  exitStatus?: EditorTerminalExit | null;
};

export interface EditorTerminal {
  readonly id: string;
  /** Resolves when the command exits. */
  waitForExit(): Promise<EditorTerminalExit>;
  currentOutput(): Promise<EditorTerminalOutput>;
  /** Kills the command; the terminal stays valid until release(). */
  kill(): Promise<void>;
  /** Frees the terminal in the editor; must be called exactly once, also after a kill. */
  release(): Promise<void>;
}

export type EditorTerminalRequest = {
  command: string;
  args: string[];
  /** Absolute. */
  cwd: string;
  /** Added to the editor's environment. */
  env?: Record<string, string>;
  outputByteLimit: number;
};

export interface EditorBridge {
  /** Client capability fs.readTextFile. */
  readonly canReadFiles: boolean;
  /** Client capability fs.writeTextFile. */
  readonly canWriteFiles: boolean;
  /** Client capability terminal. */
  readonly canRunTerminals: boolean;
  /**
   * Text of a file as the editor sees it (unsaved changes included). `line` is 1-based, `limit` in
   * lines; both omitted = the whole file. Rejects when the editor cannot read it.
   */
  readTextFile(path: string, line?: number, limit?: number): Promise<string>;
  /** Writes through the editor (which may show it for review). Rejects when refused or failed. */
  writeTextFile(path: string, content: string): Promise<void>;
  createTerminal(request: EditorTerminalRequest): Promise<EditorTerminal>;
}
