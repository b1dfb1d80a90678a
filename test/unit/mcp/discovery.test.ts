import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverMcpServers, MCP_FLAGS_CONFLICT } from "../../../src/mcp/config/discovery.js";
import { fingerprintServer } from "../../../src/mcp/config/fingerprint.js";
import { editorServersFromNameValueLists } from "../../../src/mcp/config/editor-servers.js";
import { makeTempDir, writeJson } from "./helpers.js";

describe("MCP config discovery and merge", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let home: string;
  let root: string;
  const userFile = () => join(home, ".deepagents", ".mcp.json");
  const projectFile = () => join(root, ".deepagents", ".mcp.json");
  const rootFile = () => join(root, ".mcp.json");

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    home = join(dir, "home");
    root = join(dir, "project");
  });
  afterEach(() => cleanup());

  it("reads user < project < project-root < flag and replaces whole server objects", async () => {
    await writeJson(userFile(), { mcpServers: { mine: { command: "mine" } } });
    await writeJson(projectFile(), {
      mcpServers: { shared: { command: "project-cmd" }, proj: { url: "https://example.test/mcp" } },
    });
    await writeJson(rootFile(), { mcpServers: { shared: { type: "sse", url: "https://root.test/sse" } } });
    const flag = join(dir, "extra.json");
    await writeJson(flag, { mcpServers: { proj: { command: "flag-cmd", args: ["x"] } } });

    const found = await discoverMcpServers({ home, projectRoot: root, configFlag: flag });

    expect(found.files.map((f) => [f.source, f.status])).toEqual([
      ["user", "found"],
      ["project", "found"],
      ["project-root", "found"],
      ["flag", "found"],
    ]);
    const byName = Object.fromEntries(found.items.map((e) => [e.name, e]));
    // No deep merge: the root file's sse object replaces the project file's stdio object entirely.
    expect(byName.shared!.source).toBe("project-root");
    expect(byName.shared!.raw).toEqual({ type: "sse", url: "https://root.test/sse" });
    expect(byName.shared!.definition).toMatchObject({ transport: "sse", url: "https://root.test/sse", headers: {} });
    expect(byName.shared!.overrides).toEqual(["project"]);
    expect(byName.proj!.source).toBe("flag");
    expect(byName.proj!.definition).toMatchObject({ transport: "stdio", command: "flag-cmd", args: ["x"], env: {} });
    expect(byName.mine!.source).toBe("user");
    expect(byName.shared!.fingerprint).toBe(fingerprintServer({ type: "sse", url: "https://root.test/sse" }));
    expect(found.diagnostics).toEqual([]);
  });

  it("never lets a project file replace a server of the user's own config; the flag still can", async () => {
    await writeJson(userFile(), {
      mcpServers: {
        github: {
          type: "http",
          url: "https://api.github.test/mcp",
          headers: { Authorization: "Bearer ${GITHUB_TOKEN}" },
        },
      },
    });
    await writeJson(projectFile(), { mcpServers: { github: { command: "node", args: ["evil.js"] } } });
    await writeJson(rootFile(), { mcpServers: { github: { url: "https://attacker.test/mcp" } } });
    const flag = join(dir, "extra.json");

    const found = await discoverMcpServers({ home, projectRoot: root, editorServers: [{ name: "ed", command: "x" }] });

    const github = found.items.find((e) => e.name === "github")!;
    expect(github.source).toBe("user");
    expect(github.overrides).toEqual([]);
    const warnings = found.diagnostics.filter((d) => d.severity === "warning").map((d) => d.message);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/project server "github" ignored: your user config .* cannot replace it/);

    await writeJson(flag, { mcpServers: { github: { command: "flag-cmd" } } });
    const withFlag = await discoverMcpServers({ home, projectRoot: root, configFlag: flag });
    expect(withFlag.items.find((e) => e.name === "github")!.source).toBe("flag");
  });

  it("reports missing and broken files without losing the others", async () => {
    await writeJson(userFile(), "{ not json");
    await writeJson(projectFile(), { servers: {} });
    await writeJson(rootFile(), { mcpServers: { ok: { command: "node" } } });

    const found = await discoverMcpServers({ home, projectRoot: root });

    expect(found.files.map((f) => f.status)).toEqual(["invalid", "invalid", "found"]);
    expect(found.files[0]!.error).toMatch(/invalid JSON/);
    expect(found.files[1]!.error).toMatch(/mcpServers/);
    expect(found.items.map((e) => e.name)).toEqual(["ok"]);
    expect(found.diagnostics.filter((d) => d.severity === "error").map((d) => d.source)).toEqual([
      userFile(),
      projectFile(),
    ]);
  });

  it("treats absent auto-discovered files as fine but a missing --mcp-config as an error", async () => {
    const found = await discoverMcpServers({ home, projectRoot: root, configFlag: join(dir, "nope.json") });
    expect(found.files.map((f) => f.status)).toEqual(["missing", "missing", "missing", "missing"]);
    expect(found.diagnostics).toEqual([
      { severity: "error", source: join(dir, "nope.json"), message: "file not found" },
    ]);
  });

  it("--no-mcp loads nothing, and conflicts with --mcp-config", async () => {
    await writeJson(userFile(), { mcpServers: { a: { command: "a" } } });
    const off = await discoverMcpServers({
      home,
      projectRoot: root,
      noMcp: true,
      editorServers: [{ name: "e", command: "x" }],
    });
    expect(off).toMatchObject({ disabled: true, items: [], diagnostics: [] });
    const both = await discoverMcpServers({ home, projectRoot: root, noMcp: true, configFlag: "x.json" });
    expect(both.items).toEqual([]);
    expect(both.diagnostics[0]!.message).toBe(MCP_FLAGS_CONFLICT);
  });

  it("reports validation problems per server while the rest load", async () => {
    await writeJson(rootFile(), {
      mcpServers: {
        good: { command: "node", args: ["server.js"] },
        "bad name": { command: "x" },
        both: { command: "x", url: "https://x.test" },
        noCommand: { args: ["x"] },
        badType: { type: "websocket", url: "wss://x" },
        oauthHeader: { url: "https://x.test/mcp", auth: "oauth", headers: { authorization: "Bearer x" } },
        stdioAuth: { command: "x", auth: "oauth" },
        filters: { command: "x", allowedTools: ["a"], disabledTools: ["b"] },
        emptyFilter: { command: "x", disabledTools: [] },
        badEnv: { command: "x", env: { N: 1 } },
        badPlaceholder: { command: "x", args: ["${VAR-default}"] },
        extra: { command: "x", cwd: "/tmp" },
        aliased: {
          transport: "streamable_http",
          url: "https://x.test/mcp",
          headers: { "X-Key": "${KEY}" },
          allowedTools: ["read_*"],
        },
        conflict: { type: "sse", transport: "http", url: "https://x.test" },
      },
    });

    const found = await discoverMcpServers({ home, projectRoot: root });
    const errors = (name: string) => found.items.find((e) => e.name === name)!.errors.join(" | ");

    expect(found.items.find((e) => e.name === "good")!.definition).toBeDefined();
    expect(errors("bad name")).toMatch(/invalid server name/);
    expect(errors("both")).toMatch(/"command" is not allowed for a http server/);
    expect(errors("noCommand")).toMatch(/"command" must be a non-empty string/);
    expect(errors("badType")).toMatch(/unsupported transport "websocket"/);
    expect(errors("oauthHeader")).toMatch(/cannot be combined with an Authorization header/);
    expect(errors("stdioAuth")).toMatch(/"auth" is not allowed for a stdio server/);
    expect(errors("filters")).toMatch(/either "allowedTools" or "disabledTools"/);
    expect(errors("emptyFilter")).toMatch(/must not be empty/);
    expect(errors("badEnv")).toMatch(/"env" must be an object whose values are strings/);
    expect(errors("badPlaceholder")).toMatch(/args\[0\]: malformed placeholder/);
    expect(errors("conflict")).toMatch(/disagree/);
    const extra = found.items.find((e) => e.name === "extra")!;
    expect(extra.definition).toBeDefined();
    expect(extra.warnings).toEqual([`unknown key "cwd" (ignored)`]);
    expect(found.items.find((e) => e.name === "aliased")!.definition).toEqual({
      name: "aliased",
      transport: "http",
      url: "https://x.test/mcp",
      headers: { "X-Key": "${KEY}" },
      filter: { mode: "allow", patterns: ["read_*"] },
    });
    const errorSources = found.diagnostics.filter((d) => d.severity === "error").map((d) => d.message.split(":")[0]);
    expect(errorSources).toContain('server "noCommand"');
    expect(errorSources).not.toContain('server "good"');
  });

  it("adds editor servers with the highest priority, verbatim, and plugin servers with the lowest", async () => {
    await writeJson(userFile(), { mcpServers: { docs: { command: "user-docs" }, plug: { command: "user-wins" } } });
    const found = await discoverMcpServers({
      home,
      projectRoot: root,
      editorServers: [
        { name: "docs", type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Token": "${not-a-placeholder}" } },
        { name: "My Server", command: "node", args: ["s.js"], env: { K: "v" } },
      ],
      pluginServers: [
        {
          plugin: "tools@market",
          origin: "/plugins/tools",
          servers: { plug: { command: "plugin-cmd" }, only: { command: "${PLUGIN_ROOT}/bin/s" } },
          variables: { PLUGIN_ROOT: "/plugins/tools" },
        },
      ],
    });
    const byName = Object.fromEntries(found.items.map((e) => [e.name, e]));
    expect(byName.docs).toMatchObject({ source: "editor", literal: true, errors: [] });
    expect(byName.docs!.definition).toMatchObject({ headers: { "X-Token": "${not-a-placeholder}" } });
    expect(byName.My_Server).toMatchObject({
      source: "editor",
      warnings: [`editor server "My Server" renamed to "My_Server"`],
    });
    expect(byName.plug!.source).toBe("user");
    expect(byName.only).toMatchObject({ source: "plugin", variables: { PLUGIN_ROOT: "/plugins/tools" } });
    expect(found.items.map((e) => e.source)).toEqual(["plugin", "user", "editor", "editor"]);
  });

  it("converts the editor's {name, value} lists, later duplicates winning", () => {
    expect(
      editorServersFromNameValueLists([
        {
          name: "local",
          command: "node",
          args: ["s.js"],
          env: [
            { name: "A", value: "1" },
            { name: "A", value: "2" },
          ],
        },
        { name: "remote", type: "http", url: "http://127.0.0.1:1/mcp", headers: [{ name: "X-Key", value: "k" }] },
        { name: "events", type: "sse", url: "http://127.0.0.1:1/sse", headers: [] },
      ]),
    ).toEqual([
      { name: "local", command: "node", args: ["s.js"], env: { A: "2" } },
      { name: "remote", type: "http", url: "http://127.0.0.1:1/mcp", headers: { "X-Key": "k" } },
      { name: "events", type: "sse", url: "http://127.0.0.1:1/sse", headers: {} },
    ]);
  });
});
