import { describe, expect, it } from "vitest";
import type { HookEventName } from "../../../src/hooks/events.js";
import { createStopHookGate, hookFeedbackText, MAX_STOP_CONTINUATIONS } from "../../../src/hooks/feedback.js";
import { interpretHookResult } from "../../../src/hooks/interpret.js";
import { reduceHookVerdicts } from "../../../src/hooks/reducer.js";
import type { HookCommandResult } from "../../../src/hooks/runner.js";

function ran(partial: Partial<HookCommandResult>): HookCommandResult {
  return {
    exitCode: 0,
    signal: null,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    timedOut: false,
    cancelled: false,
    ...partial,
  };
}

function reduce(event: HookEventName, results: Partial<HookCommandResult>[]) {
  const verdicts = results.map((r) =>
    interpretHookResult(ran(r), { event, file: "/h.json", hook: "h", timeoutSec: 600 }),
  );
  return reduceHookVerdicts(event, verdicts);
}

const stdout = (value: unknown) => ({ stdout: JSON.stringify(value) });
const pre = (decision: string, reason?: string) =>
  stdout({
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: reason },
  });

describe("reduction", () => {
  it.each([
    [["allow", "ask"], "ask"],
    [["ask", "allow"], "ask"],
    [["allow", "deny", "ask"], "deny"],
    [["allow", "allow"], "allow"],
  ])("permission decisions %j reduce to %s", (decisions, expected) => {
    expect(
      reduce(
        "PreToolUse",
        decisions.map((d) => pre(d)),
      ).permissionDecision,
    ).toBe(expected);
  });

  it("joins the reasons of every handler that decided the outcome", () => {
    const result = reduce("PreToolUse", [pre("deny", "first"), pre("allow", "x"), { exitCode: 2, stderr: "second\n" }]);
    expect(result).toMatchObject({ permissionDecision: "deny", reason: "first\n\nsecond", blocked: true });
  });

  it("no decision from any handler leaves the permission undecided", () => {
    const result = reduce("PreToolUse", [{ stdout: "" }, stdout({ systemMessage: "hi" })]);
    expect(result.permissionDecision).toBeUndefined();
    expect(result.blocked).toBe(false);
  });

  it("continue is ANDed and the first stopReason wins", () => {
    const result = reduce("UserPromptSubmit", [
      stdout({ continue: true }),
      stdout({ continue: false, stopReason: "a" }),
      stdout({ stopReason: "b" }),
    ]);
    expect(result).toMatchObject({ continue: false, stopReason: "a" });
  });

  it("accepts Claude's deprecated decision: approve for PreToolUse only", () => {
    expect(reduce("PreToolUse", [stdout({ decision: "approve", reason: "ok" })])).toMatchObject({
      permissionDecision: "allow",
      reason: "ok",
    });
    const stop = reduce("Stop", [stdout({ decision: "approve" })]);
    expect(stop.blocked).toBe(false);
    expect(stop.diagnostics.map((d) => d.code)).toEqual(["invalid_output"]);
  });

  it("defer is reported, not treated as a decision", () => {
    const result = reduce("PreToolUse", [pre("defer")]);
    expect(result.permissionDecision).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(["unsupported_field"]);
  });

  it("PermissionRequest: deny beats allow; an allow with updatedInput is dropped", () => {
    const allow = stdout({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    const rewrite = stdout({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "allow", updatedInput: { command: "x" } },
      },
    });
    expect(reduce("PermissionRequest", [allow, { exitCode: 2, stderr: "no" }]).permissionRequestDecision).toEqual({
      behavior: "deny",
      message: "no",
    });
    const dropped = reduce("PermissionRequest", [rewrite]);
    expect(dropped.permissionRequestDecision).toBeUndefined();
    expect(dropped.diagnostics.map((d) => d.code)).toEqual(["unsupported_field"]);
  });

  it("invalid field types are reported and the valid fields still apply", () => {
    const result = reduce("Stop", [stdout({ continue: "no", systemMessage: 3, stopReason: "s" })]);
    expect(result).toMatchObject({ continue: true, stopReason: "s", systemMessages: [] });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["invalid_output", "invalid_output"]);
  });
});

describe("feedback helpers", () => {
  it("hookFeedbackText puts block reasons before context", () => {
    const result = reduce("PostToolUse", [
      stdout({
        decision: "block",
        reason: "lint failed",
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "see log" },
      }),
    ]);
    expect(hookFeedbackText(result)).toBe("lint failed\n\nsee log");
    expect(hookFeedbackText(reduce("PostToolUse", []))).toBeUndefined();
  });

  it("the Stop gate continues with feedback, sets stop_hook_active, and stops at the cap", () => {
    const gate = createStopHookGate();
    const keepGoing = reduce("Stop", [stdout({ decision: "block", reason: "tests still fail" })]);
    expect(gate.active).toBe(false);
    expect(gate.decide(keepGoing)).toEqual({ action: "continue", message: "tests still fail" });
    expect(gate.active).toBe(true);
    for (let i = 1; i < MAX_STOP_CONTINUATIONS; i++) expect(gate.decide(keepGoing).action).toBe("continue");
    const capped = gate.decide(keepGoing);
    expect(capped.action).toBe("stop");
    expect(capped.action === "stop" && capped.diagnostic?.code).toBe("continuation_cap");
    expect(gate.active).toBe(false);
  });

  it("the Stop gate stops on continue:false and resets when no hook asks to continue", () => {
    const gate = createStopHookGate(8);
    const context = reduce("Stop", [
      stdout({ hookSpecificOutput: { hookEventName: "Stop", additionalContext: "also run lint" } }),
    ]);
    expect(gate.decide(context)).toEqual({ action: "continue", message: "also run lint" });
    expect(gate.decide(reduce("Stop", []))).toEqual({ action: "stop" });
    expect(gate.count).toBe(0);
    const halt = reduce("Stop", [stdout({ continue: false, stopReason: "quota", decision: "block", reason: "x" })]);
    expect(gate.decide(halt)).toEqual({ action: "stop", stopReason: "quota" });
  });
});
