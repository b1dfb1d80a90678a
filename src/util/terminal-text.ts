// Text the CLI prints to a terminal comes from places an attacker can fill: file names in a
// repository, session titles, the model's answer, a container's change list. A terminal acts on
// control bytes in it: ESC sequences recolour, move the cursor, rewrite earlier lines, set the
// window title or the clipboard (OSC 52), or hide a name behind a link (OSC 8); a lone CR or a
// backspace overprints; bidi overrides reorder what is shown ("Trojan Source"). So every CLI printer
// writes through terminalSafe: each such character becomes a visible escape (`\x1b`, `\u202e`), one
// character at a time, which is also safe for a sequence split over two streamed chunks. Newlines
// and tabs stay; CRLF becomes LF.

// C0 controls but \t and \n, DEL, C1 controls (0x9b is a one-byte CSI for some terminals), and the
// bidi embeddings, overrides and isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// C0 as `\x1b`, the rest as `\u009b`: a `--json` document stays valid JSON (JSON.stringify already
// escapes C0, and `\u` is JSON's own escape for what it leaves raw).
function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control sequence character shown as an escape; newlines and tabs kept. */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, visible);
}

export type TextIo = { stdout: (text: string) => void; stderr: (text: string) => void };

/**
 * `io` with both streams written through terminalSafe; `rawStdout` leaves stdout as it is (the
 * `-n` answer when stdout is a pipe or a file: there it is data, and no terminal interprets it).
 */
export function terminalSafeIo<T extends TextIo>(io: T, options: { rawStdout?: boolean } = {}): T {
  return {
    ...io,
    stdout: options.rawStdout ? io.stdout : (text: string) => io.stdout(terminalSafe(text)),
    stderr: (text: string) => io.stderr(terminalSafe(text)),
  };
}
