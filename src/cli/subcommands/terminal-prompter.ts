// Questions and answers on the terminal for `deep-acp login`, without readline: answers are buffered
// line by line (piped input arrives in one chunk), and secrets are read in raw mode so they are never echoed.

/** Asks the user things. The default one reads the terminal (see createTerminalPrompter). */
export type LoginPrompter = {
  /** Writes `question` and resolves with the answer line, or undefined when input has ended. Rejects with LoginCancelled. */
  ask(question: string, options?: { secret?: boolean }): Promise<string | undefined>;
  say(text: string): void;
  close(): void;
};

export class LoginCancelled extends Error {
  constructor() {
    super("cancelled");
    this.name = "LoginCancelled";
  }
}

/** What the prompter needs of an input stream; `setRawMode` exists on terminals only. */
export type PrompterInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };

/**
 * Line-by-line answers from `input`, buffered so that piped answers ("1\nsk-...\n") arrive intact.
 * On a terminal, secret answers are read in raw mode, so the terminal never echoes them.
 */
export function createTerminalPrompter(
  input: PrompterInput = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): LoginPrompter {
  const lines: string[] = [];
  let partial = "";
  let ended = false;
  let wake: (() => void) | undefined;
  let secret:
    | { text: string; escape: 0 | 1 | 2; resolve(line: string | undefined): void; reject(error: Error): void }
    | undefined;
  const terminal = input.isTTY === true && typeof input.setRawMode === "function";

  const onText = (chunk: string) => {
    partial += chunk;
    let newline: number;
    while ((newline = partial.indexOf("\n")) >= 0) {
      lines.push(partial.slice(0, newline).replace(/\r$/, ""));
      partial = partial.slice(newline + 1);
    }
    wake?.();
  };
  const finishSecret = (line: string | undefined, error?: Error) => {
    const pending = secret!;
    secret = undefined;
    input.setRawMode!(false);
    output.write("\n");
    if (error) pending.reject(error);
    else pending.resolve(line);
  };
  // Raw mode hands over single keystrokes: edit the hidden line ourselves.
  const onSecretKeys = (chunk: string) => {
    const chars = Array.from(chunk);
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i]!;
      const state = secret!;
      if (state.escape === 1) state.escape = ch === "[" ? 2 : 0;
      else if (state.escape === 2) state.escape = ch >= "@" && ch <= "~" ? 0 : 2;
      else if (ch === "\x1b") state.escape = 1;
      else if (ch === "\r" || ch === "\n") {
        finishSecret(state.text);
        const rest = chars
          .slice(i + 1)
          .join("")
          .replace(/^\n/, "");
        if (rest) onText(rest);
        return;
      } else if (ch === "\x03") return finishSecret(undefined, new LoginCancelled());
      else if (ch === "\x04") {
        if (state.text === "") return finishSecret(undefined);
      } else if (ch === "\x7f" || ch === "\b") state.text = Array.from(state.text).slice(0, -1).join("");
      else if (ch === "\x15") state.text = "";
      else if (ch >= " ") state.text += ch;
    }
  };
  const onData = (chunk: string | Buffer) => {
    const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
    if (secret) onSecretKeys(text);
    else onText(text);
  };
  const onEnd = () => {
    ended = true;
    if (partial) {
      lines.push(partial.replace(/\r$/, ""));
      partial = "";
    }
    if (secret) finishSecret(secret.text || undefined);
    wake?.();
  };
  input.setEncoding?.("utf8");
  input.on("data", onData);
  input.on("end", onEnd);

  async function nextLine(): Promise<string | undefined> {
    while (lines.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    return lines.shift();
  }

  return {
    say: (text) => void output.write(text),
    async ask(question, options = {}) {
      // An answer typed ahead with Enter was already echoed by the terminal: nothing left to hide.
      if (!options.secret || !terminal || lines.length > 0 || ended) {
        output.write(question);
        const line = await nextLine();
        // Piped answers are not echoed: end the prompt's line so the transcript stays readable.
        if (!input.isTTY) output.write("\n");
        return line;
      }
      return new Promise((resolve, reject) => {
        // Echo goes off before the prompt shows, so no keystroke can beat it.
        secret = { text: "", escape: 0, resolve, reject };
        input.setRawMode!(true);
        output.write(question);
      });
    },
    close() {
      input.off("data", onData);
      input.off("end", onEnd);
      if (secret) finishSecret(undefined, new LoginCancelled());
      input.pause();
    },
  };
}
