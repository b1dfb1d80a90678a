import { createInterface } from "node:readline";
import { questionAsText } from "../tools/user/ask-user.js";
import type { Questioner, UserAnswer, UserQuestion } from "../tools/types.js";

// Headless runs answer ask_user from stdin, one line per question, in order:
//   printf '2\nyes\n' | deep-acp -n "set up the project"
// A line may name options by number ("1,3") or by text; anything else is a free-text answer; an empty
// line declines. With no line left (stdin closed or never given) the question fails with a message that
// says how to answer, instead of hanging or guessing.

export function createStdinQuestioner(
  input: NodeJS.ReadableStream,
  log: (text: string) => void,
): Questioner & { close(): void } {
  let reader: ReturnType<typeof createInterface> | undefined;
  let lines: AsyncIterator<string> | undefined;
  let ended = false;
  const next = async (signal: AbortSignal): Promise<string | undefined> => {
    if (ended) return undefined;
    reader ??= createInterface({ input, crlfDelay: Infinity, terminal: false });
    lines ??= reader[Symbol.asyncIterator]();
    const aborted = new Promise<undefined>((resolve) =>
      signal.addEventListener("abort", () => resolve(undefined), { once: true }),
    );
    const line = await Promise.race([
      lines.next().then((r) => (r.done ? ((ended = true), undefined) : r.value)),
      aborted,
    ]);
    return line;
  };
  return {
    forms: false,
    async ask(question, _where, signal): Promise<UserAnswer> {
      log(`deep-acp asks: ${questionAsText(question)}\n`);
      const line = await next(signal);
      if (signal.aborted) return { outcome: "cancelled" };
      if (line === undefined) {
        return {
          outcome: "failed",
          message:
            "the user cannot be asked in this headless run (no answer on stdin). Decide yourself and state the assumption, or pipe answers to deep-acp -n, one line per question.",
        };
      }
      log(`deep-acp: answer: ${line}\n`);
      return parseLine(question, line);
    },
    async form() {
      return { action: "unsupported", reason: "headless runs cannot show forms" };
    },
    /** Stops reading stdin, so an open terminal does not keep the process alive after the turn. */
    close() {
      if (!reader) return;
      reader.close();
      (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    },
  };
}

export function parseLine(question: UserQuestion, line: string): UserAnswer {
  const text = line.trim();
  if (text === "") return { outcome: "declined" };
  const options = question.options;
  if (!options) return { outcome: "answered", selected: [], text };
  const parts = question.multiSelect
    ? text
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean)
    : [text];
  const chosen = parts.map((part) =>
    /^\d+$/.test(part) ? options[Number(part) - 1] : options.find((o) => o.toLowerCase() === part.toLowerCase()),
  );
  if (chosen.every((c): c is string => c !== undefined)) return { outcome: "answered", selected: [...new Set(chosen)] };
  return { outcome: "answered", selected: [], text };
}
