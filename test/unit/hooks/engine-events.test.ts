import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOOK_EVENT_NAMES, type HookEventInput, type HookEventName } from "../../../src/hooks/events.js";
import type { HookStatus, HookEndStatus } from "../../../src/hooks/engine.js";
import { FIXTURES, emit, hooksJson, makeProject, readJson, type Project } from "./helpers.js";

const INPUTS: { [E in HookEventName]: HookEventInput<E> } = {
  SessionStart: { source: "startup", model: "anthropic:claude-sonnet-4-5" },
  UserPromptSubmit: { prompt: "fix the bug" },
  SessionEnd: { reason: "other" },
  PermissionRequest: { tool_name: "Bash", tool_input: { command: "rm -rf build" }, permission_suggestions: [] },
  Notification: {
    message: "deep-acp needs your permission to use Bash",
    notification_type: "permission_prompt",
    title: "Permission",
  },
  PreToolUse: { tool_name: "Write", tool_input: { file_path: "/p/a.txt", content: "hi" }, tool_use_id: "call_1" },
  PostToolUse: {
    tool_name: "Write",
    tool_input: { file_path: "/p/a.txt", content: "hi" },
    tool_use_id: "call_1",
    tool_response: "Successfully wrote to '/p/a.txt'",
    duration_ms: 12,
  },
  PostToolUseFailure: {
    tool_name: "Bash",
    tool_input: { command: "false" },
    tool_use_id: "call_2",
    error: "exit code 1",
    is_interrupt: false,
  },
  PreCompact: { trigger: "manual", custom_instructions: "keep the API notes" },
  Stop: { stop_hook_active: false, last_assistant_message: "Done." },
  SubagentStart: { agent_id: "agent_1", agent_type: "general-purpose" },
  SubagentStop: {
    stop_hook_active: false,
    agent_id: "agent_1",
    agent_type: "general-purpose",
    agent_transcript_path: "/t/agent_1.jsonl",
    last_assistant_message: "found it",
  },
};

const MATCH: Partial<Record<HookEventName, string>> = {
  SessionStart: "startup|resume",
  SessionEnd: "other",
  PermissionRequest: "Bash",
  Notification: "permission_prompt",
  PreToolUse: "Edit|Write",
  PostToolUse: "Write",
  PostToolUseFailure: "Ba.*",
  PreCompact: "manual",
  SubagentStart: "general-purpose",
  SubagentStop: "general-purpose",
};

