import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FIXTURES, emit, hooksJson, makeProject, type Project } from "./helpers.js";

let project: Project;
beforeEach(async () => {
  project = await makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

const json = (value: unknown) => JSON.stringify(value);
const preToolUse = { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "call_1" };

describe("exit codes", () => {
  it("exit 2 blocks with the stderr reason and ignores stdout", async () => {
    await project.write(
      "user",
      hooksJson({ PreToolUse: [{ command: `sh '${join(FIXTURES, "block.sh")}' 'no shell today'` }] }),
    );
    const result = await (await project.engine()).run("PreToolUse", preToolUse);
    expect(result.blocked).toBe(true);
    expect(result.permissionDecision).toBe("deny");
    expect(result.reason).toBe("no shell today");
  });

  it("exit 2 with empty stderr uses the default reason", async () => {
    await project.write("user", hooksJson({ UserPromptSubmit: [{ argv: emit("--exit", "2") }] }));
    const result = await (await project.engine()).run("UserPromptSubmit", { prompt: "x" });
    expect(result).toMatchObject({ blocked: true, reason: "Hook blocked the operation" });
  });

  it("exit 2 on an event that cannot be blocked only produces a diagnostic", async () => {
    await project.write("user", hooksJson({ SessionStart: [{ argv: emit("--exit", "2", "--stderr", "nope") }] }));
    const result = await (await project.engine()).run("SessionStart", { source: "startup" });
    expect(result.blocked).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.message.includes("nope")])).toEqual([["block_ignored", true]]);
  });

  it("other exit codes fail open with a diagnostic naming the file and command", async () => {
    const source = await project.write(
      "user",
      hooksJson({ PreToolUse: [{ argv: emit("--exit", "1", "--stderr", "crashed") }] }),
    );
    const result = await (await project.engine()).run("PreToolUse", preToolUse);
    expect(result.blocked).toBe(false);
    expect(result.permissionDecision).toBeUndefined();
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({
      code: "nonzero_exit",
      source: source.file,
      event: "PreToolUse",
      severity: "warning",
    });
    expect(result.diagnostics[0]!.hook).toContain("emit.mjs");
    expect(result.diagnostics[0]!.message).toContain("crashed");
  });

  it("a missing program is a spawn_failed diagnostic, not an exception", async () => {
    await project.write("user", hooksJson({ Stop: [{ argv: [project.out("does-not-exist")] }] }));
    const result = await (await project.engine()).run("Stop", { stop_hook_active: false });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["spawn_failed"]);
    expect(result.blocked).toBe(false);
  });
});

describe("JSON output", () => {
  it("parses continue, stopReason, systemMessage and additionalContext", async () => {
    const out = json({
      continue: false,
      stopReason: "build is red",
      systemMessage: "Formatter ran",
      suppressOutput: true,
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "3 files reformatted" },
    });
    await project.write("user", hooksJson({ PostToolUse: [{ argv: emit("--stdout", out) }] }));
    const result = await (await project.engine()).run("PostToolUse", { ...preToolUse, tool_response: "ok" });
    expect(result).toMatchObject({
      continue: false,
      stopReason: "build is red",
      systemMessages: ["Formatter ran"],
      additionalContext: ["3 files reformatted"],
      blocked: false,
      diagnostics: [],
    });
  });

  it("decision block on PostToolUse becomes feedback for the model", async () => {
    const out = json({ decision: "block", reason: "tests fail: 2 errors" });
    await project.write("user", hooksJson({ PostToolUse: [{ argv: emit("--stdout", out) }] }));
    const result = await (await project.engine()).run("PostToolUse", { ...preToolUse, tool_response: "ok" });
    expect(result).toMatchObject({ blocked: true, reason: "tests fail: 2 errors" });
  });

  it("ignores hookSpecificOutput for another event, with a diagnostic", async () => {
    const out = json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } });
    await project.write("user", hooksJson({ PermissionRequest: [{ argv: emit("--stdout", out) }] }));
    const result = await (await project.engine()).run("PermissionRequest", { tool_name: "Bash", tool_input: {} });
    expect(result.permissionRequestDecision).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(["event_mismatch"]);
  });

  it("PermissionRequest hooks answer the dialog", async () => {
    const allow = json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } });
    const deny = json({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "not on main", interrupt: true },
      },
    });
    await project.write("user", hooksJson({ PermissionRequest: [{ argv: emit("--stdout", allow) }] }));
    expect(
      (await (await project.engine()).run("PermissionRequest", { tool_name: "Bash", tool_input: {} }))
        .permissionRequestDecision,
    ).toEqual({
      behavior: "allow",
    });
    await project.write("project", hooksJson({ PermissionRequest: [{ argv: emit("--stdout", deny) }] }));
    const result = await (await project.engine()).run("PermissionRequest", { tool_name: "Bash", tool_input: {} });
    expect(result.permissionRequestDecision).toEqual({ behavior: "deny", message: "not on main", interrupt: true });
    expect(result.blocked).toBe(true);
  });

  it("drops an allow that came with updatedInput instead of running the unmodified call", async () => {
    const out = json({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        updatedInput: { command: "ls -la" },
      },
    });
    await project.write("user", hooksJson({ PreToolUse: [{ argv: emit("--stdout", out) }] }));
    const result = await (await project.engine()).run("PreToolUse", preToolUse);
    expect(result.permissionDecision).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(["unsupported_field"]);
  });

  it("reports unsupported and unknown fields without failing the rest", async () => {
    const out = json({
      systemMessage: "hi",
      terminalSequence: "\u001b]0;title\u0007",
      mystery: 1,
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "ctx", watchPaths: ["/x"] },
    });
    await project.write("user", hooksJson({ SessionStart: [{ argv: emit("--stdout", out) }] }));
    const result = await (await project.engine()).run("SessionStart", { source: "startup" });
    expect(result.systemMessages).toEqual(["hi"]);
    expect(result.additionalContext).toEqual(["ctx"]);
    expect(result.diagnostics.map((d) => d.code).sort()).toEqual([
      "unknown_field",
      "unsupported_field",
      "unsupported_field",
    ]);
  });
});

