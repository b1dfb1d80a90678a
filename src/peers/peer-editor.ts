import { randomUUID } from "node:crypto";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { runToolCall, type ToolRunEnv } from "../agent/tool-runner.js";
import { backendForCall } from "../backends/paths/approved-targets.js";
import { posix, sep } from "node:path";
import { isWithinAny, relativeWithin } from "../util/path-within.js";
import type { AnyTool, ToolResult } from "../tools/types.js";
import type { PeerSessionHost } from "./peer-connection.js";
import type { PeerDoor } from "./peer-door.js";

// deep-acp as the child's editor for one task: the child's fs/* and terminal/* requests run as our
// own read_file, write_file and execute calls, through the parent session's backend (its workspace,
// a container included) and its gate (file rules, protected paths, remembered answers, dialogs),
// shown in the editor as calls of the child session. What the gate refuses, the child is told it
// may not do. The child's own tools (whatever it does without asking us) are outside all of this.

export type PeerEditorOptions = {
  /** The agent's name: dialogs are titled with it. */
  name: string;
  /** The parent turn's tool environment for this run: tools, context, gate, events (as a subagent's). */
  env: ToolRunEnv;
  door: PeerDoor;
  /** The child's updates, as our events (peer-updates.ts). */
  update(update: acp.SessionUpdate): void;
  errors: PeerWireErrors;
  /**
   * The child works on this machine, in the session's own directory; the session's files may live
   * elsewhere (a container, an SSH host) under another path. Its paths under `local` are served at
   * the same place under `workspace`.
   */
  paths?: { local: string; workspace: string };
};

/** The errors the child gets for what we do not serve (built in acp/errors.ts, injected). */
export type PeerWireErrors = {
  /** Refused: by the gate, the session's mode, or because it cannot be done. */
  refused(message: string): Error;
  /** No such file: ACP's "resource not found", which agents read as ENOENT (a file to create). */
  notFound(path: string): Error;
};

type Terminal = {
  output: string;
  truncated: boolean;
  limit: number | undefined;
  exit?: acp.TerminalExitStatus;
  done: Promise<void>;
  stop: AbortController;
};

export type PeerEditor = PeerSessionHost & {
  /** What a terminal printed, for the child's tool calls that embed it. */
  terminalText(terminalId: string): string | undefined;
  /** Stops every terminal still running (the task ended). */
  close(): void;
};

