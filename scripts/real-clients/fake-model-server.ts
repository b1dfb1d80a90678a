// The model side of the real-client runs (scripts/real-clients/*): the e2e tests' fake model server
// on 127.0.0.1, answering a fixed scenario chosen by the words of the user's prompt, so the editor
// under test only has to type the prompts in order. Every answer carries OpenAI-style rate-limit
// headers with a request meter at 96% and `x-ratelimit-reset-requests: 6m0s`: the warning they cause
// must be shown once per window, not once per model request (issue 38).
//
//   node --import tsx scripts/real-clients/fake-model-server.ts --requests OUT.json
//
// Prints {"openaiBaseUrl": ...} as its first stdout line and serves until SIGTERM/SIGINT; then (and
// after every request) writes what each request was for to OUT.json.
import { writeFileSync } from "node:fs";
import {
  createFakeModelServer,
  textTurn,
  toolTurn,
  type FakeTurn,
  type RecordedRequest,
} from "../../test/support/fake-model/index.js";

/** The rate-limit headers of every answer: 160 of 4000 requests left, the window resets in six minutes. */
export const LIMIT_HEADERS: Record<string, string> = {
  "x-ratelimit-limit-requests": "4000",
  "x-ratelimit-remaining-requests": "160",
  "x-ratelimit-reset-requests": "6m0s",
  "x-ratelimit-limit-tokens": "800000",
  "x-ratelimit-remaining-tokens": "799000",
  "x-ratelimit-reset-tokens": "75ms",
  "x-request-id": "req_real_client",
};

export const TODOS = [
  { content: "Plan step one", status: "in_progress" },
  { content: "Plan step two", status: "pending" },
];

/**
 * The scenario: each prompt's keyword, then the model's answers in that turn, one per model
 * request (tool call, then the text after its result). The editor's prompts must contain the keywords.
 */
export const SCENARIO: Array<{ keyword: string; steps: FakeTurn[] }> = [
  {
    keyword: "plan",
    steps: [
      toolTurn("write_todos", { todos: TODOS }),
      toolTurn("execute", { command: "echo hello-from-the-editor" }),
      textTurn("Ran the echo."),
    ],
  },
  {
    keyword: "note",
    steps: [
      toolTurn("write_file", { file_path: "notes/new.txt", content: "a new note\n" }),
      textTurn("Wrote the note."),
    ],
  },
  {
    keyword: "helper",
    steps: [
      toolTurn("task", { description: "look around the project", subagent_type: "general-purpose" }),
      textTurn("The helper answered."),
    ],
  },
  {
    keyword: "reject",
    steps: [toolTurn("execute", { command: "touch rejected.txt" }), textTurn("Did not run it, as you rejected it.")],
  },
  {
    keyword: "refuse",
    steps: [toolTurn("execute", { command: "touch refused-by-cancel.txt" }), textTurn("Left it alone.")],
  },
  {
    keyword: "stop",
    steps: [toolTurn("execute", { command: "touch stopped-by-q.txt" }), textTurn("Never shown: the turn was stopped.")],
  },
  { keyword: "goodbye", steps: [textTurn("Goodbye from the fake model.")] },
];

export const SUBAGENT_ANSWER = "CHILD ANSWER: the project holds notes/new.txt.";

/** Which scenario a request belongs to and how far into its turn it is. */
function answer(request: RecordedRequest): { turn: FakeTurn; label: string } {
  if (request.system.includes("You are a subagent")) return { turn: textTurn(SUBAGENT_ANSWER), label: "subagent" };
  const lastUser = request.messages.map((m) => m.role).lastIndexOf("user");
  const step = request.messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
  // The keyword said last wins: after a stopped turn CodeCompanion sends the stopped prompt again
  // before the new one, in the same message.
  const prompt = request.lastUserText.toLowerCase();
  const scene = SCENARIO.filter((s) => prompt.includes(s.keyword)).sort(
    (a, b) => prompt.lastIndexOf(b.keyword) - prompt.lastIndexOf(a.keyword),
  )[0];
  if (!scene) return { turn: textTurn(`(no scenario for: ${prompt.slice(0, 80)})`), label: "unknown" };
  const turn = scene.steps[step] ?? textTurn("(scenario over)");
  return { turn, label: `${scene.keyword}#${step}` };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const out = args[args.indexOf("--requests") + 1];
  if (!args.includes("--requests") || !out) throw new Error("usage: fake-model-server.ts --requests OUT.json");
  const served: Array<{ label: string; path: string; lastUserText: string }> = [];
  const server = await createFakeModelServer({
    handler: (request) => {
      const { turn, label } = answer(request);
      served.push({ label, path: request.path, lastUserText: request.lastUserText.slice(0, 200) });
      writeFileSync(out, `${JSON.stringify(served, null, 2)}\n`);
      return { ...turn, headers: { ...LIMIT_HEADERS, ...turn.headers } };
    },
  });
  process.stdout.write(`${JSON.stringify({ openaiBaseUrl: server.openaiBaseUrl })}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake model server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