describe("plain stdout", () => {
  it("is context for SessionStart and UserPromptSubmit", async () => {
    await project.write(
      "user",
      hooksJson({
        SessionStart: [{ command: "echo 'branch: main'" }],
        UserPromptSubmit: [{ command: "printf 'today is Monday\\n'" }],
      }),
    );
    const engine = await project.engine();
    expect((await engine.run("SessionStart", { source: "startup" })).additionalContext).toEqual(["branch: main"]);
    expect((await engine.run("UserPromptSubmit", { prompt: "x" })).additionalContext).toEqual(["today is Monday"]);
  });

  it("is ignored (info diagnostic) for other events", async () => {
    await project.write("user", hooksJson({ PostToolUse: [{ command: "echo formatted" }] }));
    const result = await (await project.engine()).run("PostToolUse", { ...preToolUse, tool_response: "" });
    expect(result.additionalContext).toEqual([]);
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([["plain_output_ignored", "info"]]);
  });

  it("malformed JSON is plain text, with a diagnostic", async () => {
    await project.write("user", hooksJson({ UserPromptSubmit: [{ argv: emit("--stdout", "{not json") }] }));
    const result = await (await project.engine()).run("UserPromptSubmit", { prompt: "x" });
    expect(result.additionalContext).toEqual(["{not json"]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["invalid_output"]);
  });
});

describe("precedence", () => {
  const decide = (decision: string, reason: string) =>
    emit(
      "--stdout",
      json({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: decision,
          permissionDecisionReason: reason,
        },
      }),
    );

  it("a project deny beats a user allow, even when the user hook finishes first", async () => {
    await project.write(
      "project",
      hooksJson({ PreToolUse: [{ argv: [...decide("deny", "project says no"), "--sleep", "300"] }] }),
    );
    await project.write("user", hooksJson({ PreToolUse: [{ argv: decide("allow", "user says yes") }] }));
    const result = await (await project.engine()).run("PreToolUse", preToolUse);
    expect(result).toMatchObject({
      permissionDecision: "deny",
      reason: "project says no",
      blocked: true,
      handlerCount: 2,
    });
    expect(result.outcomes.map((o) => o.source.scope)).toEqual(["project", "user"]);
  });

  it("ask beats allow regardless of scope", async () => {
    await project.write("project", hooksJson({ PreToolUse: [{ argv: decide("allow", "fine") }] }));
    await project.write("plugin", hooksJson({ PreToolUse: [{ argv: decide("ask", "plugin wants a human") }] }));
    const result = await (await project.engine()).run("PreToolUse", preToolUse);
    expect(result).toMatchObject({ permissionDecision: "ask", reason: "plugin wants a human", blocked: false });
  });

  it("deny > ask > allow across three handlers; first stopReason and all messages in precedence order", async () => {
    const withMessage = (decision: string, message: string, stopReason: string) =>
      emit(
        "--stdout",
        json({
          systemMessage: message,
          stopReason,
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: decision,
            permissionDecisionReason: decision,
          },
        }),
      );
    await project.write("plugin", hooksJson({ PreToolUse: [{ argv: withMessage("deny", "from plugin", "p") }] }));
    await project.write("user", hooksJson({ PreToolUse: [{ argv: withMessage("ask", "from user", "u") }] }));
    await project.write("project", hooksJson({ PreToolUse: [{ argv: withMessage("allow", "from project", "pr") }] }));
    const result = await (await project.engine()).run("PreToolUse", preToolUse);
    expect(result.permissionDecision).toBe("deny");
    expect(result.reason).toBe("deny");
    expect(result.systemMessages).toEqual(["from project", "from user", "from plugin"]);
    expect(result.stopReason).toBe("pr");
  });
});
