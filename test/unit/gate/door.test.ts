import { describe, expect, it } from "vitest";
import type { ApprovalOutcome, ApprovalRequest } from "../../../src/gate/door/approver.js";
import { createDoor } from "../../../src/gate/door/door.js";
import type { DialogEntry, TrustQuestion } from "../../../src/gate/door/trust.js";
import type { Questioner, UserAnswer } from "../../../src/tools/types.js";

// The session's door: one dialog at a time in arrival order, the answer on the caller's own call,
// the PermissionRequest hook before any dialog, and a cancelled dialog letting the next one through.
// The renderers are plain recorders standing in for the editor's dialogs (what acp/dialogs draws).

type Shown = { what: string; answer: (value: string) => void };

function editor() {
  const shown: Shown[] = [];
  const open = () => shown.filter((s) => s.answer !== done).length;
  const done = () => undefined;
  const show = (what: string, signal?: AbortSignal) =>
    new Promise<string>((resolve) => {
      const entry: Shown = {
        what,
        answer: (value) => {
          entry.answer = done;
          resolve(value);
        },
      };
      signal?.addEventListener("abort", () => entry.answer("cancelled"), { once: true });
      shown.push(entry);
    });
  const questioner: Questioner = {
    forms: true,
    ask: async (question, _where, signal) =>
      JSON.parse(await show(`question: ${question.question}`, signal)) as UserAnswer,
    form: async (request, _where, signal) => ({
      action: (await show(`form: ${request.message}`, signal)) as "accept",
      content: {},
    }),
  };
  return {
    shown,
    /** How many dialogs are open at once right now. */
    open,
    approver: {
      requestApproval: (request: ApprovalRequest, signal: AbortSignal) =>
        show(`permission: ${request.title}`, signal) as Promise<ApprovalOutcome>,
    },
    questioner,
    trust: {
      ask: (question: TrustQuestion, _id: string, signal: AbortSignal) => show(`trust: ${question.title}`, signal),
    },
  };
}

const request = (title: string): ApprovalRequest => ({
  toolCallId: title,
  toolName: "write",
  title,
  kind: "edit",
  rawInput: {},
  locations: [],
  reason: "test",
  alwaysLabel: null,
});

