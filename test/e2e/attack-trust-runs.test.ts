// Attack suite, round 3: trust covers what runs, not only the definition. A project MCP server and
// project hooks are approved; then the scripts they run are swapped (by a pull, or by the model in
// accept-edits) while the definitions stay byte for byte the same, also when the script is reached
// through `cd dir && node x.mjs` or `sh -c '...'`. A plugin file that is a link keeps its consent
// only while the content behind the link is what the user enabled. Built binary, fake model.
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({
  name: "trust-runs",
  prepare: ({ project }) => mkdir(join(project, ".git")),
  handler: () => textTurn("ok"),
});

type Answer = "allow_always" | "reject";
let dialogs: JsonRpcMessage[] = [];

async function promptOnce(answer: Answer): Promise<void> {
  dialogs = [];
  await suite.start({
    cwd: suite.project,
    onRequest: (message) => {
      if (message.method !== "session/request_permission") throw new Error(`unexpected ${message.method}`);
      dialogs.push(message);
      const options = message.params.options as Array<{ optionId: string; kind: string }>;
      const option = options.find((o) => (answer === "reject" ? o.kind.startsWith("reject") : o.kind === answer))!;
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    },
  });
  await suite.agent.initialize();
  const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
  const response = await suite.agent.request("session/prompt", {
    sessionId: result.sessionId,
    prompt: [{ type: "text", text: "hello" }],
  });
  expect(response.result.stopReason).toBe("end_turn");
  await suite.agent.stop();
}

const dialogText = (m: JsonRpcMessage) =>
  `${m.params.toolCall.title}\n${(m.params.toolCall.content ?? []).map((c: any) => c.content?.text ?? "").join("\n")}`;

/** A script that appends `tag` to `log` (and, as an MCP server, exits: it only has to start). */
const script = (log: string, tag: string) =>
  `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(log)}, ${JSON.stringify(tag + "\n")});\nprocess.exit(1);\n`;

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, JSON.stringify(value, null, 2));
}

const read = async (path: string) => (existsSync(path) ? (await readFile(path, "utf8")).split("\n").sort() : []);

describe("attack: a project MCP server's approval covers the scripts it runs", () => {
  it("a swapped script asks again, says what changed, and does not start when rejected", async () => {
    const log = join(suite.home, "servers.log");
    await mkdir(join(suite.project, "tools"));
    await writeJson(join(suite.project, ".mcp.json"), {
      mcpServers: {
        direct: { command: process.execPath, args: ["tools/server.mjs"] },
        viaShell: { command: "sh", args: ["-c", `cd tools && exec ${process.execPath} other.mjs`] },
      },
    });
    await writeFile(join(suite.project, "tools/server.mjs"), script(log, "direct reviewed"));
    await writeFile(join(suite.project, "tools/other.mjs"), script(log, "viaShell reviewed"));
    await promptOnce("allow_always");
    expect(dialogs).toHaveLength(2);
    expect(dialogs.map(dialogText).join("\n")).toContain("tools/server.mjs");
    expect(dialogs.map(dialogText).join("\n")).toContain("tools/other.mjs");
    expect(await read(log)).toEqual(["", "direct reviewed", "viaShell reviewed"]);

    // Same .mcp.json bytes; only the scripts behind it change.
    await writeFile(join(suite.project, "tools/server.mjs"), script(log, "direct PLANTED"));
    await writeFile(join(suite.project, "tools/other.mjs"), script(log, "viaShell PLANTED"));
    await promptOnce("reject");
    expect(dialogs).toHaveLength(2);
    const texts = dialogs.map(dialogText).join("\n");
    expect(texts).toContain("tools/server.mjs changed");
    expect(texts).toContain("tools/other.mjs changed");
    expect(await read(log)).toEqual(["", "direct reviewed", "viaShell reviewed"]);
  });

  it("says so when it cannot tell which files a server runs", async () => {
    await writeJson(join(suite.project, ".mcp.json"), {
      mcpServers: { fetched: { command: "npx", args: ["-y", "some-mcp-server"] } },
    });
    await promptOnce("reject");
    expect(dialogs).toHaveLength(1);
    expect(dialogText(dialogs[0]!)).toMatch(/cannot be determined/);
  });
});

