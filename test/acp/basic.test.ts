import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentText, toolUpdates } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "basic" });

describe("ACP basics", () => {
  it("answers initialize with version 1, agent info and an agent auth method", async () => {
    const h = await suite.start();
    expect(h.init.protocolVersion).toBe(1);
    expect(h.init.agentInfo?.name).toBe("deep-acp");
    expect(h.init.authMethods?.some((m) => !("type" in m) || (m as { type?: string }).type === "agent")).toBe(true);
    expect(h.init.authMethods?.some((m) => "type" in m && m.type === "terminal")).toBe(false);
  });

  it("offers terminal login only to clients that can run it", async () => {
    const h = await suite.start({ clientCapabilities: { auth: { terminal: true } } });
    expect(h.init.authMethods?.find((m) => "type" in m && m.type === "terminal")).toMatchObject({ args: ["login"] });
  });

  it("streams a greeting and ends the turn", async () => {
    const h = await suite.start();
    h.model.enqueue(textTurn("Hello from the fake model! How can I help?"));
    const { sessionId, modes, configOptions } = await h.newSession(suite.project);
    expect(modes?.currentModeId).toBe("default");
    expect(configOptions?.map((o) => o.id)).toEqual(["mode", "model", "thought_level"]);
    const { response, updates } = await h.prompt(sessionId, "Hello from Zed!");
    expect(response.stopReason).toBe("end_turn");
    expect(agentText(updates)).toBe("Hello from the fake model! How can I help?");
    expect(updates.some((u) => u.sessionUpdate === "usage_update")).toBe(true);
    expect(h.model.requests[0]!.lastUserText).toContain("Hello from Zed!");
    expect(h.model.requests[0]!.system).toContain(suite.project);
  });

  it("reads a file the model asks for and shows the call", async () => {
    const h = await suite.start();
    await writeFile(join(suite.project, "foo"), "Lorem ipsum dolor\n");
    h.model.enqueue(toolTurn("read_file", { file_path: join(suite.project, "foo") }), textTurn("I see Lorem ipsum."));
    const { sessionId } = await h.newSession(suite.project);
    const { response, updates } = await h.prompt(
      sessionId,
      `Read ${join(suite.project, "foo")} and tell me what you see.`,
    );
    expect(response.stopReason).toBe("end_turn");
    const calls = toolUpdates(updates);
    expect(calls[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "read", status: "pending" });
    expect(calls.at(-1)).toMatchObject({ status: "completed" });
    expect(calls.some((c) => c.title === "foo")).toBe(true);
    expect(h.permissions).toHaveLength(0);
    const toolResult = JSON.stringify(h.model.requests[1]!.body);
    expect(toolResult).toContain("Lorem ipsum dolor");
  });

  it("asks before running a command and shows its output", async () => {
    const h = await suite.start();
    h.model.enqueue(
      toolTurn("execute", { command: 'touch hello.txt && echo "Hello, world!" | tee hello.txt' }),
      textTurn("Done."),
    );
    const { sessionId } = await h.newSession(suite.project);
    const { response, updates } = await h.prompt(sessionId, "Run it");
    expect(response.stopReason).toBe("end_turn");
    expect(h.permissions).toHaveLength(1);
    expect(h.permissions[0]!.toolCall.title).toContain("touch");
    expect(h.permissions[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    const final = toolUpdates(updates).at(-1)!;
    expect(final.status).toBe("completed");
    expect(JSON.stringify(final.content)).toContain("Hello, world!");
    expect(await readFile(join(suite.project, "hello.txt"), "utf8")).toBe("Hello, world!\n");
  });

  it("fails a rejected call, tells the model and goes on", async () => {
    const h = await suite.start({ onPermission: () => "reject_once" });
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "x.txt"), content: "x" }),
      textTurn("OK, I won't."),
    );
    const { sessionId } = await h.newSession(suite.project);
    const { response, updates } = await h.prompt(sessionId, "write it");
    expect(response.stopReason).toBe("end_turn");
    expect(toolUpdates(updates).at(-1)).toMatchObject({ status: "failed" });
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("The user rejected this write_file call");
    await expect(readFile(join(suite.project, "x.txt"))).rejects.toThrow();
    expect(agentText(updates)).toBe("OK, I won't.");
  });

  it("remembers allow_always per command prefix", async () => {
    const h = await suite.start({ onPermission: () => "allow_always" });
    h.model.enqueue(
      toolTurn("execute", { command: "ls -a" }),
      toolTurn("execute", { command: "ls -la" }),
      textTurn("listed"),
    );
    const { sessionId } = await h.newSession(suite.project);
    await h.prompt(sessionId, "list twice");
    expect(h.permissions).toHaveLength(1);
    expect(h.permissions[0]!.options.find((o) => o.kind === "allow_always")?.name).toContain("ls");
  });
});
