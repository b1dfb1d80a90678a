// Judges what the real CodeCompanion showed (run.sh): the chat buffer's text, each tool line's status
// as its icon showed it, CodeCompanion's own log of the JSON-RPC traffic, what the fake model served
// and the project's files. Usage: node check.mjs RUN_DIR... (each with result/ and project/).
// Prints one line per check and exits 1 if any failed.
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { lastToolCallStatuses, unfinishedCalls } from "../wire-checks.mjs";

const ANSWERS = [
  "Ran the echo.",
  "Wrote the note.",
  "The helper answered.",
  "Did not run it, as you rejected it.",
  "Goodbye from the fake model.",
];
const WARNING = /nearly reached/g;

/** The JSON-RPC messages CodeCompanion received and sent, from its RPC log ("Received:"/"Sent:" + one line). */
function rpcMessages(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  const messages = [];
  for (let i = 0; i < lines.length; i++) {
    const direction = lines[i] === "Received:" ? "in" : lines[i] === "Sent:" ? "out" : undefined;
    if (!direction) continue;
    try {
      messages.push({ direction, message: JSON.parse(lines[i + 1]) });
    } catch {
      // A line CodeCompanion did not parse either.
    }
  }
  return messages;
}

function checkRun(dir) {
  const result = join(dir, "result");
  const verbose = basename(dir) === "verbose";
  const chat = readFileSync(join(result, "chat.txt"), "utf8");
  const annotated = readFileSync(join(result, "chat-annotated.txt"), "utf8").split("\n");
  const served = JSON.parse(readFileSync(join(result, "requests.json"), "utf8"));
  const rpc = rpcMessages(join(result, "rpc.log"));
  const checks = [];
  const check = (name, ok, detail = "") => checks.push({ name, ok: Boolean(ok), detail });

  // Tool lines: CodeCompanion's one-line labels with their status icon; the approval prompt's
  // "You selected" lines carry an icon too but are not calls.
  const toolLines = annotated
    .map((line) => /^\[tool:(\w+)\] (.*)$/.exec(line))
    .filter((m) => m && !m[2].includes("You selected:"))
    .map((m) => ({ status: m[1], label: m[2].trim() }));

  const json = chat.match(/\{"|\[\{|"exitCode"|"subagentType"|"todos"\s*:/g) ?? [];
  check("no raw JSON in the chat", json.length === 0, json.join(" "));

  const labels = toolLines.map((t) => t.label);
  const shownTwice = labels.filter((label, i) => labels.indexOf(label) !== i);
  check("no tool call shown on two lines", shownTwice.length === 0, shownTwice.join(" | "));

  // A title said twice on its line (agent-shell-style `<title> <description>` when equal, or a
  // summary repeating the label): any run of three words that comes back.
  const repeatedInLine = labels.filter((label) => {
    const words = label.replace(/^[A-Z][a-z ]*: /, "").split(/\s+/);
    const runs = words.slice(2).map((w, i) => `${words[i]} ${words[i + 1]} ${w}`);
    return runs.some((r, i) => runs.indexOf(r) !== i);
  });
  check("no title repeated within its line", repeatedInLine.length === 0, repeatedInLine.join(" | "));

  const answerCounts = ANSWERS.map((a) => [a, chat.split(a).length - 1]);
  check(
    "each answer of the model shown once",
    answerCounts.every(([, n]) => n === 1),
    answerCounts.map(([a, n]) => `${a} x${n}`).join(", "),
  );

  const open = toolLines.filter((t) => t.status !== "completed" && t.status !== "failed");
  check(
    "every tool line ends completed or failed",
    toolLines.length >= 6 && open.length === 0,
    `${toolLines.length} tool lines: ${toolLines.map((t) => `${t.status} ${t.label}`).join(" | ")}`,
  );

  const lastStatus = lastToolCallStatuses(rpc, (entry) => entry.direction === "in");
  const unfinished = unfinishedCalls(lastStatus);
  check(
    "every tool call on the wire reaches completed or failed",
    lastStatus.size >= 7 && unfinished.length === 0,
    `${lastStatus.size} calls; last statuses: ${[...lastStatus.values()].join(", ")}`,
  );

  const rejected = toolLines.find((t) => t.label.includes("rejected.txt"));
  check(
    "the call rejected with Reject is shown failed and did not run",
    rejected?.status === "failed" && !existsSync(join(dir, "project", "rejected.txt")),
    rejected ? `${rejected.status} ${rejected.label}` : "no tool line",
  );

  const refused = toolLines.find((t) => t.label.includes("refused-by-cancel.txt"));
  check(
    "the call refused with Cancel is shown failed and did not run",
    refused?.status === "failed" && !existsSync(join(dir, "project", "refused-by-cancel.txt")),
    refused ? `${refused.status} ${refused.label}` : "no tool line",
  );

  const stopped = toolLines.filter((t) => t.label.includes("stopped-by-q.txt"));
  const cancelSent = rpc.some(({ direction, message }) => direction === "out" && message.method === "session/cancel");
  check(
    "the call stopped with q: session/cancel sent, nothing left pending, did not run",
    cancelSent && stopped.every((t) => t.status === "failed") && !existsSync(join(dir, "project", "stopped-by-q.txt")),
    `session/cancel ${cancelSent ? "sent" : "NOT sent"}; tool lines: ${stopped.map((t) => t.status).join(", ") || "none (CodeCompanion holds back pending calls and drops updates after its cancel)"}`,
  );

  const warnings = (chat.match(WARNING) ?? []).length;
  const limited = served.length;
  check(
    "the rate-limit warning shown once though every model request carried it",
    warnings === 1 && limited >= 10,
    `${warnings} warning(s) over ${limited} model requests with x-ratelimit-reset-requests: 6m0s`,
  );

  const plan = toolLines.find((t) => t.label.startsWith("Think: Working on Plan step one"));
  check(
    "the plan is titled by its task in progress" + (verbose ? " and shows its count" : ""),
    plan && !chat.includes("Updated todo list") && (!verbose || plan.label.includes("0 of 2 done")),
    plan?.label ?? "no plan line",
  );

  const unformatted = toolLines.filter((t) => t.label.includes("[Error formatting tool output]"));
  check(
    "every tool line formatted (no CodeCompanion formatting error)",
    unformatted.length === 0,
    `${unformatted.length} lines`,
  );

  const edit = toolLines.find((t) => /^Edit(ed)?\b.*notes\/new\.txt/.test(t.label));
  const editLabel = verbose ? "Edited notes/new.txt (+1 lines)" : "Edit: notes/new.txt";
  check(
    `the new file's call reads "${editLabel}"`,
    edit?.label === editLabel && edit.status === "completed",
    edit?.label ?? "no line",
  );

  const reads = rpc.filter(
    ({ direction, message }) =>
      direction === "in" &&
      message.method === "fs/read_text_file" &&
      String(message.params?.path).endsWith("notes/new.txt"),
  );
  const note = join(dir, "project", "notes", "new.txt");
  check(
    "the new file is written, and not read through the editor first",
    existsSync(note) && readFileSync(note, "utf8") === "a new note\n" && reads.length === 0,
    `${reads.length} fs/read_text_file of notes/new.txt`,
  );

  const task = toolLines.find((t) => t.label.startsWith("Think: look around the project"));
  check(
    "the subagent is titled by its description" + (verbose ? " and shows its answer" : ""),
    task && (!verbose || task.label.includes("CHILD ANSWER")),
    task?.label ?? "no task line",
  );

  const echo = toolLines.find((t) => t.label.startsWith("Execute: echo hello-from-the-editor"));
  check(
    "the command ran after Accept" + (verbose ? " and shows its output" : ""),
    echo?.status === "completed" && (!verbose || echo.label.includes("hello-from-the-editor [Command succeeded")),
    echo?.label ?? "no command line",
  );
  return checks;
}

let failed = 0;
for (const dir of process.argv.slice(2)) {
  const checks = checkRun(dir);
  const passed = checks.filter((c) => c.ok).length;
  console.log(`${basename(dir)}: ${passed}/${checks.length}`);
  for (const c of checks) console.log(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}${c.detail ? ` -- ${c.detail}` : ""}`);
  failed += checks.length - passed;
}
process.exit(failed === 0 ? 0 : 1);
