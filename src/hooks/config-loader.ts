import { createHash } from "node:crypto";
import { readFile as fsReadFile } from "node:fs/promises";
import { errorMessage } from "../util/errors.js";
import { HOOK_EVENTS, HOOK_EVENT_NAMES, isHookEventName, type HookEventName } from "./events.js";
import { compileMatcher, isWildcard } from "./matcher.js";
import {
  HOOK_SCOPE_RANK,
  type HookDiagnostic,
  type HookHandlerConfig,
  type HookItem,
  type HookSource,
} from "./types.js";

// hooks.json: {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", ...}]}]}}.
// Every problem is reported with its JSON path and only the broken entry is skipped; unknown keys
// are ignored so a Claude Code settings file's other sections do no harm.

/** What was found for one source, for trust decisions, `/hooks` and `deep-acp doctor`. */
export type HookFileInfo = {
  scope: HookSource["scope"];
  file: string;
  pluginId?: string;
  exists: boolean;
  /** SHA-256 (hex) of the bytes that were parsed; absent when the file does not exist or is inline. */
  sha256?: string;
  itemCount: number;
};

export type LoadedHooks = {
  /** Sorted by precedence: project, user, plugin; config order within each. */
  items: HookItem[];
  diagnostics: HookDiagnostic[];
  files: HookFileInfo[];
};

export type LoadHooksOptions = {
  /** Default: fs.promises.readFile. */
  readFile?: (path: string) => Promise<Uint8Array>;
};

