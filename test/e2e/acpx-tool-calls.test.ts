// What acpx (a real headless ACP client) prints for our tool calls. acpx prints a call once when it
// first hears of it and again when it finishes, so the first `tool_call` must already carry the
// real title and input: announcing it while the model still streamed the arguments showed
// `[tool] execute (pending)` with `input: {}`.
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { BINARY } from "../support/agent-process.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { runCommand } from "../support/processes.js";
import { clientBin, clientMissing, clientNode } from "../support/test-clients.js";

const suite = useAgentSuite({ name: "acpx" });
const acpxMissing = clientMissing("acpx");
if (acpxMissing) console.warn(`skipping the acpx tool-call test: ${acpxMissing}`);

async function acpx(args: string[], api: "anthropic" | "openai" = "anthropic") {
  const agent = [process.execPath, BINARY].join(" ");
  // acpx runs on the Node it needs (>= 22.13); deep-acp on the one under test.
  return runCommand(
    clientNode()!,
    [clientBin("acpx")!, "--agent", agent, "--format", "text", "--timeout", "60", ...args],
    {
      cwd: suite.project,
      env: { PATH: process.env.PATH, ...suite.env(api) },
    },
  );
}

describe.skipIf(acpxMissing !== undefined)(
  "acpx shows a tool call with its real title and input from the first line",
  () => {
    for (const api of ["anthropic", "openai"] as const) {
      it(`(${api} wire format)`, async () => {
        suite.model.enqueue(toolTurn("execute", { command: "echo hello-from-acpx" }), textTurn("Ran it."));
        const result = await acpx(["--approve-all", "exec", "run the echo"], api);
        expect(result.code, result.stderr).toBe(0);
        const toolLines = result.stdout.split("\n").filter((line) => line.startsWith("[tool]"));
        expect(toolLines[0], result.stdout).toBe("[tool] echo hello-from-acpx (pending)");
        expect(result.stdout).not.toContain("[tool] execute");
        expect(result.stdout).not.toContain("input: {}");
        expect(result.stdout).toContain("input: echo hello-from-acpx");
        expect(result.stdout).toContain("[tool] echo hello-from-acpx (completed)");
        expect(result.stdout).toContain("Ran it.");
      }, 60_000);
    }
  },
);
