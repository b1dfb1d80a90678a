import type { Approver } from "../gate/door/approver.js";
import { createSession, type SessionSource, type Session, type SessionEvent } from "../session/index.js";
import { createCommandTable, dispatchPrompt } from "../commands/index.js";
import type { Logger } from "../util/logger.js";
import { terminalSafeIo } from "../util/terminal-text.js";
import type { CliOptions } from "./args/args.js";
import { createServices } from "./services/services.js";
import { createStdinQuestioner } from "./stdin-questions.js";

export type HeadlessIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
};

const defaultIo: HeadlessIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/**
 * `deep-acp -n "PROMPT"`: one turn in the current directory with the same agent the editor gets.
 * The answer streams to stdout, tool activity to stderr. Without --yes anything that would ask is
 * refused. Exit code 0 when the turn ends normally, 1 otherwise.
 */
export async function runHeadless(
  cli: CliOptions,
  logger: Logger,
  io: HeadlessIo = defaultIo,
  cwd = process.cwd(),
): Promise<number> {
  // Titles, file names and reports always go out escaped; the answer only on a terminal (in a pipe
  // it is the data the caller asked for).
  io = terminalSafeIo(io, { rawStdout: io === defaultIo && process.stdout.isTTY !== true });
  const services = createServices({ cli, env: process.env, logger });
  const resolved = await services.models.resolveDefault();
  if ("error" in resolved) {
    io.stderr(`deep-acp: ${resolved.error}\n`);
    return 1;
  }
  // --yes approves everything that would ask; without it the question is refused with a hint.
  const approver: Approver = cli.yes
    ? { requestApproval: async () => "allow_once" }
    : {
        async requestApproval(request) {
          io.stderr(
            `deep-acp: refused "${request.title}" (${request.reason}); it needs approval: rerun with --yes to allow\n`,
          );
          return "unattended";
        },
      };
  let source: SessionSource = { kind: "new", cwd, modelSpec: resolved.spec };
  if (cli.resume !== undefined) {
    const id = cli.resume || (await services.sessions.list({ cwd, limit: 1 })).sessions[0]?.id;
    if (!id) {
      io.stderr(`deep-acp: no session to resume in ${cwd}\n`);
      return 1;
    }
    source = { kind: "open", id, cwd };
  }
  const questioner = createStdinQuestioner(process.stdin, io.stderr);
  let session: Session;
  try {
    session = (await createSession(services, source, () => ({ approver, questioner }))).session;
  } catch (error) {
    const what = source.kind === "open" ? `resume session ${source.id}` : "start a session";
    io.stderr(`deep-acp: cannot ${what}: ${(error as Error).message}\n`);
    return 1;
  }
  if (source.kind === "open") io.stderr(`deep-acp: resuming session ${source.id}\n`);
  const interrupt = () => session.cancel();
  process.once("SIGINT", interrupt);
  let endsWithNewline = true;
  const show = (event: SessionEvent) => {
    const text = describe(event);
    if (text.stdout) {
      io.stdout(text.stdout);
      endsWithNewline = text.stdout.endsWith("\n");
    }
    if (text.stderr) io.stderr(text.stderr);
  };
  try {
    // The same dispatch as the editor's: `/context`, `/cost`, `/compact`, `/skill:x` run here too.
    const context = { events: show, refreshCommands: async () => undefined };
    const blocks = [{ type: "text" as const, text: cli.prompt ?? "" }];
    const dispatched = await dispatchPrompt(session, blocks, createCommandTable(), context);
    if (dispatched.kind === "reply") {
      if (dispatched.text) io.stdout(dispatched.text.endsWith("\n") ? dispatched.text : `${dispatched.text}\n`);
      if (dispatched.stopReason !== "end_turn") io.stderr(`deep-acp: command ended: ${dispatched.stopReason}\n`);
      return dispatched.stopReason === "end_turn" ? 0 : 1;
    }
    const result = await session.prompt(dispatched.blocks, show);
    if (!endsWithNewline) io.stdout("\n");
    if (result.error) io.stderr(`deep-acp: ${result.error}\n`);
    else if (result.stopReason !== "end_turn") io.stderr(`deep-acp: turn ended: ${result.stopReason}\n`);
    let applied = true;
    if (cli.apply && result.stopReason === "end_turn" && !result.error) {
      // --apply is the consent for the ordinary changes; protected paths and conflicts are only listed.
      const report = await session.applyWorkspaceChanges(() => undefined, { headless: true });
      io.stderr(`deep-acp: --apply:\n${report.text}\n`);
      applied = report.failed.length === 0 && report.stopReason === "end_turn";
    }
    return result.stopReason === "end_turn" && !result.error && applied ? 0 : 1;
  } finally {
    process.removeListener("SIGINT", interrupt);
    questioner.close();
    await session.close();
  }
}

function describe(event: SessionEvent): { stdout?: string; stderr?: string } {
  switch (event.type) {
    // A subagent's tool calls show as the parent's; its text is the parent's to report.
    case "subagent_event":
      return ["message_chunk", "thought_chunk", "plan", "usage"].includes(event.event.type)
        ? {}
        : describe(event.event);
    case "message_chunk":
      return { stdout: event.text };
    case "tool_call":
      return event.rawInput && Object.keys(event.rawInput as object).length > 0 ? { stderr: `● ${event.title}\n` } : {};
    case "tool_call_update":
      if (event.title) return { stderr: `● ${event.title}\n` };
      if (event.status === "failed") {
        const first = event.content?.find((c) => c.type === "text");
        return { stderr: `  ✗ ${first && first.type === "text" ? first.text.split("\n")[0] : "failed"}\n` };
      }
      return {};
    case "tool_output":
      return { stderr: event.data };
    case "plan":
      return {
        stderr: event.entries
          .map((e) => `  [${e.status === "completed" ? "x" : e.status === "in_progress" ? "~" : " "}] ${e.content}\n`)
          .join(""),
      };
    case "notice":
      return { stderr: `deep-acp: ${event.title}${event.description ? `: ${event.description}` : ""}\n` };
    default:
      return {};
  }
}
