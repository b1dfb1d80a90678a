import type { CliOptions } from "../args/args.js";
import { createServices } from "../services/services.js";
import {
  restoreSession,
  type SessionRecord,
  SessionNotFoundError,
  InvalidSessionIdError,
} from "../../transcript/index.js";
import type { Logger } from "../../util/logger.js";
import { terminalSafeIo } from "../../util/terminal-text.js";

export type SessionsIo = { stdout: (text: string) => void; stderr: (text: string) => void };
const defaultIo: SessionsIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};

/** `deep-acp sessions list [--json] | show ID | delete ID` */
export async function runSessionsCommand(
  cli: CliOptions,
  args: string[],
  logger: Logger,
  io: SessionsIo = defaultIo,
  cwd = process.cwd(),
): Promise<number> {
  // Titles, paths and transcripts hold whatever the model and the project put there.
  io = terminalSafeIo(io);
  const services = createServices({ cli, env: process.env, logger });
  const store = services.sessions;
  const [action, id] = args;
  try {
    switch (action) {
      case undefined:
      case "list": {
        const sessions = [];
        let cursor: string | undefined;
        do {
          const page = await store.list({ ...(cli.project ? { cwd } : {}), ...(cursor ? { cursor } : {}), limit: 200 });
          sessions.push(...page.sessions);
          cursor = page.nextCursor;
        } while (cursor);
        if (cli.json) io.stdout(JSON.stringify(sessions, null, 2) + "\n");
        else if (sessions.length === 0) io.stdout("No sessions.\n");
        else for (const s of sessions) io.stdout(`${s.id}  ${s.updatedAt}  ${s.cwd}  ${s.title ?? "(untitled)"}\n`);
        return 0;
      }
      case "show": {
        if (!id) return usage(io);
        const { meta, records, diagnostics } = await store.read(id);
        const restored = restoreSession(records as unknown as SessionRecord[]);
        io.stdout(`# ${meta.title ?? "(untitled)"}\n${meta.cwd} · updated ${meta.updatedAt}\n\n`);
        let last = "";
        for (const item of restored.replay) {
          if (item.type === "user")
            io.stdout(
              `\n## User\n${item.blocks.map((b) => (b.type === "text" ? b.text : b.type === "file" ? `@${b.path}` : "")).join("")}\n`,
            );
          else if (item.type === "message_chunk")
            io.stdout((last === "message_chunk" ? "" : "\n## Agent\n") + item.text);
          else if (item.type === "tool_call") io.stdout(`\n- ${item.title}`);
          else if (item.type === "tool_call_update" && item.status) io.stdout(` (${item.status})`);
          last = item.type;
        }
        io.stdout("\n");
        for (const d of diagnostics) io.stderr(`deep-acp: ${d.message}\n`);
        return 0;
      }
      case "delete": {
        if (!id) return usage(io);
        await store.delete(id);
        // Its saved plan goes too, and its container (if it had one).
        const { removePlanDocument, removeSessionWorkspace } = await import("../../session/index.js");
        await removePlanDocument(services.paths.plansDir, id);
        try {
          await removeSessionWorkspace(services.paths, id);
        } catch (error) {
          io.stderr(`deep-acp: the session's container was not removed: ${(error as Error).message}\n`);
        }
        io.stdout(`Deleted ${id}.\n`);
        return 0;
      }
      default:
        return usage(io);
    }
  } catch (error) {
    if (error instanceof SessionNotFoundError || error instanceof InvalidSessionIdError) {
      io.stderr(`deep-acp: no session ${id}\n`);
      return 1;
    }
    throw error;
  }
}

function usage(io: SessionsIo): number {
  io.stderr("Usage: deep-acp sessions list [--json] [--project] | show ID | delete ID\n");
  return 2;
}
