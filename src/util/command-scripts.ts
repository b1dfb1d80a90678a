import { isAbsolute, resolve } from "node:path";

// Which files a command runs, read from the command line alone (nothing is run): the program when it
// is a path, the script an interpreter is given (past its flags; `-r`/`--require`/`--import` modules
// too), scripts inside `sh -c '...'` strings, each resolved against the folder `cd` moved to, and
// every other word naming a file. What cannot be read off the line (a package fetched at start by
// npx, shell expansion, inline code that loads more) is said in `undetermined`, so a trust dialog
// can say that an approval covers the definition only. Used by hook and MCP trust, which then hash
// the project files found.

export type CommandFiles = {
  /** Absolute paths the command may run or load (existing or not: the caller checks). */
  candidates: string[];
  /** Why the files it runs cannot all be told from the command line, one phrase each. */
  undetermined: string[];
};

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh"]);
const PASS_THROUGH = new Set(["exec", "command", "nohup", "env", "time", "nice", "setsid", "stdbuf", "builtin"]);
const FETCHERS = new Set(["npx", "pnpx", "bunx", "uvx", "pipx", "dlx", "yarn", "pnpm", "npm", "bun", "deno", "docker"]);
/** Interpreters: the first word that is not a flag is the script. Flags that take a value are listed. */
const INTERPRETERS: Record<string, { valueFlags: RegExp; moduleFlags: RegExp; codeFlags: RegExp }> = {
  node: {
    valueFlags: /^(-r|--require|--import|--loader|--experimental-loader|--env-file|--conditions|-C|--title)$/,
    moduleFlags: /^(-r|--require|--import|--loader|--experimental-loader|--env-file)$/,
    codeFlags: /^(-e|--eval|-p|--print)$/,
  },
  python: { valueFlags: /^(-W|-X|-Q)$/, moduleFlags: /^$/, codeFlags: /^-c$/ },
  ruby: { valueFlags: /^(-I|-r|-C)$/, moduleFlags: /^-r$/, codeFlags: /^-e$/ },
  perl: { valueFlags: /^(-I|-M|-m)$/, moduleFlags: /^$/, codeFlags: /^(-e|-E)$/ },
  php: { valueFlags: /^(-c|-d)$/, moduleFlags: /^$/, codeFlags: /^-r$/ },
  tsx: {
    valueFlags: /^(--tsconfig|-r|--require|--import)$/,
    moduleFlags: /^(-r|--require|--import)$/,
    codeFlags: /^(-e|--eval|-p|--print)$/,
  },
};
const INTERPRETER_ALIASES: Record<string, string> = {
  nodejs: "node",
  "ts-node": "tsx",
  python2: "python",
  python3: "python",
  pypy: "python",
  pypy3: "python",
};

/** The files `command` (a shell string, or an argv without a shell) runs or loads, run from `cwd`. */
export function commandFiles(command: { command?: string; argv?: string[] }, cwd: string): CommandFiles {
  const out: CommandFiles = { candidates: [], undetermined: [] };
  if (command.argv) simpleCommand(command.argv, cwd, out, 0);
  else shellLine(command.command ?? "", cwd, out, 0);
  out.candidates = [...new Set(out.candidates)];
  out.undetermined = [...new Set(out.undetermined)];
  return out;
}