const question = (title: string): TrustQuestion => ({
  key: `trust-${title}`,
  title,
  body: `run ${title}?`,
  options: [
    { id: "allow_once", name: "Allow", kind: "allow_once" },
    { id: "reject", name: "Reject", kind: "reject_once" },
  ],
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("the door", () => {
  it("shows one dialog at a time, in arrival order, whatever kind each is", async () => {
    const ui = editor();
    const door = createDoor(ui);
    const turn = new AbortController();
    void door.open(turn.signal);
    const signal = new AbortController().signal;
    const first = door.permission({ signal, request: async () => request("write a.txt") });
    const second = door.questioner!.ask({ question: "which?", options: [] } as never, { toolCallId: "q" }, signal);
    const third = door.trust(question("project MCP server"));
    await tick();
    expect(ui.shown.map((s) => s.what)).toEqual(["permission: write a.txt"]);
    ui.shown[0]!.answer("allow_once");
    await tick();
    expect(ui.shown.map((s) => s.what)).toEqual(["permission: write a.txt", "question: which?"]);
    expect(ui.open()).toBe(1);
    ui.shown[1]!.answer(JSON.stringify({ answers: ["x"] }));
    await tick();
    expect(ui.shown[2]!.what).toBe("trust: project MCP server");
    ui.shown[2]!.answer("reject");
    // Each answer comes back on its caller's own call.
    expect(await first).toBe("allow_once");
    expect(await second).toEqual({ answers: ["x"] });
    expect(await third).toBe("reject");
  });

  it("holds trust questions asked before a turn and answers them on the asker's call once a turn opens the door", async () => {
    const ui = editor();
    const entries: DialogEntry[] = [];
    const door = createDoor(ui, (entry) => entries.push(entry));
    const asked = door.trust(question("project hooks"));
    await tick();
    expect(ui.shown).toEqual([]);
    void door.open(new AbortController().signal);
    await tick();
    expect(ui.shown.map((s) => s.what)).toEqual(["trust: project hooks"]);
    ui.shown[0]!.answer("allow_once");
    expect(await asked).toBe("allow_once");
    // The thread entry goes up (to the observer), never from the renderer.
    expect(entries.map((e) => e.phase)).toEqual(["asking", "answered"]);
    expect(entries[1]).toMatchObject({ allowed: true, text: "project hooks — Allow" });
  });

  it("a trust dialog still open when its turn ends is taken down: it holds no lock, and is asked again next turn", async () => {
    const ui = editor();
    const entries: DialogEntry[] = [];
    const door = createDoor(ui, (entry) => entries.push(entry));
    const asked = door.trust(question("project MCP server"));
    void door.open(new AbortController().signal);
    await tick();
    expect(ui.open()).toBe(1);
    // The turn ends normally (no cancel) with the question unanswered.
    door.close();
    await tick();
    expect(ui.open()).toBe(0);
    // The entry is closed, not left pending in the editor.
    expect(entries.map((e) => e.phase)).toEqual(["asking", "answered"]);
    expect(entries[1]).toMatchObject({ allowed: false, text: "project MCP server — not answered" });
    // The door is free: the next turn's tool call is shown; the question comes back after it.
    const next = new AbortController();
    void door.open(next.signal);
    const permission = door.permission({ signal: next.signal, request: async () => request("write a.txt") });
    // One at a time again, each answered as it comes.
    for (let shownBefore = 1; shownBefore < 3; shownBefore++) {
      await tick();
      expect(ui.shown).toHaveLength(shownBefore + 1);
      expect(ui.open()).toBe(1);
      ui.shown.at(-1)!.answer("allow_once");
    }
    expect(await permission).toBe("allow_once");
    expect(await asked).toBe("allow_once");
    expect(ui.shown.map((s) => s.what).sort()).toEqual(
      ["permission: write a.txt", "trust: project MCP server", "trust: project MCP server"].sort(),
    );
  });

  it("lets the PermissionRequest hook decide before any dialog is shown", async () => {
    const ui = editor();
    const door = createDoor(ui);
    const signal = new AbortController().signal;
    const built: string[] = [];
    const allowed = door.permission({
      signal,
      hook: async () => ({ decision: "allow" }),
      request: async () => (built.push("a"), request("a")),
    });
    const denied = door.permission({
      signal,
      hook: async () => ({ decision: "deny", message: "policy" }),
      request: async () => (built.push("b"), request("b")),
    });
    expect(await allowed).toEqual({ settled: "hook", decision: "allow" });
    expect(await denied).toEqual({ settled: "hook", decision: "deny", message: "policy" });
    expect(ui.shown).toEqual([]);
    expect(built).toEqual([]);
  });

  it("a cancelled dialog releases the door: the next request is shown, a cancelled waiter never is", async () => {
    const ui = editor();
    const door = createDoor(ui);
    const first = new AbortController();
    const waiting = new AbortController();
    const a = door.permission({ signal: first.signal, request: async () => request("a") });
    const b = door.permission({ signal: waiting.signal, request: async () => request("b") });
    const c = door.permission({ signal: new AbortController().signal, request: async () => request("c") });
    await tick();
    waiting.abort();
    first.abort();
    expect(await a).toBe("cancelled");
    expect(await b).toBe("cancelled");
    await tick();
    expect(ui.shown.map((s) => s.what)).toEqual(["permission: a", "permission: c"]);
    ui.shown[1]!.answer("reject_once");
    expect(await c).toBe("reject_once");
  });

  it("carries the answer out in the tick it arrives, before a cancel queued right behind it", async () => {
    const seen: string[] = [];
    const door = createDoor({
      approver: {
        requestApproval: () =>
          new Promise<ApprovalOutcome>((resolve) =>
            setTimeout(() => {
              resolve("reject_once");
              // The editor's session/cancel, handled right behind its answer.
              queueMicrotask(() => seen.push("cancel"));
            }, 0),
          ),
      },
    });
    const answer = await door.permission({
      signal: new AbortController().signal,
      request: async () => request("deploy"),
      answered: (outcome) => seen.push(`answered ${outcome}`),
    });
    expect(answer).toBe("reject_once");
    expect(seen).toEqual(["answered reject_once", "cancel"]);
  });

  it("refuses trust questions at once when nobody can answer them (headless)", async () => {
    const door = createDoor({ approver: editor().approver });
    expect(door.canAskTrust).toBe(false);
    expect(await door.trust(question("x"))).toBe("cancelled");
  });
});
