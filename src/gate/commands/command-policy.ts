import { basename, isAbsolute, resolve } from "node:path";
import {
  ASSIGNMENT_PROGRAMS,
  DANGEROUS_OPTIONS,
  DANGEROUS_SUBCOMMANDS,
  EXACT_PROGRAMS,
  FILE_PROGRAMS,
  NETWORK_SCHEMES,
  PACKAGE_MANAGER_OUTPUT_OPTIONS,
  PACKAGE_MANAGERS,
  SCOPE_OPTIONS,
  SUBCOMMAND_PROGRAMS,
  SYSTEM_BIN,
  VERSIONED_INTERPRETER,
  WRAPPERS,
} from "./command-tables.js";

// What an "always allow" for a shell command may cover. The rule: the remembered scope is exactly
// what the dialog says, and nothing a later command could stretch. So "always" is offered only for
// a plain `program subcommand` (absolute program paths in the system folders normalised:
// /usr/bin/git status is git status), never for wrappers, interpreters and builtins that run a file
// or another program (`.`, `source`, `exec`, `eval`, ...: they run anything), never with options
// that run code or write elsewhere or that widen the scope (`--workspaces`, `-C DIR`, `--prefix`;
// for package managers any option of their own before `--` but the output ones),
// never with a URL of a scheme that reads files (`file://`) or an `@file` upload, never when an
// argument leads outside the roots; `make X` is remembered for exactly those targets, and programs
// that read or copy the files they are given only for those exact files.

