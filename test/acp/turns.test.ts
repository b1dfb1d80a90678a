import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentText, toolUpdates } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "turns" });

async function writeConfig(home: string, toml: string) {
  await mkdir(join(home, ".deepagents"), { recursive: true });
  await writeFile(join(home, ".deepagents", "config.toml"), toml);
}

describe("stop reasons and failures", () => {
  it("ends with max_tokens and refusal as the model reports them", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("cut off mid-", { stopReason: "max_tokens" }));
    expect((await h.prompt(sessionId, "long")).response.stopReason).toBe("max_tokens");
    h.model.enqueue(textTurn("I can't help with that.", { stopReason: "refusal" }));
    expect((await h.prompt(sessionId, "bad")).response.stopReason).toBe("refusal");
  });

  it("stops at the configured number of model requests per turn", async () => {
    const h = await suite.start({ setupHome: (home) => writeConfig(home, "[agent]\nmax_turn_requests = 2\n") });
    const { sessionId } = await h.newSession(suite.project);
    for (let i = 0; i < 3; i++) h.model.enqueue(toolTurn("ls", { path: suite.project }));
    const { response } = await h.prompt(sessionId, "loop");
    expect(response.stopReason).toBe("max_turn_requests");
    expect(h.model.requests).toHaveLength(2);
  });

  it("ends the prompt with a one-line error when the provider keeps failing, and stays usable", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue({
      parts: [],
      httpError: {
        status: 400,
        body: JSON.stringify({
          type: "error",
          error: { type: "invalid_request_error", message: "prompt is too long" },
        }),
      },
    });
    const error = await h.prompt(sessionId, "hi").catch((e: { code: number; message: string }) => e);
    expect(error).toMatchObject({ code: -32603 });
    expect((error as { message: string }).message).toContain("prompt is too long");
    expect((error as { message: string }).message).not.toContain("\n");
    h.model.setHandler(() => textTurn("recovered"));
    const { response, updates } = await h.prompt(sessionId, "again");
    expect(response.stopReason).toBe("end_turn");
    expect(agentText(updates)).toBe("recovered");
  });

  it("fails a call with invalid arguments and tells the model why", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("read_file", { nope: 1 }), textTurn("sorry"));
    const { updates } = await h.prompt(sessionId, "read");
    expect(toolUpdates(updates).at(-1)).toMatchObject({ status: "failed" });
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("invalid arguments for read_file");
  });

  it("fails an unknown tool without ending the turn", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("no_such_tool", {}), textTurn("ok"));
    const { response } = await h.prompt(sessionId, "x");
    expect(response.stopReason).toBe("end_turn");
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("unknown tool 'no_such_tool'");
  });
});

describe("prompt content", () => {
  it("passes images and embedded resources to the model", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("seen"));
    await h.prompt(sessionId, [
      { type: "text", text: "look" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      {
        type: "resource",
        resource: { uri: "file:///notes.md", text: "embedded notes text", mimeType: "text/markdown" },
      },
    ]);
    const body = JSON.stringify(h.model.requests[0]!.body);
    expect(body).toContain("iVBORw0KGgo=");
    expect(body).toContain("embedded notes text");
  });

  it("reads file:// resource links", async () => {
    const h = await suite.start();
    await writeFile(join(suite.project, "spec.txt"), "the spec says 42");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, [
      { type: "text", text: "see " },
      { type: "resource_link", uri: `file://${join(suite.project, "spec.txt")}`, name: "spec.txt" },
    ]);
    expect(JSON.stringify(h.model.requests[0]!.body)).toContain("the spec says 42");
  });
});

describe("modes", () => {
  it("plan mode offers no write or shell tools and says so", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    h.model.enqueue(textTurn("plan"));
    await h.prompt(sessionId, "plan it");
    expect(h.model.requests[0]!.toolNames).not.toContain("write_file");
    expect(h.model.requests[0]!.toolNames).not.toContain("execute");
    expect(h.model.requests[0]!.toolNames).toContain("read_file");
    expect(h.model.requests[0]!.system).toContain("plan mode");
  });

  it("accept-edits writes inside the project without asking but still asks for commands", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    const options = await h.agent.request("session/set_config_option", {
      sessionId,
      configId: "mode",
      value: "accept-edits",
    });
    expect(options.configOptions.find((o) => o.id === "mode")?.currentValue).toBe("accept-edits");
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "a.txt"), content: "a" }),
      toolTurn("execute", { command: "echo hi" }),
      textTurn("done"),
    );
    await h.prompt(sessionId, "go");
    expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["echo hi"]);
  });

  it("bypass asks nothing; default asks for writes outside the project even when reading is fine inside", async () => {
    const h = await suite.start();
    const outside = await suite.tempDir("outside");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("read_file", { file_path: join(outside, "x.txt") }), textTurn("done"));
    await h.prompt(sessionId, "read outside");
    expect(h.permissions).toHaveLength(1);
    expect(JSON.stringify(h.permissions[0]!.toolCall._meta)).toContain("outside the project");
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(outside, "y.txt"), content: "y" }),
      toolTurn("execute", { command: "true" }),
      textTurn("done"),
    );
    await h.prompt(sessionId, "bypass");
    expect(h.permissions).toHaveLength(1);
  });

  it("rejects unknown modes and config options with -32602", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    await expect(h.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      h.agent.request("session/set_config_option", { sessionId, configId: "nope", value: "x" }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      h.agent.request("session/set_config_option", { sessionId, configId: "model", value: "nonsense" }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("switches the model through the config option", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    const response = await h.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "anthropic:claude-opus-4-1",
    });
    expect(response.configOptions.find((o) => o.id === "model")?.currentValue).toBe("anthropic:claude-opus-4-1");
    h.model.enqueue(textTurn("opus here"));
    await h.prompt(sessionId, "who");
    expect((h.model.requests[0]!.body as { model: string }).model).toBe("claude-opus-4-1");
  });
});

describe("plans and slash commands", () => {
  it("sends write_todos as a plan", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("write_todos", {
        todos: [
          { content: "step one", status: "in_progress" },
          { content: "step two", status: "pending" },
        ],
      }),
      textTurn("planned"),
    );
    const { updates } = await h.prompt(sessionId, "plan");
    expect(updates.find((u) => u.sessionUpdate === "plan")).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "step one", status: "in_progress", priority: "medium" },
        { content: "step two", status: "pending", priority: "medium" },
      ],
    });
  });

  it("answers /status and /help without calling the model, and /clear empties the context", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    expect(agentText((await h.prompt(sessionId, "/status")).updates)).toContain(suite.project);
    expect(agentText((await h.prompt(sessionId, "/help")).updates)).toContain("/clear");
    h.model.enqueue(textTurn("one"));
    await h.prompt(sessionId, "remember banana");
    await h.prompt(sessionId, "/clear");
    h.model.enqueue(textTurn("two"));
    await h.prompt(sessionId, "what fruit?");
    expect(JSON.stringify(h.model.requests.at(-1)!.body)).not.toContain("banana");
    expect(h.model.requests).toHaveLength(2);
  });
});
