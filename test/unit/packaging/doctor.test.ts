import { chmod, cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  collectDoctorReport,
  runDoctor,
  type DoctorOptions,
  type DoctorReport,
} from "../../../src/cli/doctor/doctor.js";
import { createHookTrustStore, loadHooksConfig, describeProjectHooks } from "../../../src/hooks/index.js";
import { createMcpTrustStore, fingerprintServer } from "../../../src/mcp/index.js";
import { installReviewPlugin } from "./review-plugin.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "packaging", "doctor");
const temps: string[] = [];

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A copy of fixtures/<name> in a temp dir; the project gets a `.git` so it is a project root. */
async function tree(name: "clean" | "broken"): Promise<{ home: string; project: string; state: string }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-doctor-")));
  temps.push(dir);
  await cp(join(FIXTURES, name), dir, { recursive: true });
  await mkdir(join(dir, "project", ".git"));
  return { home: join(dir, "home"), project: join(dir, "project"), state: join(dir, "home", ".deepagents", ".state") };
}

const bwrapWorks = async () => ({ ok: true }) as const;

async function doctor(
  options: Partial<DoctorOptions> & Pick<DoctorOptions, "cwd" | "home">,
): Promise<{ code: number; text: string; report: DoctorReport }> {
  const base: DoctorOptions = {
    env: { ANTHROPIC_API_KEY: "sk-test" },
    agent: "agent",
    json: false,
    checkBwrap: bwrapWorks,
    nodeVersion: "v20.20.2",
    ...options,
  };
  let text = "";
  const code = await runDoctor(base, { stdout: { write: (chunk: string) => (text += chunk) } });
  let json = "";
  const jsonCode = await runDoctor({ ...base, json: true }, { stdout: { write: (chunk: string) => (json += chunk) } });
  expect(jsonCode).toBe(code);
  return { code, text, report: JSON.parse(json) as DoctorReport };
}

/** Every file and directory under `dir` with its size and mtime, to prove doctor wrote nothing. */
async function snapshot(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return Promise.all(
    entries.sort().map(async (entry) => {
      const info = await stat(join(dir, entry));
      return `${entry} ${info.isDirectory() ? "dir" : info.size} ${info.mtimeMs}`;
    }),
  );
}