const METACHARACTERS = /[;&|<>`$(){}\\\n*?!#~[\]'"]/;

export type CommandWords = { program: string; args: string[] };

/** The words of a plain command line, or null when it has shell syntax (then nothing is offered). */
export function commandWords(command: string): CommandWords | null {
  const trimmed = command.trim();
  if (trimmed === "" || METACHARACTERS.test(trimmed)) return null;
  const words = trimmed.split(/\s+/);
  // An assignment prefix (FOO=bar cmd) changes behaviour invisibly.
  if (words[0]!.includes("=")) return null;
  return { program: words[0]!, args: words.slice(1) };
}

/** Arguments that may name files: everything but options, and the values of `--opt=value`. */
export function commandPathArguments(command: string, cwd: string): string[] {
  const words = commandWords(command);
  if (!words) return [];
  const candidates: string[] = [];
  for (const arg of words.args) {
    // `--opt=value`, and a value glued to a short option when it looks like a path (`-o/tmp/x`).
    const glued = /^-[^-]./.test(arg) && arg.slice(2).includes("/") ? arg.slice(2) : "";
    let value = arg.startsWith("-") ? (arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : glued) : arg;
    // `@file` (curl -d @x, --data-binary=@x, -F name=@x) uploads that file.
    if (/^-[^-]@/.test(arg)) value = arg.slice(2);
    if (value.includes("=@")) value = value.slice(value.indexOf("=@") + 1);
    if (value.startsWith("@")) value = value.slice(1);
    if (value === "") continue;
    candidates.push(isAbsolute(value) ? resolve(value) : resolve(cwd, value));
  }
  return candidates;
}

/** A URL whose scheme reads local files or runs a helper (`file://`, `ext::`), or undefined. */
export function fileReadingUrl(words: readonly string[]): string | undefined {
  return words.find((word) => {
    const value = word.includes("=") && word.startsWith("-") ? word.slice(word.indexOf("=") + 1) : word;
    if (/^file:/i.test(value) || /^[a-z][a-z0-9+.-]*::/i.test(value)) return true;
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
    return scheme !== undefined && !NETWORK_SCHEMES.has(scheme);
  });
}

export type CommandApproval = { key: string; label: string } | { key: null; why: string };

export type CommandApprovalContext = {
  cwd: string;
  /** Real path of each argument that may name a file (commandPathArguments), and whether it is inside the roots. */
  paths: ReadonlyMap<string, { real: string; inside: boolean }>;
};

/** What an "always allow" for this command would store, or why none is offered. */
export function commandApproval(command: string, context: CommandApprovalContext): CommandApproval {
  const words = commandWords(command);
  if (!words) return { key: null, why: "it uses shell syntax" };
  let program = words.program;
  if (program.includes("/")) {
    if (!isAbsolute(program) || !SYSTEM_BIN.includes(program.slice(0, program.lastIndexOf("/")))) {
      return { key: null, why: "it runs a program by path" };
    }
    program = basename(program);
  }
  if (WRAPPERS.has(program) || VERSIONED_INTERPRETER.test(program))
    return { key: null, why: `\`${program}\` can run any program or code` };
  if (ASSIGNMENT_PROGRAMS.has(program) && words.args.some((arg) => !arg.startsWith("-") && arg.includes("="))) {
    return { key: null, why: "a `NAME=value` argument can change what it runs" };
  }
  const danger = DANGEROUS_OPTIONS[program];
  const option = danger ? words.args.find((arg) => danger.test(arg)) : undefined;
  if (option) return { key: null, why: `\`${option}\` can run code or write elsewhere` };
  const scope = SCOPE_OPTIONS[program];
  const widening = scope ? words.args.find((arg) => scope.test(arg)) : undefined;
  if (widening) return { key: null, why: `\`${widening}\` widens what it runs beyond this command` };
  const url = fileReadingUrl(words.args);
  if (url) return { key: null, why: `\`${url}\` reads local files or runs a helper` };
  for (const arg of commandPathArguments(command, context.cwd)) {
    const seen = context.paths.get(arg);
    if (seen && !seen.inside) return { key: null, why: `it names ${seen.real}, outside the project` };
  }
  if (FILE_PROGRAMS.has(program)) {
    // Key on the exact files: `cat README.md` says nothing about `cat` of anything else.
    const shown = [program, ...words.args.map((arg) => realArgument(arg, context))].join(" ");
    return { key: `execute:exact:${shown}`, label: `Always allow \`${[program, ...words.args].join(" ")}\`` };
  }
  if (EXACT_PROGRAMS.has(program)) {
    // `make build` is target build only: not `make build deploy`.
    const exact = [program, ...words.args].join(" ");
    return { key: `execute:exact:${exact}`, label: `Always allow \`${exact}\`` };
  }
  if (SUBCOMMAND_PROGRAMS.has(program)) {
    const sub = words.args[0];
    // `git --version` is remembered as itself, not as every git command.
    // Nor is `cargo +nightly build` every `cargo +nightly ...` (a toolchain, not a subcommand).
    if (!sub || !/^[A-Za-z][\w.:-]*$/.test(sub)) {
      const exact = [program, ...words.args].join(" ");
      return { key: `execute:exact:${exact}`, label: `Always allow \`${exact}\`` };
    }
    if (DANGEROUS_SUBCOMMANDS[program]?.includes(sub))
      return { key: null, why: `\`${program} ${sub}\` can run any code or change configuration` };
    if (PACKAGE_MANAGERS.has(program)) {
      // Options before `--` are the package manager's own config, which any spelling of them can
      // change (`npm test -C ../x` runs another package's script): only output options stay covered.
      const end = words.args.indexOf("--");
      const own = end === -1 ? words.args : words.args.slice(0, end);
      const config = own.find((arg) => arg.startsWith("-") && !PACKAGE_MANAGER_OUTPUT_OPTIONS.test(arg));
      if (config) return { key: null, why: `\`${config}\` is ${program}'s own option and can change what it runs` };
      // `npm run build` is not `npm run deploy`.
      const script = ["run", "run-script"].includes(sub) ? words.args[1] : "";
      if (script === undefined || script.startsWith("-")) return { key: null, why: "no script named" };
      const shown = script ? `${program} ${sub} ${script}` : `${program} ${sub}`;
      return { key: `execute:${shown}`, label: `Always allow \`${shown}\` with any arguments to the script` };
    }
    return { key: `execute:${program} ${sub}`, label: withArguments(`${program} ${sub}`) };
  }
  return { key: `execute:${program}`, label: withArguments(program) };
}

/** The label of a prefix approval: the command, and that other arguments are covered too. */
function withArguments(command: string): string {
  return `Always allow \`${command}\` with any arguments`;
}

function realArgument(arg: string, context: CommandApprovalContext): string {
  if (arg.startsWith("-")) return arg;
  const abs = isAbsolute(arg) ? resolve(arg) : resolve(context.cwd, arg);
  return context.paths.get(abs)?.real ?? abs;
}

/** The programs whose remembered approvals a change to this (real, root-relative) file must drop. */
export function commandsDecidedBy(relativePath: string): "all" | readonly string[] {
  const name = relativePath.split("/").pop() ?? "";
  if (relativePath === ".git" || relativePath.startsWith(".git/") || relativePath.includes("/.git/")) return ["git"];
  // Hook folders that core.hooksPath commonly points at (husky, lefthook, pre-commit).
  if (
    /(^|\/)(\.husky|\.githooks)\//.test(relativePath) ||
    [".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml"].includes(name)
  )
    return ["git"];
  // What `npm test` and friends actually start (yarn's own release and plug'n'play loader too).
  if (/(^|\/)(node_modules\/\.bin|\.yarn\/releases|\.yarn\/plugins)\//.test(relativePath))
    return ["npm", "pnpm", "yarn", "bun"];
  if ([".pnp.cjs", ".pnp.loader.mjs"].includes(name)) return ["npm", "pnpm", "yarn", "bun"];
  if (
    [
      "package.json",
      ".npmrc",
      ".yarnrc",
      ".yarnrc.yml",
      "pnpm-workspace.yaml",
      "bunfig.toml",
      ".pnpmfile.cjs",
    ].includes(name)
  ) {
    return ["npm", "pnpm", "yarn", "bun"];
  }
  if (["Makefile", "makefile", "GNUmakefile"].includes(name) || name.endsWith(".mk")) return ["make"];
  if (
    ["Cargo.toml", "build.rs", "config.toml"].includes(name) &&
    (name !== "config.toml" || relativePath.includes(".cargo/"))
  )
    return ["cargo"];
  if (["go.mod", "go.work"].includes(name)) return ["go"];
  if (name.endsWith(".tf") || name.endsWith(".tfvars") || name === ".terraformrc") return ["terraform"];
  if (
    [
      "pyproject.toml",
      "setup.py",
      "setup.cfg",
      "tox.ini",
      "noxfile.py",
      "conftest.py",
      "pytest.ini",
      "uv.toml",
    ].includes(name)
  )
    return "all";
  if (["Gemfile", "Rakefile", ".bundle"].includes(name)) return ["bundle", "rake", "rails"];
  if (
    [
      "build.gradle",
      "build.gradle.kts",
      "settings.gradle",
      "settings.gradle.kts",
      "gradle.properties",
      "pom.xml",
    ].includes(name)
  )
    return ["gradle", "mvn"];
  if (
    [
      "composer.json",
      "deno.json",
      "deno.jsonc",
      "Dockerfile",
      "docker-compose.yml",
      "compose.yaml",
      "justfile",
      "Taskfile.yml",
    ].includes(name)
  )
    return "all";
  if ([".envrc", ".env", ".tool-versions", ".node-version", ".nvmrc", ".python-version"].includes(name)) return "all";
  return [];
}

/** Whether a remembered key (`execute:...`) belongs to one of `programs`. */
export function commandKeyUses(key: string, programs: "all" | readonly string[]): boolean {
  if (!key.startsWith("execute:")) return false;
  if (programs === "all") return true;
  const rest = key.startsWith("execute:exact:") ? key.slice("execute:exact:".length) : key.slice("execute:".length);
  const program = rest.split(" ")[0] ?? "";
  return programs.includes(program);
}
