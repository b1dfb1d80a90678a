// What a project MCP server may read from the user's environment, and what the trust dialog says
// about it: placeholders are shown as written, the names it would receive are listed, and only
// variables allowed in `[mcp] project_env` (never a model key) are expanded.
import { describe, expect, it } from "vitest";
import {
  environmentExposure,
  interpolationLookup,
  stdioServerEnvironment,
} from "../../../src/mcp/config/environment.js";
import { resolveServerDefinition } from "../../../src/mcp/config/interpolate.js";
import { describeTrustRequest, trustFingerprint } from "../../../src/mcp/trust/trust-request.js";
import { entry } from "./helpers.js";

const env = {
  PATH: "/bin",
  HOME: "/home/u",
  LANG: "C",
  GITHUB_TOKEN: "ghp_marker",
  ANTHROPIC_API_KEY: "sk-ant-marker",
  DATABASE_URL: "postgres://u:pw@db/x",
  PLAIN: "p",
};
const tracing = { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Trace": "${GITHUB_TOKEN}" } };
const none = { projectEnv: [] as string[] };
const allowGithub = { projectEnv: ["GITHUB_TOKEN"] };

function expand(source: "project-root" | "user", raw: unknown, policy = none) {
  const e = entry("t", raw, source);
  const lookup = interpolationLookup(e, env, policy);
  if (!lookup.ok) return { error: lookup.error };
  const resolved = resolveServerDefinition(e.definition!, lookup.lookup);
  return resolved.ok ? { server: resolved.server } : { error: resolved.error };
}

describe("project MCP servers and the user's environment", () => {
  it("refuses ${GITHUB_TOKEN} in a project server's headers unless [mcp] project_env allows it", () => {
    expect(expand("project-root", tracing).error).toMatch(
      /uses \$\{GITHUB_TOKEN\}, which project servers may not read .*add "GITHUB_TOKEN" to \[mcp\] project_env/,
    );
    expect(expand("project-root", tracing, allowGithub).server).toMatchObject({ headers: { "X-Trace": "ghp_marker" } });
    // The user's own config reads what it likes.
    expect(expand("user", tracing).server).toMatchObject({ headers: { "X-Trace": "ghp_marker" } });
  });

  it("never expands a model key for a project server, even when listed, and the same for env, args and url", () => {
    const policy = { projectEnv: ["ANTHROPIC_API_KEY"] };
    expect(
      expand("project-root", { command: "node", args: ["s.js"], env: { K: "${ANTHROPIC_API_KEY}" } }, policy).error,
    ).toMatch(/ANTHROPIC_API_KEY.*a model key/);
    expect(expand("project-root", { command: "node", args: ["--key=${ANTHROPIC_API_KEY}"] }, policy).error).toMatch(
      /ANTHROPIC_API_KEY/,
    );
    expect(expand("project-root", { url: "http://127.0.0.1:9/${DATABASE_URL}" }).error).toMatch(/DATABASE_URL/);
    // A default stands in for a refused variable; the secret is not read.
    expect(
      expand("project-root", { command: "node", args: ["${GITHUB_TOKEN:-none}", "${HOME}"] }).server,
    ).toMatchObject({ args: ["none", "/home/u"] });
  });

  it("lists what a server would receive (names only) and shows placeholders as written", () => {
    const stdio = entry(
      "db",
      { command: "node", args: ["srv.js", "${HOME}"], env: { TOKEN: "${GITHUB_TOKEN}", K: "${OPENAI_API_KEY:-x}" } },
      "project-root",
      "/p/.mcp.json",
    );
    expect(environmentExposure(stdio, env, allowGithub)).toEqual({
      receives: ["GITHUB_TOKEN", "HOME"],
      inherits: ["HOME", "LANG", "PATH"],
      withheld: [{ name: "OPENAI_API_KEY", hasDefault: true, reason: "a model key; never given to project servers" }],
    });
    const request = describeTrustRequest(entry("trace", tracing, "project-root", "/p/.mcp.json"), "/p", false, {
      env,
      policy: allowGithub,
    });
    expect(request.detail).toContain("X-Trace: ${GITHUB_TOKEN}");
    expect(request.detail).toContain("Receives from your environment: GITHUB_TOKEN");
    expect(request.detail).not.toContain("ghp_marker");
    expect(request.exposure.receives).toEqual(["GITHUB_TOKEN"]);
    const refused = describeTrustRequest(entry("trace", tracing, "project-root", "/p/.mcp.json"), "/p", false, {
      env,
      policy: none,
    });
    expect(refused.detail).toContain("Receives from your environment: none of your variables");
    expect(refused.detail).toContain("Not given: GITHUB_TOKEN (not in [mcp] project_env); the server will not start");
  });

  it("binds approvals to the variables project_env lets it read, so allowing a new one asks again", () => {
    const e = entry("trace", tracing, "project-root");
    expect(trustFingerprint(e, none)).toBe(e.fingerprint);
    expect(trustFingerprint(e, allowGithub)).not.toBe(e.fingerprint);
  });

  it("starts stdio servers with base variables only, plus their own env", () => {
    expect(stdioServerEnvironment(env, { X: "1" })).toEqual({ PATH: "/bin", HOME: "/home/u", LANG: "C", X: "1" });
  });
});

describe("remembered approvals of MCP tools", () => {
  it("bind a project server's tools to its source and definition, so a same-named tool never inherits the user's approval", async () => {
    const { adaptMcpTool } = await import("../../../src/mcp/servers/tool-adapter.js");
    const { decide: gateDecide } = await import("../../../src/gate/decide/decide.js");
    const { createProtectedPaths } = await import("../../../src/gate/surfaces/protected-paths.js");
    const tool = { name: "create_issue", inputSchema: { type: "object" as const } };
    const call = async () => ({ content: [] });
    const decide = (adapted: ReturnType<typeof adaptMcpTool>) =>
      gateDecide({
        tool: adapted.tool,
        mode: "default",
        roots: ["/p"],
        readRoots: [],
        targets: [],
        protectedPaths: createProtectedPaths(),
        remembered: () => undefined,
      });
    const user = decide(adaptMcpTool("github", tool, "github_create_issue", call));
    const projectA = decide(adaptMcpTool("github", tool, "github_create_issue", call, "mcp:project-root:github:aaaa"));
    const projectB = decide(adaptMcpTool("github", tool, "github_create_issue", call, "mcp:project-root:github:bbbb"));
    expect(user).toMatchObject({ action: "ask", alwaysKey: "tool:github_create_issue" });
    expect(projectA).toMatchObject({ action: "ask", alwaysKey: "tool:mcp:project-root:github:aaaa:create_issue" });
    expect(projectB).toMatchObject({ alwaysKey: "tool:mcp:project-root:github:bbbb:create_issue" });
  });
});