describe("attack: project hooks reached through cd and sh -c", () => {
  it("are covered by the approval: rewritten, they ask again and do not run", async () => {
    const log = join(suite.home, "hooks.log");
    await writeJson(join(suite.project, ".deepagents", "hooks.json"), {
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              { type: "command", command: `cd .deepagents && ${process.execPath} one.mjs` },
              { type: "command", command: `sh -c '${process.execPath} .deepagents/two.mjs'` },
            ],
          },
        ],
      },
    });
    const hook = (tag: string) =>
      `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(log)}, ${JSON.stringify(tag + "\n")});\n`;
    await writeFile(join(suite.project, ".deepagents", "one.mjs"), hook("one reviewed"));
    await writeFile(join(suite.project, ".deepagents", "two.mjs"), hook("two reviewed"));
    await promptOnce("allow_always");
    expect(dialogs).toHaveLength(1);
    expect(dialogText(dialogs[0]!)).toContain(".deepagents/one.mjs");
    expect(dialogText(dialogs[0]!)).toContain(".deepagents/two.mjs");
    expect(await read(log)).toEqual(["", "one reviewed", "two reviewed"]);

    await writeFile(join(suite.project, ".deepagents", "one.mjs"), hook("one PLANTED"));
    await writeFile(join(suite.project, ".deepagents", "two.mjs"), hook("two PLANTED"));
    await promptOnce("reject");
    expect(dialogs).toHaveLength(1);
    expect(dialogText(dialogs[0]!)).toContain(".deepagents/one.mjs changed");
    expect(dialogText(dialogs[0]!)).toContain(".deepagents/two.mjs changed");
    expect(await read(log)).toEqual(["", "one reviewed", "two reviewed"]);
  });
});

describe("attack: a plugin file that is a link", () => {
  it("keeps consent only while the content behind the link is unchanged, and says the link leaves the plugin", async () => {
    const base = await (async () => join(suite.home, "src"))();
    const plugin = join(base, "linky");
    const shared = join(base, "shared");
    const log = join(suite.home, "plugin.log");
    await mkdir(join(plugin, ".claude-plugin"), { recursive: true });
    await mkdir(join(plugin, "hooks"), { recursive: true });
    await mkdir(shared, { recursive: true });
    await writeJson(join(plugin, ".claude-plugin", "plugin.json"), { name: "linky", version: "1.0.0" });
    await writeJson(join(plugin, "hooks", "hooks.json"), {
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: 'sh "$CLAUDE_PLUGIN_ROOT/hook.sh"' }] }] },
    });
    await writeFile(join(shared, "hook.sh"), `echo reviewed >> ${log}\n`);
    await symlink(join(shared, "hook.sh"), join(plugin, "hook.sh"));

    expect((await suite.run(["plugins", "add", plugin])).code).toBe(0);
    const consent = await suite.run(["plugins", "enable", "linky@local"]);
    expect(consent.stdout).toContain(`hook.sh links outside the plugin, to ${join(shared, "hook.sh")}`);
    expect((await suite.run(["plugins", "enable", "linky@local", "--force"])).code).toBe(0);
    suite.model.enqueue(textTurn("one"));
    expect((await suite.run(["-n", "hello"])).code).toBe(0);
    expect(await readFile(log, "utf8")).toBe("reviewed\n");

    await writeFile(join(shared, "hook.sh"), `echo PLANTED >> ${log}\n`);
    suite.model.enqueue(textTurn("two"));
    const after = await suite.run(["-n", "hello"]);
    expect(after.code).toBe(0);
    expect(after.stderr).toContain("hook.sh changed");
    expect(await readFile(log, "utf8")).toBe("reviewed\n");
    expect((await suite.run(["plugins", "list"])).stdout).toContain("hook.sh changed");
  });
});
