import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../../src/cli/args/args.js";
import { runSetup } from "../../../src/cli/subcommands/setup.js";
import { EDITORS_DIR } from "./editor-configs.js";

// The agent-shell snippet, loaded by a real Emacs (`emacs --batch`) against a stand-in agent-shell
// that has its public surface: agent-shell-agent-configs as a list of configurations (older
// agent-shell) or a function returning entries that may themselves be config makers (newer), read
// the way agent-shell reads it. Skipped where no emacs is installed (.ci/run installs emacs-nox).

const LAUNCH = { command: "/opt/node/bin/node", args: ["/home/me/deep acp/dist/deep-acp.js"] };
const hasEmacs = (() => {
  try {
    execFileSync("emacs", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

// What agent-shell provides to the snippet, and how it reads the configs (agent-shell.el's
// agent-shell--resolved-agent-configs); `started' records M-x deep-acp-agent-shell.
const STAND_IN = `
(defvar agent-shell-agent-configs nil)
(defvar started nil)
(defun agent-shell-make-agent-config (&rest args)
  (list (cons :identifier (plist-get args :identifier)) (cons :client-maker (plist-get args :client-maker))))
(defun agent-shell--make-acp-client (&rest args) args)
(defun agent-shell-make-environment-variables (&rest _) nil)
(defun agent-shell-start (&rest args) (setq started (plist-get args :config)))
(defun resolved ()
  (mapcar (lambda (entry) (if (functionp entry) (funcall entry) entry))
          (if (functionp agent-shell-agent-configs) (funcall agent-shell-agent-configs) agent-shell-agent-configs)))
(defun make-claude () (list (cons :identifier 'claude-code)))
(defun report (label)
  (princ (format "%s %S\\n" label (mapcar (lambda (c) (cdr (assq :identifier c))) (resolved)))))
`;

const tmp = mkdtemp(join(tmpdir(), "deep-acp-agent-shell-"));
afterAll(async () => rm(await tmp, { recursive: true, force: true }));

async function runWith(snippet: string, initial: string): Promise<string> {
  const dir = await tmp;
  await writeFile(join(dir, "snippet.el"), snippet);
  await writeFile(join(dir, "stand-in.el"), STAND_IN);
  const script = `
(load (expand-file-name "stand-in.el" "${dir}") nil t)
(setq agent-shell-agent-configs ${initial})
(load (expand-file-name "snippet.el" "${dir}") nil t)
(provide 'agent-shell)
(report "loaded")
;; An init file evaluated again must not add deep-acp twice.
(load (expand-file-name "snippet.el" "${dir}") nil t)
(report "again")
(call-interactively 'deep-acp-agent-shell)
(let ((client (funcall (cdr (assq :client-maker started)) nil)))
  (princ (format "started %S %S %S\\n" (cdr (assq :identifier started))
                 (plist-get client :command) (plist-get client :command-params))))
(princ (format "command %S\\n" (commandp 'deep-acp-agent-shell)))`;
  return execFileSync("emacs", ["--batch", "-Q", "--eval", `(progn ${script})`], { encoding: "utf8" });
}

async function setupSnippet(): Promise<{ out: string; err: string }> {
  let out = "";
  let err = "";
  await runSetup(parseCliArgs(["setup", "emacs"]), {
    home: await tmp,
    launch: LAUNCH,
    out: (t) => (out += t),
    err: (t) => (err += t),
  });
  return { out, err };
}

describe.skipIf(!hasEmacs)("the agent-shell snippet in a real Emacs", () => {
  const initials: Array<[string, string]> = [
    ["a list of configurations", "(list (make-claude))"],
    ["a function returning config makers", "(lambda () (list #'make-claude))"],
    ["a list of config makers", "(list #'make-claude)"],
  ];
  for (const [name, initial] of initials) {
    it(`joins agent-shell-agent-configs as ${name}, once, and M-x deep-acp-agent-shell starts it`, async () => {
      const { out } = await setupSnippet();
      const printed = await runWith(out, initial);
      expect(printed).toBe(
        "loaded (deep-acp claude-code)\nagain (deep-acp claude-code)\n" +
          `started deep-acp "${LAUNCH.command}" ("${LAUNCH.args[0]}")\ncommand t\n`,
      );
    });
  }

  it("editors/emacs/agent-shell.el does the same with deep-acp from PATH (never npx)", async () => {
    const file = await readFile(join(EDITORS_DIR, "emacs", "agent-shell.el"), "utf8");
    expect(await runWith(file, "(lambda () (list #'make-claude))")).toContain('started deep-acp "deep-acp" nil');
  });
});

describe("setup emacs output", () => {
  it("prints only Emacs Lisp on stdout, explanations on stderr", async () => {
    const { out, err } = await setupSnippet();
    const lines = out.split("\n").filter((line) => line.trim() !== "");
    expect(lines.filter((line) => /^\s*--/.test(line))).toEqual([]);
    expect(lines[0]).toMatch(/^;;;/);
    expect(err).toContain("Emacs >= 29.1");
    expect(err).toMatch(/init\.el/);
    expect(out).not.toContain("Emacs >= 29.1");
  });

  it("is editors/emacs/agent-shell.el but for the header and the launch line", async () => {
    const code = (text: string) =>
      text
        .replace(/^(;;.*\n|\n)*/, "")
        .replace(/:command "[^"]*"/, ":command X")
        .replace(/:command-params '\([^)]*\)/, ":command-params Y");
    const file = await readFile(join(EDITORS_DIR, "emacs", "agent-shell.el"), "utf8");
    expect(code((await setupSnippet()).out)).toBe(code(file));
  });
});
