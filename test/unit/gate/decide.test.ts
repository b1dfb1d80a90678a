// The gate's decision alone, as a table: mode x effect x where the real target is.
import { describe, expect, it } from "vitest";
import { decide, type GateRequest, type GateTarget } from "../../../src/gate/decide/decide.js";
import { checkFileRules } from "../../../src/gate/rules/path-rules.js";
import { createProtectedPaths } from "../../../src/gate/surfaces/protected-paths.js";
import { compileFileRules } from "../../../src/gate/rules/file-rules.js";
import type { SessionMode } from "../../../src/gate/decide/modes.js";
import type { ToolEffect } from "../../../src/tools/types.js";

const ROOT = "/p";
const file = (requested: string, real = requested, extra: Partial<GateTarget> = {}): GateTarget => ({
  requested,
  real,
  exists: true,
  isDirectory: false,
  hardLinks: 1,
  ...extra,
});

function request(
  effect: ToolEffect,
  mode: SessionMode,
  targets: GateTarget[],
  extra: Partial<GateRequest> = {},
): GateRequest {
  const names: Record<ToolEffect, string> = {
    read: "read_file",
    edit: "write_file",
    delete: "delete",
    execute: "execute",
    external: "mcp_tool",
    network: "web_fetch",
    none: "write_todos",
  };
  return {
    tool: { name: names[effect], effect },
    mode,
    roots: [ROOT],
    readRoots: [],
    targets,
    protectedPaths: createProtectedPaths(),
    remembered: () => undefined,
    ...extra,
  };
}

type Row = [string, ToolEffect, SessionMode, GateTarget[], "allow" | "ask" | "deny", (string | null)?];

const inside = file("/p/src/a.ts");
const linkOut = file("/p/link.txt", "/home/u/.ssh/id_rsa");
const dirLinkOut = file("/p/d/x", "/home/u/x");
const hardLinked = file("/p/hard.txt", "/p/hard.txt", { hardLinks: 2 });
const gitConfig = file("/p/.git/config");
const nestedGit = file("/p/vendor/lib/.git/hooks/pre-commit");
const mcpJson = file("/p/.mcp.json");
const newViaLink = file("/p/linkdir/new.txt", "/etc/new.txt", { exists: false });
const memory = { ...file("/memories/notes.md"), virtual: true, shared: true };
const offloaded = { ...file("/large_tool_results/x"), virtual: true };
const folder = file("/p/build", "/p/build", { isDirectory: true });
const outsideFolder = file("/tmp/x", "/tmp/x", { isDirectory: true });

const rows: Row[] = [
  ["read inside", "read", "default", [inside], "allow"],
  ["read through a link out", "read", "default", [linkOut], "ask", "read:outside:/home/u/.ssh/id_rsa"],
  [
    "read through a link out, accept-edits",
    "read",
    "accept-edits",
    [linkOut],
    "ask",
    "read:outside:/home/u/.ssh/id_rsa",
  ],
  ["read through a link out, plan", "read", "plan", [linkOut], "ask", "read:outside:/home/u/.ssh/id_rsa"],
  ["read through a folder link out", "read", "default", [dirLinkOut], "ask", "read:outside:/home/u/x"],
  ["read a hard-linked file", "read", "accept-edits", [hardLinked], "ask", null],
  ["read an offloaded result", "read", "default", [offloaded], "allow"],
  ["read anything in bypass", "read", "bypass", [linkOut], "allow"],
  ["edit inside, default", "edit", "default", [inside], "ask", "edit:inside"],
  ["edit inside, accept-edits", "edit", "accept-edits", [inside], "allow"],
  ["edit inside, plan", "edit", "plan", [inside], "deny"],
  [
    "edit through a link out, accept-edits",
    "edit",
    "accept-edits",
    [linkOut],
    "ask",
    "edit:outside:/home/u/.ssh/id_rsa",
  ],
  [
    "create through a folder link out, accept-edits",
    "edit",
    "accept-edits",
    [newViaLink],
    "ask",
    "edit:outside:/etc/new.txt",
  ],
  ["edit a hard-linked file, accept-edits", "edit", "accept-edits", [hardLinked], "ask", null],
  ["edit .git/config, accept-edits", "edit", "accept-edits", [gitConfig], "ask", null],
  ["edit a nested repo's hook, accept-edits", "edit", "accept-edits", [nestedGit], "ask", null],
  ["edit .mcp.json, accept-edits", "edit", "accept-edits", [mcpJson], "ask", null],
  ["edit .git/config, bypass", "edit", "bypass", [gitConfig], "allow"],
  ["write /memories/, accept-edits", "edit", "accept-edits", [memory], "ask", "edit:outside:/memories/notes.md"],
  ["write an offloaded result, accept-edits", "edit", "accept-edits", [offloaded], "allow"],
  ["delete a file inside", "delete", "accept-edits", [inside], "ask", "tool:delete:inside"],
  ["delete through a link out", "delete", "accept-edits", [linkOut], "ask", "delete:outside:/home/u/.ssh/id_rsa"],
  ["delete a folder inside", "delete", "default", [folder], "ask", null],
  ["delete a folder outside", "delete", "default", [outsideFolder], "ask", null],
  ["delete .git", "delete", "accept-edits", [file("/p/.git", "/p/.git", { isDirectory: true })], "ask", null],
  ["delete in plan", "delete", "plan", [inside], "deny"],
  ["todos", "none", "plan", [], "allow"],
  ["mcp tool in plan", "external", "plan", [], "deny"],
  ["fetch in plan (no host given)", "network", "plan", [], "ask", null],
];

