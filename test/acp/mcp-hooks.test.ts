// MCP servers (editor-passed and project), project trust dialogs, and hooks, end to end over ACP.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { agentText, toolUpdates } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const EVERYTHING = resolve(__dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const suite = useHarnessSuite({ name: "mcp-hooks", prepare: gitProject });

describe("MCP", () => {
  it("uses a stdio server the editor passes, without asking (editor servers are trusted)", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project, {
      mcpServers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] }],
    });
    h.model.setHandler((request) =>
      request.messages.length === 1 ? toolTurn("everything_echo", { message: "hi from mcp" }) : textTurn("echoed"),
    );
    const { updates } = await h.prompt(sessionId, "echo something");
    expect(h.model.requests[0]!.toolNames).toContain("everything_echo");
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("Echo: hi from mcp");
    expect(toolUpdates(updates).at(-1)).toMatchObject({ status: "completed" });
    const status = agentText((await h.prompt(sessionId, "/mcp")).updates);
    expect(status).toContain("everything");
  });

  it("asks before starting a project server; allow once works for this session only", async () => {
    await writeFile(
      join(suite.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }),
    );
    const h = await suite.start({ onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    const dialog = h.permissions.find((p) => p.toolCall.title?.includes("proj"));
    expect(dialog).toBeDefined();
    expect(JSON.stringify(dialog!.toolCall.content)).toContain(EVERYTHING);
    expect(dialog!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
    expect(h.model.requests[0]!.toolNames).toContain("proj_echo");
  });

  it("remembers 'never' and does not ask again", async () => {
    await writeFile(
      join(suite.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }),
    );
    const h = await suite.start({ onPermission: () => "reject_always" });
    const first = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"), textTurn("ok"));
    await h.prompt(first.sessionId, "hi");
    expect(h.model.requests[0]!.toolNames).not.toContain("proj_echo");
    const second = await h.newSession(suite.project);
    await h.prompt(second.sessionId, "hi again");
    expect(h.permissions.filter((p) => p.toolCall.title?.includes("proj"))).toHaveLength(1);
  });
});

