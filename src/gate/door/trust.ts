// Trust questions: decisions only a human can make about what a project brings along (start this
// project MCP server? run these project hooks? follow this skill link? trust this SSH host key?
// build this dev container?). They come up while a session loads in the background, but an editor
// shows dialogs only during a prompt turn: the door holds them until a turn opens it. Each is still
// a request to the door like any other, asked under its one lock and answered on the asker's call.

export type TrustOptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";

export type TrustQuestion = {
  /** Stable id for the dialog (the prefix of its entry's tool call id). */
  key: string;
  title: string;
  /** Markdown body: where it comes from and exactly what would run. */
  body: string;
  options: Array<{ id: string; name: string; kind: TrustOptionKind }>;
};

/** Shows a trust question (the editor's permission dialog); resolves with the chosen option id, or "cancelled". */
export interface TrustDialog {
  ask(question: TrustQuestion, toolCallId: string, signal: AbortSignal): Promise<string>;
}

/** The thread entry that carries a trust question and then records its answer (editors show dialogs on tool calls). */
export type DialogEntry =
  | { phase: "asking"; toolCallId: string; title: string; body: string; trustKey: string }
  | { phase: "answered"; toolCallId: string; allowed: boolean; text: string };

type Pending = { question: TrustQuestion; resolve: (answer: string) => void };

/**
 * The trust questions waiting for a turn. `show` asks one (the door takes its lock around it);
 * `open` lets questions through while `signal` lives, `close` holds them again.
 */
export function createTrustQueue(show: (question: TrustQuestion, signal: AbortSignal) => Promise<string>) {
  const pending: Pending[] = [];
  /** The open turn's window: aborted when the turn ends or is cancelled, which takes down a dialog still open. */
  let window: AbortController | undefined;
  let chain: Promise<void> = Promise.resolve();

  const pump = () => {
    chain = chain.then(async () => {
      while (window && !window.signal.aborted && pending.length > 0) {
        const shown = window.signal;
        const next = pending.shift()!;
        const answer = await show(next.question, shown).catch(() => "cancelled");
        // Nobody answered before the turn ended: the question waits for the next turn, rather than
        // holding the door's lock past its turn or being taken as a refusal.
        if (shown.aborted && answer === "cancelled") pending.unshift(next);
        else next.resolve(answer);
      }
    });
    return chain;
  };

  return {
    ask(question: TrustQuestion): Promise<string> {
      return new Promise((resolve) => {
        pending.push({ question, resolve });
        if (window) void pump();
      });
    },
    open(signal: AbortSignal): Promise<void> {
      // Opened again within the same turn (the turn, then its workspace): the window that is open stays.
      if (!window || window.signal.aborted) window = new AbortController();
      const opened = window;
      signal.addEventListener("abort", () => opened.abort(), { once: true });
      return pump();
    },
    close(): void {
      window?.abort();
      window = undefined;
    },
  };
}

/** The entry's closing line: which option was chosen, or that nobody answered. */
export function answeredEntry(question: TrustQuestion, toolCallId: string, answer: string): DialogEntry {
  const chosen = question.options.find((o) => o.id === answer);
  return {
    phase: "answered",
    toolCallId,
    allowed: chosen?.kind === "allow_once" || chosen?.kind === "allow_always",
    text: chosen ? `${question.title} — ${chosen.name}` : `${question.title} — not answered`,
  };
}
