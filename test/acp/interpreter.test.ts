// The `eval` tool end to end over ACP with the fake model: approval gating by allowlist, hooks,
// nested tool calls, file rules, cancel, task() fan-out, per-turn state, plan mode and limits.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolUpdates, type Harness, type HarnessOptions } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn, type FakeTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { FIXTURES, NODE } from "../unit/mcp/helpers.js";

const suite = useHarnessSuite({ name: "eval", prepare: gitProject });

type Setup = { config?: string; hooks?: unknown; mcp?: Record<string, unknown> };

async function start(setup: Setup = {}, options: Omit<HarnessOptions, "setupHome"> = {}): Promise<Harness> {
  return suite.start({
    ...options,
    setupHome: async (home) => {
      await mkdir(join(home, ".deepagents"), { recursive: true });
      if (setup.config) await writeFile(join(home, ".deepagents", "config.toml"), setup.config);
      if (setup.hooks) await writeFile(join(home, ".deepagents", "hooks.json"), JSON.stringify({ hooks: setup.hooks }));
      if (setup.mcp) await writeFile(join(home, ".deepagents", ".mcp.json"), JSON.stringify({ mcpServers: setup.mcp }));
    },
  });
}

/** Each user message runs the next script as one eval; then the model says "done". */
function evalEachPrompt(harness: Harness, scripts: string[]): void {
  let next = 0;
  harness.model.setHandler((request): FakeTurn => {
    if (request.messages.at(-1)?.role === "user" && next < scripts.length)
      return toolTurn("eval", { code: scripts[next++]! });
    return textTurn("done");
  });
}

/** The eval output the model received last. */
function evalOutput(request: RecordedRequest): { text: string; isError: boolean } {
  const result = request.messages.filter((m) => m.role === "tool").at(-1);
  if (!result) throw new Error("no tool result");
  return { text: result.text, isError: result.isError === true };
}

type ToolUpdate = ReturnType<typeof toolUpdates>[number];
const meta = (u: ToolUpdate) =>
  (u._meta as { "deep-acp"?: { toolName?: string; parentToolCallId?: string } } | undefined)?.["deep-acp"];
const evalCalls = (updates: readonly acp.SessionUpdate[]) =>
  toolUpdates(updates).filter((u) => u.sessionUpdate === "tool_call" && meta(u)?.toolName === "eval");
const nestedUnder = (updates: readonly acp.SessionUpdate[], parent: string) =>
  toolUpdates(updates).filter((u) => u.sessionUpdate === "tool_call" && meta(u)?.parentToolCallId === parent);
const finalStatus = (updates: readonly acp.SessionUpdate[], id: string) =>
  toolUpdates(updates, id)
    .filter((u) => u.status)
    .at(-1)?.status;