describe("hooks", () => {
  const hooksFile = (home: string) => join(home, ".deepagents", "hooks.json");

  it("a user PreToolUse hook that exits 2 blocks a command; the model is told why", async () => {
    const h = await suite.start({
      setupHome: async (home) => {
        await mkdir(join(home, ".deepagents"), { recursive: true });
        await writeFile(
          hooksFile(home),
          JSON.stringify({
            hooks: {
              PreToolUse: [
                { matcher: "Bash", hooks: [{ type: "command", command: "echo 'no shell today' >&2; exit 2" }] },
              ],
            },
          }),
        );
      },
    });
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    h.model.enqueue(toolTurn("execute", { command: "touch blocked.txt" }), textTurn("ok"));
    const { updates } = await h.prompt(sessionId, "run it");
    expect(toolUpdates(updates).at(-1)).toMatchObject({ status: "failed" });
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("Bash blocked by hook: no shell today");
    await expect(readFile(join(suite.project, "blocked.txt"))).rejects.toThrow();
  });

  it("UserPromptSubmit can block a prompt and SessionStart adds context", async () => {
    const h = await suite.start({
      setupHome: async (home) => {
        await mkdir(join(home, ".deepagents"), { recursive: true });
        await writeFile(
          hooksFile(home),
          JSON.stringify({
            hooks: {
              SessionStart: [{ hooks: [{ type: "command", command: "echo 'The build command is make.'" }] }],
              UserPromptSubmit: [
                {
                  hooks: [
                    {
                      type: "command",
                      command: "grep -q forbidden && { echo 'that word is not allowed' >&2; exit 2; } || exit 0",
                    },
                  ],
                },
              ],
            },
          }),
        );
      },
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hello");
    expect(JSON.stringify(h.model.requests[0]!.body)).toContain("The build command is make.");
    const blocked = await h.prompt(sessionId, "say the forbidden word");
    expect(agentText(blocked.updates)).toContain("that word is not allowed");
    expect(h.model.requests).toHaveLength(1);
  });

  it("runs project hooks only after the user trusts them in the editor", async () => {
    await mkdir(join(suite.project, ".deepagents"), { recursive: true });
    await writeFile(
      join(suite.project, ".deepagents", "hooks.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Read", hooks: [{ type: "command", command: "echo 'project hook says no' >&2; exit 2" }] },
          ],
        },
      }),
    );
    await writeFile(join(suite.project, "a.txt"), "a");
    const h = await suite.start({
      onPermission: (request) => (request.toolCall.title?.includes("hooks") ? "reject_once" : "allow_once"),
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("read_file", { file_path: join(suite.project, "a.txt") }), textTurn("read"));
    await h.prompt(sessionId, "read a");
    const dialog = h.permissions.find((p) => p.toolCall.title?.includes("hooks"));
    expect(JSON.stringify(dialog!.toolCall.content)).toContain("project hook says no");
    // Rejected: the hook did not run and the read succeeded.
    expect(JSON.stringify(h.model.requests[1]!.body)).not.toContain("project hook says no");

    await h.close();
    // A new agent on a HOME of its own.
    const next = await suite.start({ home: await suite.tempDir("home-2"), onPermission: () => "allow_always" });
    const again = await next.newSession(suite.project);
    next.model.enqueue(toolTurn("read_file", { file_path: join(suite.project, "a.txt") }), textTurn("read"));
    await next.prompt(again.sessionId, "read a");
    expect(JSON.stringify(next.model.requests[1]!.body)).toContain("Read blocked by hook: project hook says no");
  });

  it("a Stop hook can keep the turn going", async () => {
    const h = await suite.start({
      setupHome: async (home) => {
        await mkdir(join(home, ".deepagents"), { recursive: true });
        const script = join(home, "stop.sh");
        await writeFile(
          script,
          `#!/bin/sh\ninput=$(cat)\ncase "$input" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"Also run the tests."}';; esac\n`,
          { mode: 0o755 },
        );
        await writeFile(
          hooksFile(home),
          JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: script }] }] } }),
        );
      },
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("Done with the change."), textTurn("Tests pass too."));
    const { updates } = await h.prompt(sessionId, "change it");
    expect(h.model.requests).toHaveLength(2);
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("Also run the tests.");
    expect(agentText(updates)).toContain("Tests pass too.");
    expect(agentText((await h.prompt(sessionId, "/hooks")).updates)).toContain("Stop");
  });
});

describe("interpreter", () => {
  it("runs eval with read tools callable from code, shown as calls nested under the eval", async () => {
    const h = await suite.start();
    await writeFile(join(suite.project, "n.txt"), "41");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("eval", {
        code: `const t = await tools.readFile({ file_path: ${JSON.stringify(join(suite.project, "n.txt"))} }); console.log("read", t.trim()); Number(t) + 1`,
      }),
      textTurn("It is 42."),
    );
    const { updates } = await h.prompt(sessionId, "compute");
    expect(h.model.requests[0]!.toolNames).toContain("eval");
    expect(h.model.requests[0]!.system).toContain("tools.readFile");
    const sent = JSON.stringify(h.model.requests[1]!.body);
    expect(sent).toContain("read 41");
    expect(sent).toContain("42");
    // Announced with its presentation's title (not its name) once the code was complete.
    const evalCall = toolUpdates(updates).find(
      (u) =>
        u.sessionUpdate === "tool_call" &&
        (u._meta as { "deep-acp"?: { toolName?: string } })?.["deep-acp"]?.toolName === "eval",
    )!;
    expect(evalCall.title).not.toBe("eval");
    const nested = toolUpdates(updates).filter(
      (u) =>
        u.sessionUpdate === "tool_call" &&
        (u._meta as { "deep-acp"?: { parentToolCallId?: string } })?.["deep-acp"]?.parentToolCallId ===
          evalCall.toolCallId,
    );
    expect(nested.map((u) => u.kind)).toEqual(["read"]);
    expect(h.permissions).toHaveLength(0); // read-only allowlist: no dialog
  });
});
