// Judges what the real agent-shell showed (run.sh): the shell buffer's text, every JSON-RPC message
// acp.el sent and received (driver.el records them), what the fake model served and the project's
// files. Usage: node check.mjs RUN_DIR (with result/ and project/). Prints one line per check and
// exits 1 if any failed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lastToolCallStatuses, unfinishedCalls } from "../wire-checks.mjs";

// The answers agent-shell shows: a Reject interrupts the turn (agent-shell sends session/cancel
// itself), so the rejected prompt's answer is never asked of the model.
const ANSWERS = ["Ran the echo.", "Wrote the note.", "The helper answered.", "Goodbye from the fake model."];
const WARNING = /nearly reached/g;
// agent-shell's status labels (agent-shell-styles.el) and the kind words it boxes before a title.
const STATUS = { wait: "pending", busy: "in_progress", done: "completed", error: "failed" };
const KIND_WORDS = /^(edit|write|execute|run|read|task|think|delete|move|search|fetch)\b/i;

function traffic(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const entry = JSON.parse(line);
      return { direction: entry.direction, kind: entry.kind, message: JSON.parse(entry.json) };
    });
}

function checkRun(dir) {
  const result = join(dir, "result");
  const buffer = readFileSync(join(result, "buffer.txt"), "utf8");
  const served = JSON.parse(readFileSync(join(result, "requests.json"), "utf8"));
  const wire = traffic(join(result, "traffic.jsonl"));
  const checks = [];
  const check = (name, ok, detail = "") => checks.push({ name, ok: Boolean(ok), detail });

  // Tool call labels: `▶ [done][run] echo ...` (collapsed) or `▼ ...` (expanded).
  const toolLines = buffer
    .split("\n")
    .map((line) => /^[▶▼] \[(wait|busy|done|error)\]\[(\w+)\] (.*)$/.exec(line))
    .filter(Boolean)
    .map((m) => ({ status: STATUS[m[1]], kind: m[2], title: m[3].trim() }));
  const shown = (t) => `[${t.status}][${t.kind}] ${t.title}`;

  const json = buffer.match(/\{"|\[\{|"exitCode"|"subagentType"|"todos"\s*:/g) ?? [];
  check("no raw JSON in the buffer", json.length === 0, json.join(" "));

  // agent-shell shows `<title> <description>` and the kind before both: a title that repeats its
  // description, or starts with a kind's word (`[edit] Write notes/x.txt`), reads twice.
  const repeated = toolLines.filter((t) => {
    const words = t.title.split(/\s+/);
    const half = words.length / 2;
    const doubled =
      Number.isInteger(half) && half > 0 && words.slice(0, half).join(" ") === words.slice(half).join(" ");
    const runs = words.slice(2).map((w, i) => `${words[i]} ${words[i + 1]} ${w}`);
    return doubled || runs.some((r, i) => runs.indexOf(r) !== i) || KIND_WORDS.test(t.title);
  });
  check(
    "no title or description repeated in its label, no kind word before a title",
    toolLines.length >= 5 && repeated.length === 0,
    repeated.map(shown).join(" | ") || `${toolLines.length} labels`,
  );

  const answerCounts = ANSWERS.map((a) => [a, buffer.split(a).length - 1]);
  check(
    "each answer of the model shown once",
    answerCounts.every(([, n]) => n === 1),
    answerCounts.map(([a, n]) => `${a} x${n}`).join(", "),
  );

  const open = toolLines.filter((t) => t.status !== "completed" && t.status !== "failed");
  check(
    "every tool label ends done or error",
    open.length === 0,
    `${toolLines.length} labels: ${toolLines.map(shown).join(" | ")}`,
  );

  const lastStatus = lastToolCallStatuses(wire, (entry) => entry.direction === "incoming");
  const unfinished = unfinishedCalls(lastStatus);
  check(
    "every tool call on the wire reaches completed or failed",
    lastStatus.size >= 5 && unfinished.length === 0,
    `${lastStatus.size} calls; last statuses: ${[...lastStatus.values()].join(", ")}`,
  );

  const answers = wire.filter((e) => e.direction === "outgoing" && e.kind === "response").map((e) => e.message);
  const dialogs = wire.filter((e) => e.direction === "incoming" && e.message.method === "session/request_permission");
  const dialogOf = (command) => dialogs.find((d) => d.message.params.toolCall.rawInput?.command === command)?.message;
  const outcomesOf = (dialog) =>
    dialog
      ? answers.filter((a) => a.id === dialog.id).map((a) => a.result?.outcome?.optionId ?? a.result?.outcome?.outcome)
      : [];
  const cancels = wire.filter((e) => e.direction === "outgoing" && e.message.method === "session/cancel").length;

  const rejected = toolLines.find((t) => t.title.includes("touch rejected.txt"));
  const rejectDialog = dialogOf("touch rejected.txt");
  check(
    "the call rejected with Reject (RET) is shown failed and did not run",
    rejected?.status === "failed" &&
      outcomesOf(rejectDialog)[0] === "reject_once" &&
      !existsSync(join(dir, "project", "rejected.txt")),
    `${rejected ? shown(rejected) : "no label"}; answers sent: ${outcomesOf(rejectDialog).join(", ")}`,
  );

  const refused = toolLines.find((t) => t.title.includes("touch refused-by-cancel.txt"));
  const cancelDialog = dialogOf("touch refused-by-cancel.txt");
  check(
    "the call cancelled with C-c C-c (`cancelled`, then session/cancel) is shown failed, not pending, and did not run",
    refused?.status === "failed" &&
      outcomesOf(cancelDialog).join() === "cancelled" &&
      cancels >= 2 &&
      !existsSync(join(dir, "project", "refused-by-cancel.txt")),
    `${refused ? shown(refused) : "no label"}; answers sent: ${outcomesOf(cancelDialog).join(", ")}; session/cancel x${cancels}`,
  );

  // agent-shell shows each stderr line of the agent as a "Notices" block in the conversation.
  const notices = buffer.split("\n").filter((line, i, lines) => /^[▶▼] Notices$/.test(line) && lines[i + 2]);
  const noticeText = buffer
    .split("\n")
    .map((line, i, lines) => (/^[▶▼] Notices$/.test(line) ? lines[i + 2] : undefined))
    .filter(Boolean);
  check("nothing from the agent's stderr shown as a notice", notices.length === 0, noticeText.join(" | "));

  const warnings = (buffer.match(WARNING) ?? []).length;
  check(
    "the rate-limit warning shown once though every model request carried it",
    warnings === 1 && served.length >= 10,
    `${warnings} warning(s) over ${served.length} model requests with x-ratelimit-reset-requests: 6m0s`,
  );

  const plan = toolLines.find((t) => t.kind === "think" && t.title === "Working on Plan step one");
  check(
    "the plan is titled by its task in progress, with its count and no todo list text",
    plan?.status === "completed" && buffer.includes("0 of 2 done") && !buffer.includes("Updated todo list"),
    plan ? shown(plan) : "no plan label",
  );

  const edit = toolLines.find((t) => t.title.includes("notes/new.txt"));
  const reads = wire.filter(
    (e) =>
      e.direction === "incoming" &&
      e.message.method === "fs/read_text_file" &&
      String(e.message.params?.path).endsWith("notes/new.txt"),
  );
  const note = join(dir, "project", "notes", "new.txt");
  check(
    'the new file\'s call reads "[edit] notes/new.txt", is written and not read through the editor',
    edit?.kind === "edit" &&
      edit.title === "notes/new.txt" &&
      edit.status === "completed" &&
      existsSync(note) &&
      readFileSync(note, "utf8") === "a new note\n" &&
      reads.length === 0,
    `${edit ? shown(edit) : "no label"}; ${reads.length} fs/read_text_file of notes/new.txt`,
  );

  const task = toolLines.find((t) => t.title.startsWith("look around the project"));
  check(
    "the subagent is titled by its description, once, and shows its answer",
    task?.title === "look around the project" && task.status === "completed" && buffer.includes("CHILD ANSWER"),
    task ? shown(task) : "no task label",
  );

  const echo = toolLines.find((t) => t.title === "echo hello-from-the-editor");
  check(
    "the command ran after Allow and shows its output",
    echo?.status === "completed" && buffer.includes("hello-from-the-editor\n\n[Command succeeded with exit code 0]"),
    echo ? shown(echo) : "no command label",
  );

  const setModes = wire.filter((e) => e.direction === "outgoing" && e.message.method === "session/set_mode").length;
  check(
    "the printed config sets no session mode (agent-shell set it a second time)",
    setModes === 0,
    `session/set_mode x${setModes}`,
  );
  return checks;
}

const dir = process.argv[2];
if (!dir) throw new Error("usage: node check.mjs RUN_DIR");
const checks = checkRun(dir);
const passed = checks.filter((c) => c.ok).length;
console.log(`agent-shell: ${passed}/${checks.length}`);
for (const c of checks) console.log(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}${c.detail ? ` -- ${c.detail}` : ""}`);
process.exit(passed === checks.length ? 0 : 1);