describe("approval gating", () => {
  it("with the default read-only allowlist eval runs without a dialog; calls from code are nested under it", async () => {
    await writeFile(join(suite.project, "a.txt"), "alpha\n");
    await writeFile(join(suite.project, "b.txt"), "beta\n");
    const h = await start();
    const { sessionId } = await h!.newSession(suite.project);
    evalEachPrompt(h!, [
      `const names = ["a.txt", "b.txt"]; const texts = []; for (const n of names) texts.push((await tools.readFile({ file_path: ${JSON.stringify(suite.project)} + "/" + n })).trim()); texts.join(",")`,
    ]);
    const { updates } = await h!.prompt(sessionId, "read both");
    expect(h!.permissions).toHaveLength(0);
    expect(evalOutput(h!.model.requests[1]!).text).toBe("alpha,beta");
    const [evalCall] = evalCalls(updates);
    const nested = nestedUnder(updates, evalCall!.toolCallId);
    expect(nested.map((u) => u.kind)).toEqual(["read", "read"]);
    for (const call of nested) expect(finalStatus(updates, call.toolCallId)).toBe("completed");
    expect(finalStatus(updates, evalCall!.toolCallId)).toBe("completed");
  });

  it("with a write tool in [interpreter].tools each eval asks in the editor, showing the code, and so does each write it makes", async () => {
    const h = await start(
      { config: '[interpreter]\ntools = ["read_file", "write_file"]\n' },
      { onPermission: () => (h!.permissions.length <= 2 ? "allow_once" : "reject_once") },
    );
    const { sessionId } = await h!.newSession(suite.project);
    const write = (name: string) =>
      `await tools.writeFile({ file_path: ${JSON.stringify(join(suite.project, name))}, content: "from eval" }); "wrote ${name}"`;
    evalEachPrompt(h!, [write("first.txt"), write("second.txt")]);

    const allowed = await h!.prompt(sessionId, "write one");
    const evalDialogs = () =>
      h!.permissions.filter((p) => JSON.stringify(p.toolCall.content).includes("tools.writeFile"));
    expect(evalDialogs()).toHaveLength(1);
    // Approving the eval approves running the code, not what it reaches: the write asks too, nested under it.
    expect(h!.permissions).toHaveLength(2);
    expect(JSON.stringify(h!.permissions[1]!.toolCall)).toContain("first.txt");
    expect(JSON.stringify(evalDialogs()[0]!.toolCall.content)).toContain(
      JSON.stringify(join(suite.project, "first.txt")).slice(1, -1),
    );
    expect(evalDialogs()[0]!.options.map((o) => o.kind)).not.toContain("allow_always");
    expect(await readFile(join(suite.project, "first.txt"), "utf8")).toBe("from eval");
    expect(evalOutput(h!.model.requests[1]!).text).toBe("wrote first.txt");
    expect(nestedUnder(allowed.updates, evalCalls(allowed.updates)[0]!.toolCallId).map((u) => u.kind)).toEqual([
      "edit",
    ]);

    const rejected = await h!.prompt(sessionId, "write another");
    expect(evalDialogs()).toHaveLength(2);
    await expect(readFile(join(suite.project, "second.txt"))).rejects.toThrow();
    expect(evalOutput(h!.model.requests.at(-1)!).isError).toBe(true);
    expect(finalStatus(rejected.updates, evalCalls(rejected.updates)[0]!.toolCallId)).toBe("failed");
  });

  it("a PreToolUse hook on Eval sees the code, and can block it", async () => {
    const seen = join(suite.project, "hook-input.json");
    const h = await start({
      hooks: {
        PreToolUse: [
          {
            matcher: "Eval",
            hooks: [
              {
                type: "command",
                command: `cat > '${seen}'; grep -q forbidden '${seen}' && { echo 'no forbidden code' >&2; exit 2; }; exit 0`,
              },
            ],
          },
        ],
      },
    });
    const { sessionId } = await h!.newSession(suite.project);
    evalEachPrompt(h!, ["6 * 7", "const forbidden = 1; forbidden"]);
    await h!.prompt(sessionId, "compute");
    const input = JSON.parse(await readFile(seen, "utf8")) as {
      hook_event_name: string;
      tool_name: string;
      tool_input: { code: string };
    };
    expect(input).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Eval", tool_input: { code: "6 * 7" } });
    expect(evalOutput(h!.model.requests[1]!).text).toBe("42");

    await h!.prompt(sessionId, "again");
    const blocked = evalOutput(h!.model.requests.at(-1)!);
    expect(blocked.isError).toBe(true);
    expect(blocked.text).toContain("Eval blocked by hook: no forbidden code");
  });

  it("file rules still deny a read made from code", async () => {
    await mkdir(join(suite.project, "private"));
    await writeFile(join(suite.project, "private", "key.txt"), "TOP-SECRET-VALUE");
    await writeFile(join(suite.project, "open.txt"), "public");
    const rule = `[[permissions]]\noperations = ["read"]\npaths = [${JSON.stringify(join(suite.project, "private", "**"))}]\nmode = "deny"\n`;
    const h = await start({ config: rule });
    const { sessionId } = await h!.newSession(suite.project);
    evalEachPrompt(h!, [
      [
        `const open = await tools.readFile({ file_path: ${JSON.stringify(join(suite.project, "open.txt"))} });`,
        `let secret; try { secret = await tools.readFile({ file_path: ${JSON.stringify(join(suite.project, "private", "key.txt"))} }); } catch (e) { console.log(String(e.message)); }`,
        "({ open: open.trim(), secret })",
      ].join("\n"),
    ]);
    const { updates } = await h!.prompt(sessionId, "read");
    const output = evalOutput(h!.model.requests[1]!).text;
    const [denial, ...result] = output.split("\n");
    expect(denial).toBe(
      `Tool 'read_file' failed: Error: permission denied for read on ${join(suite.project, "private", "key.txt")}`,
    );
    expect(JSON.parse(result.join("\n"))).toEqual({ open: "public" });
    expect(output).not.toContain("TOP-SECRET-VALUE");
    const nested = nestedUnder(updates, evalCalls(updates)[0]!.toolCallId);
    expect(nested.map((u) => finalStatus(updates, u.toolCallId))).toEqual(["completed", "failed"]);
    expect(JSON.stringify(updates)).not.toContain("TOP-SECRET-VALUE");
  });
});