/** Reads and validates every source; never throws on bad or missing files. */
export async function loadHooksConfig(
  sources: readonly HookSource[],
  options: LoadHooksOptions = {},
): Promise<LoadedHooks> {
  const read = options.readFile ?? fsReadFile;
  const items: HookItem[] = [];
  const diagnostics: HookDiagnostic[] = [];
  const files: HookFileInfo[] = [];
  for (const source of sources) {
    const info: HookFileInfo = { scope: source.scope, file: source.file, exists: true, itemCount: 0 };
    if (source.pluginId !== undefined) info.pluginId = source.pluginId;
    files.push(info);
    let value: unknown = source.content;
    if (source.content === undefined) {
      let bytes: Uint8Array;
      try {
        bytes = await read(source.file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") {
          info.exists = false;
          continue;
        }
        diagnostics.push(configError(source, "read_failed", `cannot read: ${errorMessage(error)}`));
        continue;
      }
      info.sha256 = sha256Hex(bytes);
      const text = Buffer.from(bytes).toString("utf8");
      if (text.trim() === "") continue;
      try {
        value = JSON.parse(text);
      } catch (error) {
        diagnostics.push(configError(source, "invalid_config", `invalid JSON: ${errorMessage(error)}`));
        continue;
      }
    }
    const parsed = parseHooksConfig(source, value, items.length);
    info.itemCount = parsed.items.length;
    items.push(...parsed.items);
    diagnostics.push(...parsed.diagnostics);
  }
  items.sort((a, b) => HOOK_SCOPE_RANK[a.source.scope] - HOOK_SCOPE_RANK[b.source.scope] || a.order - b.order);
  return { items, diagnostics, files };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Validates one parsed hooks.json value. `firstOrder` numbers the items after earlier sources. */
export function parseHooksConfig(
  source: HookSource,
  value: unknown,
  firstOrder = 0,
): { items: HookItem[]; diagnostics: HookDiagnostic[] } {
  const items: HookItem[] = [];
  const diagnostics: HookDiagnostic[] = [];
  const fail = (path: string, message: string, severity: HookDiagnostic["severity"] = "error") =>
    diagnostics.push(configError(source, "invalid_config", `${path}: ${message}`, severity));

  if (!isRecord(value)) {
    fail("(root)", `expected an object like {"hooks": {"PreToolUse": [...]}}, got ${describeType(value)}`);
    return { items, diagnostics };
  }
  const hooks = value.hooks;
  if (hooks === undefined) {
    fail("(root)", `no "hooks" object; nothing loaded`, "warning");
    return { items, diagnostics };
  }
  if (Array.isArray(hooks)) {
    fail(
      "hooks",
      `the legacy list format is not supported; use {"hooks": {"<Event>": [{"matcher": "...", "hooks": [...]}]}}`,
    );
    return { items, diagnostics };
  }
  if (!isRecord(hooks)) {
    fail("hooks", `expected an object keyed by event name, got ${describeType(hooks)}`);
    return { items, diagnostics };
  }

  for (const [eventKey, groups] of Object.entries(hooks)) {
    const eventPath = `hooks.${eventKey}`;
    if (!isHookEventName(eventKey)) {
      const hint = HOOK_EVENT_NAMES.find((name) => name.toLowerCase() === eventKey.toLowerCase());
      fail(
        eventPath,
        `unknown event${hint ? ` (did you mean ${hint}?)` : `; known: ${HOOK_EVENT_NAMES.join(", ")}`}`,
        "warning",
      );
      continue;
    }
    if (!Array.isArray(groups)) {
      fail(eventPath, `expected a list of matcher groups, got ${describeType(groups)}`);
      continue;
    }
    groups.forEach((group, groupIndex) => {
      const groupPath = `${eventPath}[${groupIndex}]`;
      if (!isRecord(group))
        return fail(groupPath, `expected an object with "matcher" and "hooks", got ${describeType(group)}`);
      const rawMatcher = group.matcher;
      if (rawMatcher !== undefined && typeof rawMatcher !== "string") {
        return fail(`${groupPath}.matcher`, `expected a string, got ${describeType(rawMatcher)}`);
      }
      const compiled = compileMatcher(rawMatcher);
      if (!compiled.ok) {
        diagnostics.push(
          configError(source, "invalid_matcher", `${groupPath}.matcher: invalid regular expression: ${compiled.error}`),
        );
        return;
      }
      if (HOOK_EVENTS[eventKey].matcherField === null && !isWildcard(compiled.matcher)) {
        diagnostics.push(
          configError(
            source,
            "invalid_matcher",
            `${groupPath}.matcher: ${eventKey} takes no matcher; use "" or "*" or leave it out`,
          ),
        );
        return;
      }
      const handlers = group.hooks;
      if (!Array.isArray(handlers))
        return fail(`${groupPath}.hooks`, `expected a list of hooks, got ${describeType(handlers)}`);
      handlers.forEach((raw, handlerIndex) => {
        const path = `${groupPath}.hooks[${handlerIndex}]`;
        const handler = parseHandler(raw, (message) => fail(path, message));
        if (!handler) return;
        const order = firstOrder + items.length;
        items.push({
          id: `${source.scope}:${source.file}#${path}`,
          event: eventKey as HookEventName,
          matcher: compiled.matcher,
          handler,
          source,
          path,
          order,
        });
      });
    });
  }
  return { items, diagnostics };
}

const UNSUPPORTED_TYPES = new Set(["http", "prompt", "agent", "mcp_tool"]);

function parseHandler(raw: unknown, fail: (message: string) => void): HookHandlerConfig | undefined {
  if (!isRecord(raw)) return void fail(`expected a {"type": "command", ...} object, got ${describeType(raw)}`);
  if (raw.type !== "command") {
    const type = typeof raw.type === "string" ? raw.type : undefined;
    if (type !== undefined && UNSUPPORTED_TYPES.has(type))
      return void fail(`handler type "${type}" is not supported; only "command" is`);
    return void fail(
      `"type" must be "command", got ${type === undefined ? describeType(raw.type) : JSON.stringify(type)}`,
    );
  }
  if (raw.async === true) return void fail(`"async": true is not supported; hooks run synchronously`);
  const handler: HookHandlerConfig = {};
  if (raw.command !== undefined) {
    if (typeof raw.command !== "string" || raw.command.trim() === "")
      return void fail(`"command" must be a non-empty string`);
    handler.command = raw.command;
  }
  if (raw.argv !== undefined) {
    const argv = raw.argv;
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((arg) => typeof arg === "string")) {
      return void fail(`"argv" must be a non-empty list of strings`);
    }
    if (argv[0] === "") return void fail(`"argv[0]" (the program) must not be empty`);
    handler.argv = [...argv];
  }
  if (handler.command === undefined && handler.argv === undefined)
    return void fail(`needs "command" (shell) or "argv" (no shell)`);
  if (raw.timeout !== undefined) {
    if (typeof raw.timeout !== "number" || !Number.isFinite(raw.timeout) || raw.timeout <= 0) {
      return void fail(`"timeout" must be a number of seconds > 0`);
    }
    handler.timeoutSec = raw.timeout;
  }
  if (raw.statusMessage !== undefined) {
    if (typeof raw.statusMessage !== "string") return void fail(`"statusMessage" must be a string`);
    if (raw.statusMessage.trim() !== "") handler.statusMessage = raw.statusMessage;
  }
  return handler;
}

/** Label for a handler in diagnostics and listings. */
export function hookLabel(handler: HookHandlerConfig): string {
  if (handler.argv) return handler.argv.map(shellQuoteForDisplay).join(" ");
  return handler.command ?? "";
}

function shellQuoteForDisplay(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function configError(
  source: HookSource,
  code: HookDiagnostic["code"],
  message: string,
  severity: HookDiagnostic["severity"] = "error",
): HookDiagnostic {
  return { severity, source: source.file, code, message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}
