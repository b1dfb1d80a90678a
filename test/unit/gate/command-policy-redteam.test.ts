// Red-team cases: commands whose "always" key would be one a harmless command already stored
// (`git grep`, `make build`, `cargo +nightly`, `man`, `fd`, ...) while they run other code.
import { describe, expect, it } from "vitest";
import { commandApproval, commandPathArguments, commandsDecidedBy } from "../../../src/gate/commands/command-policy.js";

const cwd = "/p";
const noPaths = { cwd, paths: new Map<string, { real: string; inside: boolean }>() };
const key = (command: string) => commandApproval(command, noPaths).key;

describe("command approvals (red team)", () => {
  it.each([
    "git grep -O./evil.sh TODO",
    "git grep --open-files-in-pager=./evil.sh TODO",
    "git clone --config=core.sshCommand=./evil.sh ssh://h/r",
    "git send-email --sendmail-cmd=./evil.sh x.patch",
    "git send-email --smtp-server=./evil.sh x.patch",
    "make build SHELL=./evil.sh",
    "make build CC=./evil.sh",
    "rake test RUBYOPT=-r./evil",
    "kubectl get pods --kubeconfig=./hostile",
    "kubectl get pods --kubeconfig ./hostile",
    "go vet -vettool=./evil",
    "man -P./evil.sh ls",
    "fd . -x ./evil.sh",
    "tsx evil.ts",
    "ts-node evil.ts",
    "python3.12 evil.py",
    "crontab ./cron",
    "xdg-open evil.desktop",
    "pwsh -c x",
    "unshare -r ./evil",
  ])("offers no always for %s", (command) => {
    expect(key(command)).toBeNull();
  });

  it("keys a toolchain-prefixed cargo command exactly: `cargo +nightly build` is not `cargo +nightly run`", () => {
    expect(key("cargo +nightly build")).toBe("execute:exact:cargo +nightly build");
    expect(key("cargo +nightly run")).not.toBe(key("cargo +nightly build"));
  });

  it("checks the value glued to a short option as a path (-o/tmp/x)", () => {
    expect(commandPathArguments("gcc -o/tmp/x a.c", cwd)).toContain("/tmp/x");
  });

  it("drops remembered terraform approvals when a .tf file changes", () => {
    expect(commandsDecidedBy("infra/main.tf")).toContain("terraform");
  });

  it.each([
    ["node_modules/.bin/jest", "npm"],
    [".husky/pre-commit", "git"],
    [".githooks/pre-commit", "git"],
    [".pre-commit-config.yaml", "git"],
    ["lefthook.yml", "git"],
  ])("drops remembered approvals when %s changes (%s)", (path, program) => {
    expect(commandsDecidedBy(path)).toContain(program);
  });
});
