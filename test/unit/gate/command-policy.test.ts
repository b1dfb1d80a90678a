// What "always allow" may cover for a shell command: exactly what the dialog says, no more.
import { describe, expect, it } from "vitest";
import { commandApproval, commandKeyUses, commandsDecidedBy } from "../../../src/gate/commands/command-policy.js";

const cwd = "/p";
const noPaths = { cwd, paths: new Map<string, { real: string; inside: boolean }>() };
const key = (command: string, context = noPaths) => commandApproval(command, context).key;

describe("command approvals", () => {
  it.each([
    ["git status", "execute:git status"],
    ["/usr/bin/git status", "execute:git status"],
    ["git   status", "execute:git status"],
    ["npm test", "execute:npm test"],
    ["npm run build", "execute:npm run build"],
    ["cargo build", "execute:cargo build"],
    ["ls", "execute:ls"],
    ["git --version", "execute:exact:git --version"],
  ])("offers %s as %s", (command, expected) => {
    expect(key(command)).toBe(expected);
  });

  it.each([
    "env FOO=1 git status",
    "timeout 5 git status",
    "xargs rm",
    "sudo ls",
    "nice make",
    "nohup npm test",
    "sh -c ls",
    "bash script.sh",
    "zsh",
    "node index.js",
    "python3 x.py",
    "perl -e 1",
    "ruby x.rb",
    "npx prettier",
    "find . -name x",
    "find /elsewhere -delete",
    "git diff --output=/tmp/x",
    "git -c core.pager=evil log",
    "git -C /elsewhere status",
    "git --exec-path=/tmp status",
    "git config core.fsmonitor evil",
    "npm test --script-shell=/tmp/evil",
    "npm exec evil",
    "npm run",
    "./git status",
    "/tmp/evil/git status",
    "FOO=1 npm test",
    "npm test; rm -rf ~",
    "make -f /tmp/evil.mk",
  ])("never offers %s", (command) => {
    expect(key(command)).toBeNull();
  });

  it("does not offer a command naming a path outside the roots, and keys file programs on the real files", () => {
    const outside = { cwd, paths: new Map([["/p/link", { real: "/home/u/.ssh/id_rsa", inside: false }]]) };
    expect(key("cat link", outside)).toBeNull();
    const readme = { cwd, paths: new Map([["/p/README.md", { real: "/p/README.md", inside: true }]]) };
    expect(key("cat README.md", readme)).toBe("execute:exact:cat /p/README.md");
    expect(key("cat README.md", readme)).not.toBe(key("cat other.md"));
  });

  it("knows which files decide what a remembered command runs", () => {
    expect(commandsDecidedBy("package.json")).toContain("npm");
    expect(commandsDecidedBy(".git/config")).toEqual(["git"]);
    expect(commandsDecidedBy(".git/hooks/pre-commit")).toEqual(["git"]);
    expect(commandsDecidedBy("Makefile")).toEqual(["make"]);
    expect(commandsDecidedBy("src/index.ts")).toEqual([]);
    expect(commandKeyUses("execute:npm test", ["npm"])).toBe(true);
    expect(commandKeyUses("execute:exact:git --version", ["git"])).toBe(true);
    expect(commandKeyUses("execute:git status", ["npm"])).toBe(false);
    expect(commandKeyUses("tool:write_file", "all")).toBe(false);
  });
});