describe("cancel", () => {
  it("interrupts an endless loop promptly; the next prompt works", async () => {
    const h = await start({ config: "[interpreter]\ntimeout_ms = 600000\n" });
    const { sessionId } = await h!.newSession(suite.project);
    evalEachPrompt(h!, ["let i = 0; while (true) { i++; }", "1 + 1"]);
    const pending = h!.prompt(sessionId, "spin");
    await h!.waitFor(() =>
      h!.updates.some((u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "in_progress"),
    );
    await h!.cancel(sessionId);
    expect((await pending).response.stopReason).toBe("cancelled");
    const next = await h!.prompt(sessionId, "again");
    expect(next.response.stopReason).toBe("end_turn");
    expect(evalOutput(h!.model.requests.at(-1)!).text).toBe("2");
  });

  it("interrupts an eval waiting on a slow tool call and cancels that call", async () => {
    const marker = join(suite.project, "fixture.log");
    const h = await start(
      {
        config: '[interpreter]\ntools = ["fixture_slow"]\ntimeout_ms = 600000\n',
        mcp: {
          fixture: { command: NODE, args: [join(FIXTURES, "fixture-server.mjs")], env: { FIXTURE_MARKER: marker } },
        },
      },
      { onPermission: () => "allow_once" },
    );
    const { sessionId } = await h!.newSession(suite.project);
    evalEachPrompt(h!, ["await tools.fixtureSlow({}); 'finished'", "'alive'"]);
    const pending = h!.prompt(sessionId, "wait for it");
    const markerText = () => readFile(marker, "utf8").catch(() => "");
    await expect.poll(markerText, { timeout: 15_000 }).toContain("slow started");
    // A non-read-only MCP tool in the allowlist: the eval itself asked first, showing the code,
    // then the call made from code asked as well.
    expect(h!.permissions).toHaveLength(2);
    expect(JSON.stringify(h!.permissions[0]!.toolCall.content)).toContain("tools.fixtureSlow");
    await h!.cancel(sessionId);
    expect((await pending).response.stopReason).toBe("cancelled");
    await expect.poll(markerText, { timeout: 5000 }).toContain("slow cancelled");
    expect((await h!.prompt(sessionId, "still there?")).response.stopReason).toBe("end_turn");
    expect(evalOutput(h!.model.requests.at(-1)!).text).toBe("alive");
  });
});

describe("task() fan-out", () => {
  it("runs two subagents from one eval at the same time; each shows as a task call under the eval", async () => {
    await writeFile(join(suite.project, "x.txt"), "x");
    const h = await start();
    const { sessionId } = await h!.newSession(suite.project);
    const arrived: Array<() => void> = [];
    let subagentRuns = 0;
    h!.model.setHandler(async (request) => {
      if (request.system.includes("You are a subagent")) {
        const job = /alpha|beta/.exec(request.messages[0]!.text)?.[0] ?? "?";
        if (request.messages.length === 1) {
          subagentRuns++;
          // Go on only once both subagents have started: a sequential fan-out would never get here.
          await new Promise<void>((resolve) => {
            arrived.push(resolve);
            if (arrived.length === 2) arrived.splice(0).forEach((release) => release());
          });
          return toolTurn("ls", { path: suite.project });
        }
        return textTurn(job === "alpha" ? '{"job":"alpha","score":1}' : `report for ${job}`);
      }
      if (request.messages.at(-1)?.role === "user") {
        return toolTurn("eval", {
          code: [
            "const [a, b] = await Promise.all([",
            '  task({ description: "do the alpha job", subagentType: "general-purpose", responseSchema: { type: "object", properties: { job: { type: "string" }, score: { type: "number" } } } }),',
            '  task({ description: "do the beta job", subagentType: "general-purpose" }),',
            "]);",
            "`${a.job}:${a.score + 1} | ${b}`",
          ].join("\n"),
        });
      }
      return textTurn("both done");
    });
    const { updates, response } = await h!.prompt(sessionId, "fan out");
    expect(response.stopReason).toBe("end_turn");
    expect(subagentRuns).toBe(2);
    // The schema-bound answer came back parsed (a.score + 1 === 2), the other as text.
    expect(evalOutput(h!.model.requests.at(-1)!).text).toBe("alpha:2 | report for beta");
    const evalId = evalCalls(updates)[0]!.toolCallId;
    // Each task() is a task call of its own under the eval, and the subagent's calls nest under it.
    const tasks = nestedUnder(updates, evalId);
    expect(tasks.map((u) => [u.kind, (u.rawInput as { subagent_type: string }).subagent_type])).toEqual([
      ["think", "general-purpose"],
      ["think", "general-purpose"],
    ]);
    expect(tasks.flatMap((t) => nestedUnder(updates, t.toolCallId)).map((u) => u.kind)).toEqual(["read", "read"]);
    const done = updates.filter(
      (u) =>
        u.sessionUpdate === "tool_call_update" &&
        tasks.some((t) => t.toolCallId === u.toolCallId) &&
        u.status === "completed",
    );
    expect(done).toHaveLength(2);
  });
});

describe("interpreter state", () => {
  it("survives between evals of one turn but not into the next turn", async () => {
    const h = await start();
    const { sessionId } = await h!.newSession(suite.project);
    let turn = 0;
    h!.model.setHandler((request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "user")
        return toolTurn("eval", { code: turn++ === 0 ? "const counter = 41; counter" : "typeof counter" });
      if (request.messages.filter((m) => m.role === "tool").length === 1 && turn === 1)
        return toolTurn("eval", { code: "counter + 1" });
      return textTurn("done");
    });
    await h!.prompt(sessionId, "first turn");
    const firstTurn = h!.model.requests.slice(1).map((r) => evalOutput(r).text);
    expect(firstTurn).toEqual(["41", "42"]);
    await h!.prompt(sessionId, "second turn");
    expect(evalOutput(h!.model.requests.at(-1)!).text).toBe("undefined");
  });
});