let project: Project;
beforeEach(async () => {
  project = await makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

describe("payloads", () => {
  it("every event reaches its hook with the Claude Code payload on stdin", async () => {
    const spec: Record<string, { matcher?: string; argv?: string[]; command?: string }[]> = {};
    HOOK_EVENT_NAMES.forEach((event, i) => {
      const out = project.out(`${event}.json`);
      // Alternate a shell script run through `command` and a node script run through `argv`.
      const handler =
        i % 2 === 0
          ? { command: `sh '${join(FIXTURES, "record-stdin.sh")}' '${out}'` }
          : { argv: emit("--record", out) };
      spec[event] = [{ ...handler, ...(MATCH[event] ? { matcher: MATCH[event] } : {}) }];
    });
    await project.write("user", hooksJson(spec));
    const engine = await project.engine({ permissionMode: () => "default" });

    for (const event of HOOK_EVENT_NAMES) {
      const result = await engine.run(event, INPUTS[event] as never);
      expect(result.handlerCount, event).toBe(1);
      expect(result.diagnostics, event).toEqual([]);
      const payload = await readJson(project.out(`${event}.json`));
      expect(payload, event).toEqual({
        session_id: "sess-1",
        transcript_path: project.out("transcript.jsonl"),
        cwd: project.root,
        permission_mode: "default",
        hook_event_name: event,
        ...INPUTS[event],
      });
    }
  });

  it("only hooks whose matcher accepts the payload's matcher field run", async () => {
    await project.write(
      "user",
      hooksJson({
        PreToolUse: [
          { matcher: "Bash", argv: emit("--record", project.out("bash.json")) },
          { matcher: "mcp__github__.*", argv: emit("--record", project.out("mcp.json")) },
          { matcher: "*", argv: emit("--record", project.out("all.json")) },
        ],
      }),
    );
    const engine = await project.engine();
    expect(engine.hasHandlers("PreToolUse", "Bash")).toBe(true);
    expect(engine.hasHandlers("PostToolUse", "Bash")).toBe(false);
    expect(engine.hasHandlers("PreToolUse")).toBe(true);
    expect(engine.hasHandlers("Stop")).toBe(false);

    const result = await engine.run("PreToolUse", {
      tool_name: "mcp__github__create_issue",
      tool_input: {},
      tool_use_id: "c",
    });
    expect(result.handlerCount).toBe(2);
    expect(existsSync(project.out("mcp.json"))).toBe(true);
    expect(existsSync(project.out("all.json"))).toBe(true);
    expect(existsSync(project.out("bash.json"))).toBe(false);
  });

  it("runs a command listed in two files once, keeping the higher-priority copy", async () => {
    const argv = emit("--record", project.out("once.json"), "--stdout", "ctx");
    await project.write("project", hooksJson({ UserPromptSubmit: [{ argv }] }));
    await project.write("user", hooksJson({ UserPromptSubmit: [{ argv }] }));
    const engine = await project.engine();
    const result = await engine.run("UserPromptSubmit", { prompt: "x" });
    expect(result.handlerCount).toBe(1);
    expect(result.outcomes[0]!.source.scope).toBe("project");
    expect(result.additionalContext).toEqual(["ctx"]);
  });

  it("substitutes plugin and project variables in argv and exports them", async () => {
    await project.write(
      "plugin",
      hooksJson({
        SessionEnd: [
          { argv: [...emit("--env", project.out("env.json")), "${CLAUDE_PLUGIN_ROOT}/x", "${CLAUDE_PROJECT_DIR}"] },
        ],
      }),
    );
    const engine = await project.engine();
    await engine.run("SessionEnd", { reason: "other" });
    const { env, argv } = await readJson<{ env: Record<string, string>; argv: string[] }>(project.out("env.json"));
    expect(argv.slice(-2)).toEqual([`${project.out("plugin")}/x`, project.root]);
    expect(env.CLAUDE_PLUGIN_ROOT).toBe(project.out("plugin"));
    expect(env.PLUGIN_ROOT).toBe(project.out("plugin"));
    expect(env.CLAUDE_PLUGIN_DATA).toBe(project.out("plugin-data"));
    expect(env.PLUGIN_DATA).toBe(project.out("plugin-data"));
  });

  it("reports start and end of each handler with its statusMessage, and describes hooks", async () => {
    await project.write(
      "user",
      hooksJson({
        PreCompact: [{ argv: emit("--exit", "3", "--stderr", "lint failed"), statusMessage: "Saving notes…" }],
      }),
    );
    const starts: HookStatus[] = [];
    const ends: HookEndStatus[] = [];
    const engine = await project.engine({ onHookStart: (s) => starts.push(s), onHookEnd: (s) => ends.push(s) });
    await engine.run("PreCompact", { trigger: "auto", custom_instructions: "" });

    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ event: "PreCompact", statusMessage: "Saving notes…", source: { scope: "user" } });
    expect(ends[0]!.runId).toBe(starts[0]!.runId);
    expect(ends[0]!.outcome.exitCode).toBe(3);

    const description = engine.describe();
    expect(description.events.map((e) => e.event)).toEqual(["PreCompact"]);
    const [handler] = description.events[0]!.handlers;
    expect(handler).toMatchObject({ source: { scope: "user" }, timeoutSec: 600, statusMessage: "Saving notes…" });
    expect(handler!.lastDiagnostics.map((d) => d.code)).toEqual(["nonzero_exit"]);
    expect(handler!.lastDiagnostics[0]!.message).toContain("lint failed");
  });
});
