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

describe.skipIf(acpxMissing !== undefined)("acpx prints what calls did, in words (issue 38)", () => {
  it("a command's output, a plan's count and a subagent's answer; no raw JSON and no repeated title", async () => {
    const todos = [
      { content: "Plan step one", status: "in_progress" },
      { content: "Plan step two", status: "pending" },
    ];
    suite.model.setHandler((request) => {
      if (request.system.includes("You are a subagent")) return textTurn("CHILD ANSWER");
      const steps = [
        toolTurn("write_todos", { todos }),
        toolTurn("execute", { command: "echo hello-from-acpx" }),
        toolTurn("task", { description: "look around", subagent_type: "general-purpose" }),
      ];
      return steps[(request.messages.length - 1) / 2] ?? textTurn("All done.");
    });
    const result = await acpx(["--approve-all", "exec", "plan, run, delegate"]);
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out, out).toContain("[tool] Working on Plan step one (completed)");
    expect(out).toContain("0 of 2 done");
    expect(out).not.toContain("Updated todo list");
    expect(out).toContain("[tool] look around (completed)");
    expect(out).toContain("CHILD ANSWER");
    expect(out).not.toContain("subagentType");
    expect(out).toContain("hello-from-acpx");
    expect(out).not.toContain('"exitCode"');
    expect(out).toContain("All done.");
  }, 90_000);
});

describe.skipIf(acpxMissing !== undefined)("acpx and a new file", () => {
  it("writing a file that does not exist yet reads nothing through acpx (it printed each not-found as an error)", async () => {
    suite.model.enqueue(toolTurn("write_file", { file_path: "notes/new.txt", content: "hi\n" }), textTurn("Wrote it."));
    const result = await acpx(["--approve-all", "exec", "write the note"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout, result.stdout).toContain("[tool] notes/new.txt (completed)");
    expect(result.stdout).not.toContain("Resource not found");
    expect(result.stdout).not.toContain("fs/read_text_file");
  }, 60_000);
});