describe("plan mode", () => {
  it("offers eval with the read-only part of the allowlist only, and never asks", async () => {
    await writeFile(join(suite.project, "in.txt"), "readable");
    const h = await start({ config: '[interpreter]\ntools = ["read_file", "write_file"]\n' });
    const { sessionId } = await h!.newSession(suite.project);
    await h!.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    evalEachPrompt(h!, [
      `[typeof tools.writeFile, (await tools.readFile({ file_path: ${JSON.stringify(join(suite.project, "in.txt"))} })).trim()].join(" ")`,
    ]);
    await h!.prompt(sessionId, "look");
    expect(h!.model.requests[0]!.toolNames).toContain("eval");
    expect(h!.model.requests[0]!.system).not.toContain("tools.writeFile");
    expect(evalOutput(h!.model.requests[1]!).text).toBe("undefined readable");
    expect(h!.permissions).toHaveLength(0);
  });
});

describe("limits", () => {
  it("a memory blowup and a loop past timeout_ms end with clear errors; the next eval works", async () => {
    const h = await start({ config: "[interpreter]\ntimeout_ms = 1000\nmemory_limit_mb = 32\n" });
    const { sessionId } = await h!.newSession(suite.project);
    evalEachPrompt(h!, [
      "const parts = []; for (;;) parts.push('x'.repeat(65536) + parts.length)",
      "for (;;) {}",
      "[1, 2, 3].map((n) => n * 2)",
    ]);

    const oom = await h!.prompt(sessionId, "grow");
    expect(oom.response.stopReason).toBe("end_turn");
    const memory = evalOutput(h!.model.requests.at(-1)!);
    expect(memory.isError).toBe(true);
    expect(memory.text).toContain("out of memory (limit: 32 MB, interpreter.memory_limit_mb)");
    expect(finalStatus(oom.updates, evalCalls(oom.updates)[0]!.toolCallId)).toBe("failed");

    await h!.prompt(sessionId, "spin");
    const timeout = evalOutput(h!.model.requests.at(-1)!);
    expect(timeout.isError).toBe(true);
    expect(timeout.text).toContain("TimeoutError: execution interrupted after 1000 ms (limit: interpreter.timeout_ms)");

    await h!.prompt(sessionId, "map");
    const mapped = evalOutput(h!.model.requests.at(-1)!);
    expect(mapped.isError).toBe(false);
    expect(JSON.parse(mapped.text)).toEqual([2, 4, 6]);
  });
});