describe("gate decision table", () => {
  it.each(rows)("%s", (_name, effect, mode, targets, action, key) => {
    const decision = decide(request(effect, mode, targets));
    expect(decision.action).toBe(action);
    if (decision.action === "ask" && key !== undefined) expect(decision.alwaysKey).toBe(key);
  });

  it("names the real target and the link in the dialog", () => {
    const decision = decide(request("read", "default", [linkOut]));
    expect(decision.action === "ask" && decision.reason).toBe(
      "reads /home/u/.ssh/id_rsa (through the link /p/link.txt), outside the project",
    );
  });

  it("reads loaded skills' folders without asking, but never writes there", () => {
    const skill = file("/skills/a/SKILL.md");
    expect(decide(request("read", "default", [skill], { readRoots: ["/skills/a"] })).action).toBe("allow");
    expect(decide(request("edit", "accept-edits", [skill], { readRoots: ["/skills/a"] })).action).toBe("ask");
  });

  it("applies remembered choices only under the key the dialog offered", () => {
    const remembered = (key: string) => (key === "tool:delete:inside" ? "allow" : undefined);
    expect(decide(request("delete", "default", [inside], { remembered })).action).toBe("allow");
    expect(decide(request("delete", "default", [linkOut], { remembered })).action).toBe("ask");
    expect(decide(request("delete", "default", [folder], { remembered })).action).toBe("ask");
  });

  it("keeps a protected path asking when a hook allows, but lets a hook allow an ordinary ask", () => {
    expect(decide(request("edit", "default", [gitConfig], { hook: { decision: "allow" } })).action).toBe("ask");
    expect(decide(request("edit", "default", [inside], { hook: { decision: "allow" } })).action).toBe("allow");
    expect(decide(request("edit", "bypass", [inside], { hook: { decision: "ask" } })).action).toBe("ask");
    expect(decide(request("read", "bypass", [inside], { hook: { decision: "deny", reason: "no" } })).action).toBe(
      "deny",
    );
  });

  it("denies what a file rule denies, whatever the mode", () => {
    const rules = { action: "deny" as const, reason: "permission denied for read on /home/u/.ssh/id_rsa" };
    expect(decide(request("read", "bypass", [linkOut], { rules })).action).toBe("deny");
  });

  it.each([
    ["edit", "default", [inside], {}, "Always allow edits in this project"],
    ["delete", "default", [inside], {}, "Always allow deleting files in this project"],
    ["read", "default", [linkOut], {}, "Always allow reading /home/u/.ssh/id_rsa"],
    ["edit", "default", [linkOut], {}, "Always allow changing /home/u/.ssh/id_rsa"],
    ["network", "default", [], { host: "example.com" }, "Always allow fetching from example.com"],
    [
      "external",
      "default",
      [],
      { tool: { name: "github_create_issue", hookName: "mcp__github__create_issue", effect: "external" } },
      "Always allow `create_issue` from the MCP server `github`",
    ],
  ] as Array<[ToolEffect, SessionMode, GateTarget[], Partial<GateRequest>, string]>)(
    "labels 'always' in the user's words: %s in %s -> %s",
    (effect, mode, targets, extra, label) => {
      const decision = decide(request(effect, mode, targets, extra));
      expect(decision.action).toBe("ask");
      expect((decision as { alwaysLabel: string | null }).alwaysLabel).toBe(label);
    },
  );

  it("labels a file rule's 'always' as reading or changing the path", () => {
    const rules = compileFileRules([{ operations: ["read", "write"], paths: ["/p/src/**"], mode: "ask" }]).items;
    const label = (effect: ToolEffect) =>
      (checkFileRules(rules, false, effect, [inside]) as { alwaysLabel?: string } | undefined)?.alwaysLabel;
    expect(label("read")).toBe("Always allow reading /p/src/a.ts");
    expect(label("edit")).toBe("Always allow changing /p/src/a.ts");
  });
});
