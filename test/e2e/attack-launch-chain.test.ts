// Attack suite, round 4: the model key in the launch chain. Launched as `npx -y deep-acp` (what an
// editor config with npx does), the `npm exec` parent keeps the key the editor passed in its
// environment while the agent runs, and an approved command reads it from /proc/<pid>/environ: the
// agent blanks only its own. We cannot blank another process, so the user is told, once, at the
// first turn (a warning in the thread) and by `deep-acp doctor`, with the way out (launch deep-acp
// directly). The real `npm exec` (with -c, so nothing is installed) is the parent here; fake model.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BINARY } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { runCommand } from "../support/processes.js";

const MODEL_KEY = "sk-ant-MARKER-launch-chain-7c1d";
const suite = useAgentSuite({ name: "launch-chain", prepare: ({ project }) => mkdir(join(project, ".git")) });
const quiet = { npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
const throughNpmExec = (argv: string[]): [string, string[]] => [
  "npm",
  ["exec", "--offline", "-c", argv.map((a) => `'${a}'`).join(" ")],
];
const messages = (sessionId: string) =>
  suite.agent
    .updates(sessionId)
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text as string)
    .join("");

describe("attack: the model key in the environment of the process that launched the agent", () => {
  it("through npm exec: the first turn warns, once, naming the launcher and the way out", async () => {
    const editor = createFakeEditor();
    const sessionId = await suite.startSession({
      env: { ANTHROPIC_API_KEY: MODEL_KEY, npm_config_cache: join(suite.home, ".npm"), ...quiet },
      launcher: throughNpmExec,
      onRequest: editor.handle,
    });
    const hunt = "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null | grep -c MARKER-launch";
    suite.model.enqueue(toolTurn("execute", { command: hunt }), textTurn("first"));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const first = messages(sessionId);
    expect(first).toMatch(/Warning: Model key exposed by the launcher: ANTHROPIC_API_KEY is also in the environment/);
    expect(first).toMatch(/processes? .*\d+ \(npm exec\)/);
    expect(first).toContain("Launch deep-acp directly instead of through npx");
    // The limit the warning is about: the command finds the key in the launcher (not in the agent).
    const found = suite.model.requests.at(-1)!.messages.filter((m) => m.role === "tool")[0]!.text;
    expect(Number.parseInt(found, 10), found).toBeGreaterThan(0);

    suite.model.enqueue(textTurn("second"));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(messages(sessionId).slice(first.length)).not.toContain("Model key exposed");
  });

  it("launched directly: no warning", async () => {
    const sessionId = await suite.startSession({ env: { ANTHROPIC_API_KEY: MODEL_KEY } });
    suite.model.enqueue(textTurn("hello"));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(messages(sessionId)).not.toContain("Model key exposed");
  });

  it("deep-acp doctor through npm exec names the exposure too", async () => {
    const [command, args] = throughNpmExec([process.execPath, BINARY, "doctor"]);
    const run = await runCommand(command, args, {
      cwd: suite.project,
      env: {
        PATH: process.env.PATH,
        HOME: suite.home,
        ANTHROPIC_API_KEY: MODEL_KEY,
        npm_config_cache: join(suite.home, ".npm"),
        ...quiet,
      },
    });
    expect(run.stdout).toMatch(
      /! launch: ANTHROPIC_API_KEY is also in the environment of processes? .*\d+ \(npm exec\)/,
    );
    const direct = await suite.run(["doctor"], { env: { ANTHROPIC_API_KEY: MODEL_KEY } });
    expect(direct.stdout).not.toContain("launch:");
  });
});
