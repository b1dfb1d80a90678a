import { readFile } from "node:fs/promises";
import { join } from "node:path";

// Reads the launch command out of every file in editors/. JSON is parsed; Lua and Emacs Lisp are
// checked for balanced brackets (outside strings and comments) and the command is taken by pattern.

export const EDITORS_DIR = join(import.meta.dirname, "..", "..", "..", "editors");

export type EditorLaunch = {
  editor: string;
  /** Path relative to editors/. */
  file: string;
  command: string;
  args: string[];
  /** Environment the editor adds, when the config has a literal map. */
  env?: Record<string, string>;
};

type Extractor = { editor: string; file: string; extract(text: string): Omit<EditorLaunch, "editor" | "file"> };

export const EDITOR_CONFIGS: Extractor[] = [
  {
    editor: "Zed",
    file: "zed/settings.json",
    extract: (text) => jsonEntry(JSON.parse(text).agent_servers["deep-acp"]),
  },
  {
    editor: "JetBrains",
    file: "jetbrains/acp.json",
    extract: (text) => jsonEntry(JSON.parse(text).agent_servers["deep-acp"]),
  },
  {
    editor: "VS Code",
    file: "vscode/settings.json",
    extract: (text) => jsonEntry(JSON.parse(text)["acp.agents"]["deep-acp"]),
  },
  {
    editor: "Neovim CodeCompanion",
    file: "neovim/codecompanion.lua",
    extract: (text) => {
      const code = withoutLuaComments(text);
      checkBalanced(blankStrings(code), "{}()[]");
      const [command, ...args] = luaStrings(
        match(code, /commands\s*=\s*\{\s*default\s*=\s*\{([^}]*)\}/, "commands.default"),
      );
      if (command === undefined) throw new Error("commands.default is empty");
      return { command, args };
    },
  },
  {
    editor: "Neovim avante",
    file: "neovim/avante.lua",
    extract: (text) => {
      const code = withoutLuaComments(text);
      checkBalanced(blankStrings(code), "{}()[]");
      // The first command/args after the provider's key are its own (env is a map, not a list).
      const entry = match(
        code,
        /acp_providers\s*=\s*\{\s*\["deep-acp"\]\s*=\s*\{([\s\S]*)/,
        `acp_providers["deep-acp"]`,
      );
      return {
        command: luaStrings(match(entry, /\bcommand\s*=\s*("[^"]*")/, "command"))[0]!,
        args: luaStrings(match(entry, /\bargs\s*=\s*\{([^}]*)\}/, "args")),
      };
    },
  },
  {
    editor: "Emacs agent-shell",
    file: "emacs/agent-shell.el",
    extract: (text) => {
      const code = withoutLispComments(text);
      checkBalanced(
        code.replace(/"(?:[^"\\]|\\.)*"|\?\\?./g, (m) => (m.startsWith('"') ? '""' : "?")),
        "()[]",
      );
      const command = lispStrings(match(code, /:command\s+("[^"]*")/, ":command"))[0]!;
      return { command, args: lispStrings(match(code, /:command-params\s+'\(([^)]*)\)/, ":command-params")) };
    },
  },
];

export async function readEditorLaunches(): Promise<EditorLaunch[]> {
  return Promise.all(
    EDITOR_CONFIGS.map(async ({ editor, file, extract }) => {
      const text = await readFile(join(EDITORS_DIR, file), "utf8");
      try {
        return { editor, file, ...extract(text) };
      } catch (error) {
        throw new Error(`${file}: ${(error as Error).message}`);
      }
    }),
  );
}

function jsonEntry(entry: { command: unknown; args?: unknown; env?: unknown }): Omit<EditorLaunch, "editor" | "file"> {
  if (typeof entry.command !== "string") throw new Error("command is not a string");
  const args = entry.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string"))
    throw new Error("args is not a list of strings");
  const env = entry.env ?? {};
  if (typeof env !== "object" || env === null || !Object.values(env).every((v) => typeof v === "string"))
    throw new Error("env is not a string map");
  return { command: entry.command, args, env: env as Record<string, string> };
}

function match(text: string, pattern: RegExp, what: string): string {
  const found = pattern.exec(text);
  // An empty list (`args = {}`) is found; a missing one is not.
  if (found?.[1] === undefined) throw new Error(`cannot find ${what}`);
  return found[1];
}

/** Double-quoted Lua strings of a list body; anything else in the list is an error. */
function luaStrings(body: string): string[] {
  const items = body
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.map((item) => {
    const literal = /^"((?:[^"\\]|\\.)*)"$/.exec(item);
    if (!literal) throw new Error(`not a string literal: ${item}`);
    return literal[1]!;
  });
}

function lispStrings(body: string): string[] {
  const items = body.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
  return items.map((item) => {
    if (!item.startsWith('"')) throw new Error(`not a string literal: ${item}`);
    return item.slice(1, -1);
  });
}

/** Comments removed, strings kept (a comment marker inside a string is not a comment). */
function withoutLuaComments(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|--\[\[[\s\S]*?\]\]|--[^\n]*/g, (m) =>
    m.startsWith("--") ? "" : m,
  );
}

/** Also skips character literals (`?;`, `?\(`), which would otherwise read as comments or brackets. */
function withoutLispComments(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|\?\\?.|;[^\n]*/g, (m) => (m.startsWith(";") ? "" : m));
}

/** Lua string contents emptied, so brackets inside strings do not count. */
function blankStrings(code: string): string {
  return code.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
}

function checkBalanced(text: string, pairs: string): void {
  const stack: string[] = [];
  for (const [index, char] of [...text].entries()) {
    const open = pairs.indexOf(char);
    if (open === -1) continue;
    if (open % 2 === 0) stack.push(pairs[open + 1]!);
    else if (stack.pop() !== char) throw new Error(`unbalanced "${char}" at offset ${index}`);
  }
  if (stack.length > 0) throw new Error(`unclosed bracket, expected "${stack.at(-1)}"`);
}
