import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectMcpList } from "../../../src/mcp/commands.js";
import { discoverMcpServers } from "../../../src/mcp/config/discovery.js";
import { renderMcpList, renderMcpPromptSection, renderMcpStatus } from "../../../src/mcp/render.js";
import { createMcpTrustResolver } from "../../../src/mcp/trust/trust.js";
import { createMcpTrustStore } from "../../../src/mcp/trust/trust-store.js";
import { FIXTURES, makeTempDir, NODE, writeJson } from "./helpers.js";

const FIXTURE = join(FIXTURES, "fixture-server.mjs");

describe("deep-acp mcp list and /mcp", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let home: string;
  let root: string;
  let stateDir: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    home = join(dir, "home");
    root = join(dir, "project");
    stateDir = join(home, ".deepagents", ".state");
  });
  afterEach(() => cleanup());

  async function list(trustProjectServers = false) {
    const discovery = await discoverMcpServers({ home, projectRoot: root });
    const trust = createMcpTrustResolver({
      store: createMcpTrustStore({ stateDir }),
      projectRoot: root,
      trustProjectServers,
    });
    return collectMcpList({
      discovery,
      trust,
      stateDir,
      manager: { env: { PATH: process.env.PATH }, stdinGraceMs: 200, termGraceMs: 200 },
    });
  }

  it("shows every source file, merged servers with source, transport, trust and status", async () => {
    await writeJson(join(home, ".deepagents", ".mcp.json"), {
      mcpServers: { fx: { command: NODE, args: [FIXTURE] }, broken: { command: NODE, args: ["${NOPE_VAR}"] } },
    });
    await writeJson(join(root, ".mcp.json"), {
      mcpServers: {
        proj: { command: NODE, args: [FIXTURE, "--project"], env: { SECRET: "hidden-value" } },
        api: { url: "https://api.test/mcp", headers: { "X-Key": "k-123" } },
      },
    });
    await writeJson(join(root, ".deepagents", ".mcp.json"), "[]");

    const report = await list();
    const text = renderMcpList(report);

    expect(text).toContain(`user          ${join(home, ".deepagents", ".mcp.json")}  (found, 2 servers)`);
    expect(text).toContain(`project       ${join(root, ".deepagents", ".mcp.json")}  (invalid: expected {"mcpServers"`);
    expect(text).toContain(`project-root  ${join(root, ".mcp.json")}  (found, 2 servers)`);
    expect(text).toMatch(/fx {2}\[user, stdio\] {2}ok, 6 tools/);
    expect(text).toMatch(/broken {2}\[user, stdio\] {2}error - args\[0\]: environment variable NOPE_VAR is not set/);
    expect(text).toMatch(/proj {2}\[project-root, stdio\] {2}untrusted - project server not approved/);
    expect(text).toMatch(/api {2}\[project-root, http\] {2}untrusted/);
    expect(text).toContain("url: https://api.test/mcp [headers: X-Key]");
    expect(text).toContain("trust: not approved");
    expect(text).not.toContain("hidden-value");
    expect(text).not.toContain("k-123");
    expect(text).toMatch(/Problems:\n {2}error: .*\.deepagents\/\.mcp\.json: expected/);

    const trusted = renderMcpList(await list(true));
    expect(trusted).toMatch(/proj {2}\[project-root, stdio\] {2}ok, 6 tools/);
    expect(trusted).toContain("trust: trusted by --trust-project-mcp");
  });

  it("says so when MCP is disabled or nothing is configured", async () => {
    const discovery = await discoverMcpServers({ home, projectRoot: root, noMcp: true });
    const trust = createMcpTrustResolver({ store: createMcpTrustStore({ stateDir }), projectRoot: root });
    expect(renderMcpList(await collectMcpList({ discovery, trust, stateDir }))).toBe("MCP is disabled (--no-mcp).\n");
    expect(renderMcpList(await list())).toContain("No MCP servers configured.");
  });

  it("renders /mcp with status, reasons, tools and the read-only caveat", async () => {
    await writeJson(join(home, ".deepagents", ".mcp.json"), {
      mcpServers: {
        fx: { command: NODE, args: [FIXTURE], allowedTools: ["echo", "fail", "nothing"] },
        gone: { command: "no-such-binary-xyz" },
      },
    });
    await writeJson(join(root, "README.md"), "project");
    const report = await list();
    const text = renderMcpStatus(report.servers);
    expect(text).toContain("### ✓ fx — ok");
    expect(text).toContain("- tools (2):\n  - `fx_echo` (read-only, as the server claims)\n  - `fx_fail`");
    expect(text).toContain("- warning: filter entries matching no tool: nothing");
    expect(text).toMatch(/- hidden by filter: crash, slow/);
    expect(text).toContain("### ✗ gone — error\n- stdio: `no-such-binary-xyz`");
    expect(text).toContain("- reason: command not found: no-such-binary-xyz");
    expect(renderMcpStatus([])).toMatch(/No MCP servers configured/);

    const prompt = renderMcpPromptSection(report.servers);
    expect(prompt).toContain("- fx (stdio): `fx_echo`, `fx_fail`");
    expect(prompt).not.toContain("gone");
    expect(renderMcpPromptSection([])).toBe("");
  });
});
