import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkBwrapAvailable } from "../../src/backends/sandbox/bwrap-sandbox.js";
import { agentText, toolUpdates } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({
  name: "perm",
  prepare: async ({ project }) => {
    await mkdir(join(project, "private"), { recursive: true });
    await writeFile(join(project, "private", "secret.txt"), "TOP-SECRET-VALUE");
    await writeFile(join(project, "public.txt"), "public data");
    await writeFile(join(project, "ask.txt"), "needs a yes");
  },
});

function rulesToml(project: string): string {
  return [
    "[[permissions]]",
    'operations = ["read", "write"]',
    `paths = ["${project}/private/**"]`,
    'mode = "deny"',
    "",
    "[[permissions]]",
    'operations = ["read"]',
    `paths = ["${project}/ask.txt"]`,
    'mode = "ask"',
  ].join("\n");
}

async function withRules(home: string) {
  await mkdir(join(home, ".deepagents"), { recursive: true });
  await writeFile(join(home, ".deepagents", "config.toml"), rulesToml(suite.project));
}

describe("file permission rules", () => {
  it("denies reads of protected files, even in bypass mode, and tells the model", async () => {
    const h = await suite.start({ setupHome: withRules });
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    h.model.enqueue(
      toolTurn("read_file", { file_path: join(suite.project, "private", "secret.txt") }),
      textTurn("denied"),
    );
    const { updates } = await h.prompt(sessionId, "read the secret");
    expect(toolUpdates(updates).at(-1)).toMatchObject({ status: "failed" });
    const sent = JSON.stringify(h.model.requests[1]!.body);
    expect(sent).toContain(`permission denied for read on ${join(suite.project, "private", "secret.txt")}`);
    expect(sent).not.toContain("TOP-SECRET-VALUE");
  });

  it("leaves denied paths out of listings and searches", async () => {
    const h = await suite.start({ setupHome: withRules });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("grep", { pattern: "TOP-SECRET-VALUE", path: suite.project }),
      toolTurn("glob", { pattern: "**/*.txt", path: suite.project }),
      textTurn("searched"),
    );
    await h.prompt(sessionId, "search");
    const grep = JSON.stringify(h.model.requests[1]!.body);
    expect(grep).toContain("No matches found for pattern 'TOP-SECRET-VALUE'");
    const glob = JSON.stringify(h.model.requests[2]!.body);
    expect(glob).toContain("public.txt");
    expect(glob).not.toContain("secret.txt");
  });

  it("denies writes and deletes that reach protected paths", async () => {
    const h = await suite.start({ setupHome: withRules, onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "private", "new.txt"), content: "x" }),
      toolTurn("delete", { file_path: suite.project }),
      textTurn("ok"),
    );
    await h.prompt(sessionId, "write and delete");
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("permission denied for write");
    expect(JSON.stringify(h.model.requests[2]!.body)).toContain("matches deny rule");
    expect(await readFile(join(suite.project, "private", "secret.txt"), "utf8")).toBe("TOP-SECRET-VALUE");
    await expect(readFile(join(suite.project, "private", "new.txt"))).rejects.toThrow();
  });

  it("asks in the editor for paths a rule marks `ask`", async () => {
    const h = await suite.start({ setupHome: withRules, onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("read_file", { file_path: join(suite.project, "ask.txt") }), textTurn("read it"));
    await h.prompt(sessionId, "read ask.txt");
    expect(h.permissions).toHaveLength(1);
    expect(JSON.stringify(h.permissions[0]!.toolCall._meta)).toContain("file rules ask");
    expect(JSON.stringify(h.model.requests[1]!.body)).toContain("needs a yes");
  });

  it("never offers 'always' for unsandboxed commands when rules exist", async () => {
    const h = await suite.start({ setupHome: withRules, onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("execute", { command: "ls" }), textTurn("ok"));
    await h.prompt(sessionId, "ls");
    expect(h.permissions[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
  });
});

describe("remembered choices", () => {
  it("persist per project across sessions and can be revoked with /permissions", async () => {
    const h = await suite.start({ onPermission: () => "allow_always" });
    const first = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("execute", { command: "git status" }), textTurn("ok"));
    await h.prompt(first.sessionId, "status");
    expect(h.permissions).toHaveLength(1);

    const second = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("execute", { command: "git status --short" }), textTurn("ok"));
    await h.prompt(second.sessionId, "status again");
    expect(h.permissions).toHaveLength(1);
    const listing = agentText((await h.prompt(second.sessionId, "/permissions")).updates);
    expect(listing).toContain("1. Allowed: Always allow `git status` with any arguments");
    // The same key shape as every other kind: `tool:<the approval's key>`.
    expect(listing).toMatch(/with any arguments — `tool:[^`]*git status[^`]*`/);

    expect(agentText((await h.prompt(second.sessionId, "/permissions revoke 1")).updates)).toContain("Forgot");
    const stored = JSON.parse(await readFile(join(h.home, ".deepagents", ".state", "approvals.json"), "utf8"));
    expect(JSON.stringify(stored)).not.toContain("git status");
    const third = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("execute", { command: "git status" }), textTurn("ok"));
    await h.prompt(third.sessionId, "status once more");
    expect(h.permissions).toHaveLength(2);
  });

  it("remembers 'always reject' and fails later calls without asking", async () => {
    const h = await suite.start({ onPermission: () => "reject_always" });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("execute", { command: "npm publish" }),
      toolTurn("execute", { command: "npm publish --silent" }),
      textTurn("stopped"),
    );
    const { updates } = await h.prompt(sessionId, "publish");
    expect(h.permissions).toHaveLength(1);
    expect(toolUpdates(updates).filter((u) => u.status === "failed")).toHaveLength(2);
  });
});

describe("bubblewrap sandbox", async () => {
  const available = (await checkBwrapAvailable()).ok;
  it.skipIf(!available)(
    "runs commands with the project writable, the rest read-only or hidden, and no network",
    async () => {
      const h = await suite.start({ args: ["--sandbox", "bwrap"], onPermission: () => "allow_once" });
      const { sessionId } = await h.newSession(suite.project);
      const outside = await suite.tempDir("outside");
      h.model.enqueue(
        toolTurn("execute", { command: `echo inside > ${join(suite.project, "in.txt")} && echo ok` }),
        toolTurn("execute", { command: `echo outside > ${join(outside, "out.txt")}` }),
        toolTurn("execute", { command: `ls ${h.home} 2>&1; echo exit=$?` }),
        toolTurn("execute", {
          command: `node -e "require('http').get('http://127.0.0.1:1', () => {}).on('error', (e) => { console.log('net:', e.code); })"`,
        }),
        textTurn("sandboxed"),
      );
      await h.prompt(sessionId, "try things");
      expect(await readFile(join(suite.project, "in.txt"), "utf8")).toBe("inside\n");
      await expect(readFile(join(outside, "out.txt"))).rejects.toThrow();
      expect(JSON.stringify(h.model.requests[2]!.body)).toMatch(/Read-only file system|No such file|Permission denied/);
      expect(JSON.stringify(h.model.requests[4]!.body)).toMatch(/net: (ENETUNREACH|ECONNREFUSED|EACCES)/);
    },
  );
});