export function createPeerEditor(options: PeerEditorOptions): PeerEditor {
  const { env } = options;
  const refusal = options.errors.refused;
  const place = (path: string) => workspacePath(path, options.paths);
  const terminals = new Map<string, Terminal>();
  // The child's elicitation ids, made unique in our editor (two children may both count from 1).
  const urlId = (id: string) => `${env.subagentSessionId ?? "peer"}/${id}`;
  const tool = (name: string): AnyTool => {
    const found = env.tools.get(name);
    // Absent in plan mode (no write_file, no execute) or where the session cannot run commands.
    if (!found) throw refusal(`${name} is not available in this session now (its mode or workspace does not offer it)`);
    return found;
  };
  const failed = (result: ToolResult) =>
    result.content
      .map((part) => (part.type === "text" ? part.text : ""))
      .join("\n")
      .replace(/^Error: /, "");

  async function read(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const readTool = tool("read_file");
    const path = place(params.path);
    const input = { file_path: path };
    const toolCallId = env.newToolCallId();
    const context = { ...env.context, toolCallId, signal: env.signal, progress: () => undefined };
    const presentation = readTool.present(input, context);
    const verdict = await env.gate.authorize({
      call: { toolCallId, tool: readTool, input },
      presentation,
      context,
      signal: env.signal,
      ...(env.parentToolCallId ? { parentToolCallId: env.parentToolCallId } : {}),
      ...(env.subagentSessionId ? { subagentSessionId: env.subagentSessionId } : {}),
    });
    if (verdict.action === "cancelled") throw refusal("cancelled");
    if (verdict.action === "refused") throw refusal(verdict.message);
    const raw = await backendForCall(env.context.backend, verdict.approved).readRaw(path);
    if (raw.error && /not found|no such file|ENOENT/i.test(raw.error)) throw options.errors.notFound(params.path);
    if (raw.error || !raw.data) throw refusal(raw.error ?? `cannot read ${params.path}`);
    if (typeof raw.data.content !== "string") throw refusal(`${params.path} is not a text file`);
    return { content: lineWindow(raw.data.content, params.line, params.limit) };
  }

  async function write(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    tool("write_file");
    const toolCallId = env.newToolCallId();
    const ran = await runToolCall(
      env,
      {
        toolCallId,
        name: "write_file",
        input: { file_path: place(params.path), content: params.content },
        modelCallId: toolCallId,
      },
      false,
    );
    if (ran.result.isError) throw refusal(failed(ran.result));
    return {};
  }

  function createTerminal(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    tool("execute");
    const badName = params.env?.find((v) => !ENV_NAME.test(v.name));
    if (badName) throw refusal(`${JSON.stringify(badName.name)} is not a variable name`);
    const cwd = params.cwd ? place(params.cwd) : env.context.cwd;
    if (!isWithinAny(cwd, env.context.roots))
      throw refusal(`the working directory ${cwd} is outside this session's folders`);
    const terminalId = `term-${randomUUID()}`;
    const stop = new AbortController();
    const abort = () => stop.abort();
    env.signal.addEventListener("abort", abort, { once: true });
    const toolCallId = env.newToolCallId();
    const terminal: Terminal = {
      output: "",
      truncated: false,
      limit: params.outputByteLimit ?? undefined,
      stop,
      done: Promise.resolve(),
    };
    const collect = (data: string) => {
      terminal.output += data;
      if (terminal.limit !== undefined && Buffer.byteLength(terminal.output) > terminal.limit) {
        terminal.output = Buffer.from(terminal.output).subarray(-terminal.limit).toString("utf8");
        terminal.truncated = true;
      }
    };
    const commandEnv: ToolRunEnv = {
      ...env,
      signal: stop.signal,
      emit: (event) => {
        if (event.type === "tool_output" && event.toolCallId === toolCallId) collect(event.data);
        env.emit(event);
      },
    };
    // The child's folder goes into the line itself, not only into where it runs: the dialog shows the
    // command line, and a folder inside the project may be a link to anywhere (the gate judges the cd too).
    const command = cwd === env.context.cwd ? commandLine(params) : `cd ${shellQuote(cwd)} && ${commandLine(params)}`;
    terminal.done = runToolCall(
      commandEnv,
      { toolCallId, name: "execute", input: { command }, modelCallId: toolCallId },
      false,
    )
      .then((ran) => {
        const raw = ran.result.rawOutput as { exitCode?: number | null; signal?: string | null } | undefined;
        if (!raw) {
          // Refused by the gate, or it never started: the child sees why as the output and a failure.
          if (!terminal.output) collect(failed(ran.result));
          terminal.exit = { exitCode: 1, signal: null };
          return;
        }
        if (!terminal.output) collect(editorTerminalText(ran.result));
        terminal.exit = { exitCode: raw.exitCode ?? null, signal: raw.signal ?? null };
      })
      .finally(() => env.signal.removeEventListener("abort", abort));
    terminals.set(terminalId, terminal);
    return Promise.resolve({ terminalId });
  }

  const terminalOf = (terminalId: string) => {
    const terminal = terminals.get(terminalId);
    if (!terminal) throw refusal(`no terminal ${terminalId}`);
    return terminal;
  };

  return {
    update: options.update,
    requestPermission: (params) => options.door(params),
    readTextFile: read,
    writeTextFile: write,
    createTerminal,
    async terminalOutput(params) {
      const t = terminalOf(params.terminalId);
      return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
    },
    async waitForTerminalExit(params) {
      const t = terminalOf(params.terminalId);
      await t.done;
      return t.exit ?? { exitCode: null, signal: null };
    },
    async killTerminal(params) {
      terminalOf(params.terminalId).stop.abort();
      return {};
    },
    async releaseTerminal(params) {
      terminals.get(params.terminalId)?.stop.abort();
      terminals.delete(params.terminalId);
      return {};
    },
    async createElicitation(params) {
      // A form the child wants filled, or a page it wants opened (a sign-in): shown by the session's
      // questioner at its door (as an MCP server's are), titled with the child's name. Other modes,
      // and URLs for an editor that cannot open them (the child was not told it could), are declined.
      const questioner = env.questioner;
      if (params.mode === "url" && "url" in params) {
        if (!questioner?.urls || !questioner.openUrl) return { action: "decline" };
        const answer = await questioner.openUrl(
          {
            message: `${options.name}: ${params.message}`,
            url: String(params.url),
            elicitationId: urlId(String(params.elicitationId)),
          },
          env.signal,
        );
        return { action: answer === "accept" ? "accept" : answer === "cancel" ? "cancel" : "decline" };
      }
      if (params.mode !== "form" || !questioner?.forms || !("requestedSchema" in params)) return { action: "decline" };
      const answer = await questioner.form(
        { message: `${options.name}: ${params.message}`, schema: params.requestedSchema as Record<string, unknown> },
        env.parentToolCallId ? { toolCallId: env.parentToolCallId } : {},
        env.signal,
      );
      if (answer.action === "accept")
        return { action: "accept", content: answer.content as acp.ElicitationAcceptAction["content"] };
      return { action: answer.action === "cancel" ? "cancel" : "decline" };
    },
    completeElicitation(params) {
      env.questioner?.urlDone?.(urlId(params.elicitationId));
    },
    terminalText: (terminalId) => terminals.get(terminalId)?.output,
    close() {
      for (const t of terminals.values()) t.stop.abort();
    },
  };
}

/** Where a path of the child's (on this machine) is in the session's workspace. */
export function workspacePath(path: string, paths: PeerEditorOptions["paths"]): string {
  if (!paths || paths.local === paths.workspace) return path;
  const rel = relativeWithin(paths.local, path);
  return rel === undefined ? path : rel === "" ? paths.workspace : posix.join(paths.workspace, ...rel.split(sep));
}

/** The lines `line` (1-based) to `line + limit - 1` of `text`, as an editor answers fs/read_text_file. */
function lineWindow(text: string, line: number | null | undefined, limit: number | null | undefined): string {
  if (!line && !limit) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit ? start + limit : undefined).join("\n");
}

/** What `NAME=value` in a shell line sets; any other "name" would be read as words of the command. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The child's command as one shell line for our execute (and the gate's command rules). */
export function commandLine(params: Pick<acp.CreateTerminalRequest, "command" | "args" | "env">): string {
  const assignments = (params.env ?? []).map((v) => `${v.name}=${shellQuote(v.value)}`);
  const args = params.args ?? [];
  // `bash -c SCRIPT` (what most agents send): our execute runs a shell line already, and the gate
  // should judge the script itself, not a shell that runs something.
  if (args.length === 2 && args[0] === "-c" && /(^|\/)(ba|da|z)?sh$/.test(params.command))
    return [...assignments, args[1]!].join(" ");
  return [...assignments, params.command, ...args.map(shellQuote)].join(" ");
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command whose output was captured (not streamed) reports it as its result text. */
function editorTerminalText(result: ToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}
