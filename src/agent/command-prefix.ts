// "Always allow" for shell commands is scoped to a command prefix ("npm test", "git status", "ls"),
// and never offered for command lines with shell metacharacters: `npm test; rm -rf ~` must not ride
// on an earlier "always allow npm test".

const METACHARACTERS = /[;&|<>`$(){}\\\n*?!#~[\]'"]/;

/** Tools whose second word is the real command (`git push` is not `git status`). */
const SUBCOMMAND_TOOLS = new Set([
  "git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "make", "docker", "kubectl", "pip", "pip3",
  "uv", "poetry", "dotnet", "mvn", "gradle", "bundle", "rails", "rake", "composer", "deno", "swift", "terraform",
]);

/** The prefix an "always allow" decision covers, or null when none may be offered. */
export function commandPrefix(command: string): string | null {
  const trimmed = command.trim();
  if (trimmed === "" || METACHARACTERS.test(trimmed)) return null;
  const words = trimmed.split(/\s+/);
  const first = words[0]!;
  // An assignment prefix (FOO=bar cmd) changes behaviour invisibly.
  if (first.includes("=")) return null;
  if (SUBCOMMAND_TOOLS.has(first) && words[1] && !words[1].startsWith("-")) return `${first} ${words[1]}`;
  return first;
}

export function commandMatchesPrefix(command: string, prefix: string): boolean {
  const own = commandPrefix(command);
  return own !== null && own === prefix;
}