function shellLine(text: string, cwd: string, out: CommandFiles, depth: number): void {
  if (depth > 4) return void out.undetermined.push("shell commands nested too deep to follow");
  if (/\$[({A-Za-z_]|`/.test(text)) out.undetermined.push("it uses shell expansion ($VAR, $(...))");
  let dir = cwd;
  for (const words of splitCommands(text)) {
    if (words[0] === "cd") {
      const target = words[1];
      if (!target || target === "-" || target.includes("$")) {
        out.undetermined.push("it changes to a folder named at run time");
        continue;
      }
      dir = resolve(dir, target);
      continue;
    }
    simpleCommand(words, dir, out, depth);
  }
}

function simpleCommand(input: readonly string[], cwd: string, out: CommandFiles, depth: number): void {
  const words = [...input];
  // Assignments and programs that run the rest of the line as a command.
  while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!) || PASS_THROUGH.has(words[0]!))) {
    const first = words.shift()!;
    if (first === "env" && words[0]?.startsWith("-S")) out.undetermined.push("env -S splits a string at run time");
    while (first === "env" && words[0]?.startsWith("-")) words.shift();
  }
  if (words.length === 0) return;
  const program = words[0]!;
  const name = program.split("/").pop()!;
  const path = (word: string) => (isAbsolute(word) ? resolve(word) : resolve(cwd, word));
  if (program.includes("/")) out.candidates.push(path(program));
  if (SHELLS.has(name)) {
    const c = words.indexOf("-c");
    if (c !== -1 && words[c + 1] !== undefined) return shellLine(words[c + 1]!, cwd, out, depth + 1);
    const script = words.slice(1).find((w) => !w.startsWith("-"));
    if (script) out.candidates.push(path(script));
    else out.undetermined.push(`${name} reads its commands from its input`);
    return;
  }
  if (FETCHERS.has(name)) {
    out.undetermined.push(
      `\`${[name, ...words.slice(1, 3)].join(" ")}\` runs a package or script resolved when it starts`,
    );
  }
  const interpreter = INTERPRETERS[INTERPRETER_ALIASES[name] ?? name.replace(/[\d.]+$/, "")];
  if (interpreter) {
    for (let i = 1; i < words.length; i++) {
      const word = words[i]!;
      if (interpreter.codeFlags.test(word)) {
        out.undetermined.push(`${name} runs inline code, which may load other files`);
        i++;
        continue;
      }
      if (word === "-m") {
        out.undetermined.push(`${name} -m runs a module found on its search path`);
        break;
      }
      if (interpreter.valueFlags.test(word)) {
        if (interpreter.moduleFlags.test(word) && words[i + 1]) out.candidates.push(path(words[i + 1]!));
        i++;
        continue;
      }
      const glued = /^(--require|--import|--loader|-r)=(.+)$/.exec(word);
      if (glued) out.candidates.push(path(glued[2]!));
      if (word.startsWith("-")) continue;
      out.candidates.push(path(word));
      break;
    }
  }
  // Any other word naming a file (a config file passed as an argument, `--config=./x`).
  for (const word of words.slice(1)) {
    const value = word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
    if (value && !value.startsWith("-") && /[./]/.test(value) && !/^[a-z][a-z0-9+.-]*:/i.test(value))
      out.candidates.push(path(value));
  }
}

/** Simple commands of a line: words split like a shell (quotes group, operators separate). */
export function splitCommands(text: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let current = "";
  let started = false;
  let quote: string | null = null;
  // The word after a redirection is a file the command reads or writes, not one it runs.
  let redirectTarget = false;
  const endWord = () => {
    if (started && !redirectTarget) words.push(current);
    if (started) redirectTarget = false;
    current = "";
    started = false;
  };
  const endCommand = () => {
    endWord();
    redirectTarget = false;
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === "\\" && i + 1 < text.length) {
      current += text[++i];
      started = true;
    } else if (ch === "<" || ch === ">") {
      if (/^\d+$/.test(current)) [current, started] = ["", false];
      endWord();
      while (text[i + 1] === ">" || text[i + 1] === "<" || text[i + 1] === "&" || text[i + 1] === "|") i++;
      // `2>&1`: a descriptor, not a file.
      if (text[i] === "&" && /\d/.test(text[i + 1] ?? "")) while (/\d/.test(text[i + 1] ?? "")) i++;
      else redirectTarget = true;
    } else if (/[;&|\n()]/.test(ch)) endCommand();
    else if (/\s/.test(ch)) endWord();
    else {
      current += ch;
      started = true;
    }
  }
  endCommand();
  return commands;
}
