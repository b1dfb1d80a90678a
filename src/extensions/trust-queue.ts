// Decisions only a human can make (start this project MCP server? run these project hooks? follow
// this skill symlink out of the skill dirs?) come up while a session loads in the background, but
// the editor can only be asked during a prompt turn. The queue holds them until a turn opens it,
// then asks one at a time; while the turn runs, new questions are asked right away.

export type TrustOptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";

export type TrustQuestion = {
  /** Stable id for the dialog (used as its tool call id). */
  key: string;
  title: string;
  /** Markdown body: where it comes from and exactly what would run. */
  body: string;
  options: Array<{ id: string; name: string; kind: TrustOptionKind }>;
};

/** Shows a question to the human; resolves with the chosen option id, or "cancelled". */
export interface TrustPrompter {
  ask(question: TrustQuestion, signal: AbortSignal): Promise<string>;
}

type Pending = { question: TrustQuestion; resolve: (answer: string) => void };

export function createTrustQueue() {
  const pending: Pending[] = [];
  let active: { prompter: TrustPrompter; signal: AbortSignal } | undefined;
  let chain: Promise<void> = Promise.resolve();

  const pump = () => {
    chain = chain.then(async () => {
      while (active && pending.length > 0 && !active.signal.aborted) {
        const next = pending.shift()!;
        const answer = await active.prompter.ask(next.question, active.signal).catch(() => "cancelled");
        next.resolve(answer);
      }
    });
    return chain;
  };

  return {
    /** Resolves with the chosen option id once a turn has shown the question. */
    ask(question: TrustQuestion): Promise<string> {
      return new Promise((resolve) => {
        pending.push({ question, resolve });
        if (active) void pump();
      });
    },
    /** A turn starts: ask everything pending (and anything that arrives) through `prompter`. */
    open(prompter: TrustPrompter, signal: AbortSignal): Promise<void> {
      active = { prompter, signal };
      signal.addEventListener("abort", () => (active = undefined), { once: true });
      return pump();
    },
    /** Waits until the questions asked so far are answered. */
    idle(): Promise<void> {
      return chain;
    },
    /** The turn ended; questions wait for the next one. */
    close(): void {
      active = undefined;
    },
    /** Nobody will ever answer (headless without a prompter): refuse everything pending. */
    refuseAll(answer: string): void {
      for (const p of pending.splice(0)) p.resolve(answer);
    },
    get size(): number {
      return pending.length;
    },
  };
}

export type TrustQueue = ReturnType<typeof createTrustQueue>;