describe("deep-acp doctor on a healthy setup", () => {
  it("exits 0 and reports where the model, config, MCP, hooks, memory, skills and subagents came from", async () => {
    const { home, project } = await tree("clean");
    const { code, text, report } = await doctor({ cwd: join(project, "src"), home });
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.projectRoot).toBe(project);

    expect(report.model).toMatchObject({
      ok: true,
      spec: "anthropic:claude-sonnet-4-5",
      credential: "ANTHROPIC_API_KEY (environment)",
      env: ["ANTHROPIC_API_KEY"],
    });
    expect(report.model.source).toContain("config.toml");
    expect(report.config.file).toEqual({ path: join(home, ".deepagents", "config.toml"), state: "found" });
    expect(report.mcp.files.map((f) => [f.level, f.state, f.servers])).toEqual([
      ["user", "found", ["notes"]],
      ["project", "missing", []],
      ["project-root", "found", ["project-db"]],
    ]);
    const projectDb = report.mcp.servers.find((s) => s.name === "project-db");
    expect(projectDb).toMatchObject({
      source: "project-root",
      transport: "stdio",
      target: "node db-server.js --read-only",
      trust: { state: "pending", allowed: false },
    });
    expect(report.mcp.servers.find((s) => s.name === "notes")?.trust).toBeUndefined();
    expect(report.hooks.files.map((f) => [f.scope, f.state, f.handlers])).toEqual([
      ["user", "found", 1],
      ["project", "found", 1],
    ]);
    expect(report.hooks.projectTrust).toMatchObject({
      status: "untrusted",
      commands: ["PreToolUse[Bash]: ./scripts/check-command.sh"],
    });
    expect(report.memory.files.map((f) => [f.scope, f.state])).toEqual([
      ["user", "found"],
      ["project", "missing"],
      ["project", "found"],
    ]);
    expect(report.skills.skills.map((s) => [s.name, s.scope])).toEqual([
      ["hello", "user"],
      ["release-notes", "project"],
    ]);
    expect(report.skills.builtin).toEqual(["remember", "skill-creator"]);
    expect(report.subagents.items.map((a) => [a.name, a.source])).toEqual([
      ["general-purpose", "builtin"],
      ["reviewer", "user"],
      ["tester", "project"],
    ]);
    expect(report.sandbox).toMatchObject({ kind: "none", bwrap: { ok: true } });
    expect(report.node).toMatchObject({ version: "v20.20.2", ok: true });

    expect(text).toContain("✓ anthropic:claude-sonnet-4-5 (chosen by ~/.deepagents/config.toml [model].default)");
    expect(text).toContain("key: ANTHROPIC_API_KEY (environment)");
    expect(text).toMatch(/– project\s+.*\/\.deepagents\/\.mcp\.json: not found/);
    expect(text).toContain(
      "! project-db [project-root, stdio] node db-server.js --read-only: project server not approved",
    );
    expect(text).toContain("! project hooks not trusted yet");
    expect(text).toContain("✓ release-notes (project)");
    expect(text).toContain("✓ tester (project)");
    expect(text).toContain("✓ Nothing is broken.");
  });

  it("never writes: the home and project trees are unchanged", async () => {
    const { home, project } = await tree("clean");
    const before = [await snapshot(home), await snapshot(project)];
    await doctor({ cwd: project, home });
    expect([await snapshot(home), await snapshot(project)]).toEqual(before);
  });

  it("shows approved project servers and trusted project hooks, and the flags that trust them for one run", async () => {
    const { home, project, state } = await tree("clean");
    const raw = JSON.parse(await readFile(join(project, ".mcp.json"), "utf8")).mcpServers["project-db"];
    await createMcpTrustStore({ stateDir: state }).approve(project, "project-db", fingerprintServer(raw));
    const request = (await describeProjectHooks(
      await loadHooksConfig([{ scope: "project", file: join(project, ".deepagents", "hooks.json") }]),
      project,
    ))!;
    await createHookTrustStore({ stateDir: state }).trust(project, request.fingerprint);

    const trusted = await doctor({ cwd: project, home });
    expect(trusted.report.mcp.servers.find((s) => s.name === "project-db")?.trust).toMatchObject({
      state: "approved",
      allowed: true,
    });
    expect(trusted.report.hooks.projectTrust.status).toBe("trusted");
    expect(trusted.text).toContain("✓ project hooks trusted");

    await writeFile(
      join(project, ".deepagents", "hooks.json"),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } }),
    );
    const edited = await doctor({ cwd: project, home });
    expect(edited.report.hooks.projectTrust.status).toBe("changed");
    expect(edited.code).toBe(0);

    const flagged = await doctor({ cwd: project, home, trustProjectHooks: true, trustProjectMcp: true });
    expect(flagged.report.hooks.projectTrust.status).toBe("flag");
    await writeFile(
      join(project, ".mcp.json"),
      JSON.stringify({ mcpServers: { "project-db": { command: "node", args: ["other.js"] } } }),
    );
    const changedServer = await doctor({ cwd: project, home, trustProjectMcp: true });
    expect(changedServer.report.mcp.servers.find((s) => s.name === "project-db")?.trust?.state).toBe("flag");
  });

  it("lists the plugins a session would load and what they add, without creating their data directories", async () => {
    const { home, project } = await tree("clean");
    const pluginRoot = await installReviewPlugin({ home, withMcp: true });

    const before = await snapshot(home);
    const { code, report } = await doctor({ cwd: project, home });
    expect(code).toBe(0);
    expect(report.plugins.enabled).toEqual([
      expect.objectContaining({ id: "review@acme", loaded: true, version: "1.0.0", skills: 1, mcpServers: 1 }),
    ]);
    expect(report.skills.skills.map((s) => s.name)).toContain("review@acme:review-pr");
    expect(report.mcp.servers.find((s) => s.source === "plugin")).toMatchObject({
      transport: "stdio",
      target: "gh-mcp",
    });
    expect(await snapshot(home)).toEqual(before);

    await writeFile(join(pluginRoot, ".mcp.json"), JSON.stringify({ mcpServers: { gh: { command: "evil" } } }));
    const changed = await doctor({ cwd: project, home });
    expect(changed.code).toBe(1);
    expect(changed.report.plugins.enabled[0]).toMatchObject({ loaded: false });
    expect(changed.report.problems).toEqual([
      expect.objectContaining({ section: "plugins", message: expect.stringContaining("changed since it was enabled") }),
    ]);
  });
});

describe("deep-acp doctor on a broken setup", () => {
  it("exits 1 and names the broken config.toml, .mcp.json and hooks.json with their reasons", async () => {
    const { home, project } = await tree("broken");
    const { code, text, report } = await doctor({ cwd: project, home });
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    const configPath = join(home, ".deepagents", "config.toml");
    const mcpPath = join(project, ".mcp.json");
    const hooksPath = join(project, ".deepagents", "hooks.json");
    expect(report.problems).toEqual([
      { section: "config", source: configPath, message: expect.stringContaining("invalid TOML") },
      { section: "mcp", source: mcpPath, message: expect.stringContaining("invalid JSON") },
      {
        section: "hooks",
        source: hooksPath,
        message: 'hooks.PreToolUse[0].hooks[0]: needs "command" (shell) or "argv" (no shell)',
      },
    ]);
    expect(report.config.file.state).toBe("invalid");
    expect(report.mcp.files.find((f) => f.path === mcpPath)).toMatchObject({
      state: "invalid",
      detail: expect.stringContaining("invalid JSON"),
    });
    expect(report.hooks.files.find((f) => f.path === hooksPath)).toMatchObject({ state: "invalid", handlers: 0 });

    expect(text).toContain(`✗ ${configPath}: invalid: invalid TOML`);
    expect(text).toMatch(
      new RegExp(`✗ project-root\\s+${mcpPath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: invalid: invalid JSON`),
    );
    expect(text).toContain(`✗ project: ${hooksPath}: invalid: hooks.PreToolUse[0].hooks[0]: needs "command"`);
    expect(text).toContain("✗ 3 problems:");
  });

  it("exits 1 when no model can be used, and says what to set", async () => {
    const { home, project } = await tree("clean");
    await rm(join(home, ".deepagents", "config.toml"));
    const none = await doctor({ cwd: project, home, env: {} });
    expect(none.code).toBe(1);
    expect(none.report.model).toMatchObject({ ok: false, error: expect.stringContaining("set ANTHROPIC_API_KEY") });
    expect(none.text).toContain("✗ No model configured");

    const keyless = await doctor({ cwd: project, home, env: {}, model: "openai:gpt-5" });
    expect(keyless.report.model).toMatchObject({
      ok: false,
      spec: "openai:gpt-5",
      source: "--model flag",
      error: expect.stringContaining("set OPENAI_API_KEY"),
    });

    const typo = await doctor({ cwd: project, home, env: { DEEP_ACP_MODEL: "antropic:claude" } });
    expect(typo.report.model.error).toContain('DEEP_ACP_MODEL: Unknown model provider "antropic"');
  });

  it("reports a stored key's file, a key file others can read, and a corrupt one", async () => {
    const { home, project, state } = await tree("clean");
    await rm(join(home, ".deepagents", "config.toml"));
    await mkdir(state, { recursive: true });
    const credentials = join(state, "credentials.json");
    await writeFile(credentials, JSON.stringify({ openai: { apiKey: "sk-stored", baseUrl: "http://127.0.0.1:9/v1" } }));
    await chmod(credentials, 0o644);
    const stored = await doctor({ cwd: project, home, env: {} });
    expect(stored.code).toBe(0);
    expect(stored.report.model).toMatchObject({
      ok: true,
      spec: "openai:gpt-5",
      source: "stored credentials (openai)",
      credential: `stored credentials (${credentials})`,
    });
    expect(stored.report.model.credentialsFile).toEqual({ path: credentials, state: "found", providers: ["openai"] });
    expect(stored.report.warnings).toEqual([
      expect.objectContaining({ section: "model", message: expect.stringContaining("readable by other users") }),
    ]);
    expect(stored.text).not.toContain("sk-stored");
    expect(JSON.stringify(stored.report)).not.toContain("sk-stored");

    await writeFile(credentials, "{not json");
    const corrupt = await doctor({ cwd: project, home, env: { ANTHROPIC_API_KEY: "sk-test" } });
    expect(corrupt.code).toBe(1);
    expect(corrupt.report.model.credentialsFile.state).toBe("invalid");
  });

  it("treats missing bubblewrap as a warning, and as a problem when the sandbox is asked for", async () => {
    const { home, project } = await tree("clean");
    const checkBwrap = async () => ({ ok: false, reason: "bwrap not installed (apt-get install bubblewrap)" }) as const;
    const optional = await doctor({ cwd: project, home, checkBwrap });
    expect(optional.code).toBe(0);
    expect(optional.report.sandbox).toMatchObject({ kind: "none", bwrap: { ok: false } });
    expect(optional.report.warnings.map((w) => w.section)).toContain("sandbox");

    const byFlag = await doctor({ cwd: project, home, checkBwrap, sandbox: "bwrap" });
    expect(byFlag.code).toBe(1);
    expect(byFlag.report.sandbox.kindSource).toBe("--sandbox");
    expect(byFlag.text).toContain("bwrap not installed");

    await writeFile(join(home, ".deepagents", "config.toml"), '[sandbox]\nkind = "bwrap"\n');
    const byConfig = await doctor({ cwd: project, home, checkBwrap });
    expect(byConfig.code).toBe(1);
    expect(byConfig.report.sandbox.kindSource).toBe("config.toml");
  });

  it("follows --no-mcp and --mcp-config, and flags an old Node.js", async () => {
    const { home, project } = await tree("clean");
    const off = await doctor({ cwd: project, home, noMcp: true });
    expect(off.report.mcp).toMatchObject({ disabled: true, servers: [] });
    expect(off.text).toContain("disabled by --no-mcp");

    const missing = await doctor({ cwd: project, home, mcpConfig: "extra.json" });
    expect(missing.code).toBe(1);
    expect(missing.report.problems).toEqual([
      expect.objectContaining({ section: "mcp", source: join(project, "extra.json"), message: "file not found" }),
    ]);

    const old = await doctor({ cwd: project, home, nodeVersion: "v18.20.0" });
    expect(old.code).toBe(1);
    expect(old.report.problems[0]).toMatchObject({ section: "node", message: expect.stringContaining("too old") });
  });

  it("builds the report without printing (collectDoctorReport)", async () => {
    const { home, project } = await tree("broken");
    const report = await collectDoctorReport({
      cwd: project,
      home,
      env: {},
      agent: "agent",
      json: true,
      checkBwrap: bwrapWorks,
    });
    expect(report.problems.map((p) => p.section)).toEqual(["model", "config", "mcp", "hooks"]);
  });
});
