// /permissions is the one list of everything deep-acp remembers for a project, with one way to
// forget any of it: tool-call "always" answers (test/acp/permissions.test.ts), project MCP servers,
// this session's MCP "allow for this session", and dev container "always" answers. Driven through
// the SDK client; assertions are on what the editor is shown and what is left on disk.
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentText, type Harness } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn } from "../support/fake-model/index.js";
import { EVERYTHING, NODE } from "../unit/mcp/helpers.js";

const suite = useHarnessSuite({ name: "remembered", prepare: gitProject });

const state = (file: string) => join(suite.home, ".deepagents", ".state", file);
const readState = (file: string) => readFile(state(file), "utf8").catch(() => "");

async function projectServer(): Promise<void> {
  await writeFile(
    join(suite.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { proj: { command: NODE, args: [EVERYTHING, "stdio"] } } }),
  );
}

const trustDialogs = (h: Harness) =>
  h.permissions.filter((p) => p.toolCall.title === 'Start project MCP server "proj"?');

async function sessionWithTurn(h: Harness): Promise<string> {
  const { sessionId } = await h.newSession(suite.project);
  h.model.enqueue(textTurn("ok"));
  await h.prompt(sessionId, "hi");
  return sessionId;
}

const command = async (h: Harness, sessionId: string, text: string) =>
  agentText((await h.prompt(sessionId, text)).updates);

describe("/permissions lists and revokes every kind of remembered decision", () => {
  it("a project MCP server's 'always' is listed; revoked, it leaves mcp_trust.json and the next session asks again", async () => {
    await projectServer();
    const first = await suite.start({ onPermission: () => "allow_always" });
    const sessionId = await sessionWithTurn(first);
    expect(trustDialogs(first)).toHaveLength(1);
    expect(await readState("mcp_trust.json")).toContain('"proj"');

    const listing = await command(first, sessionId, "/permissions");
    expect(listing).toContain('1. Allowed: project MCP server "proj" (this definition)');
    expect(await command(first, sessionId, "/permissions revoke 1")).toContain(
      'Forgot: allowed — project MCP server "proj" (this definition). deep-acp will ask again.',
    );
    expect(await readState("mcp_trust.json")).not.toContain('"proj"');
    expect(await command(first, sessionId, "/permissions")).toContain("No remembered permission choices");

    const second = await suite.start({ onPermission: () => "reject_once" });
    await sessionWithTurn(second);
    expect(trustDialogs(second)).toHaveLength(1);
  });

  it("this session's MCP 'allow for this session' is listed as such and can be forgotten", async () => {
    await projectServer();
    const h = await suite.start({ onPermission: () => "allow_once" });
    const sessionId = await sessionWithTurn(h);
    const listing = await command(h, sessionId, "/permissions");
    expect(listing).toContain('1. Allowed: project MCP server "proj" for this session');
    // Nothing of it is on disk: it lives with the session.
    expect(await readState("mcp_trust.json")).not.toContain('"proj"');
    expect(await command(h, sessionId, "/permissions revoke 1")).toContain(
      'Forgot: allowed — project MCP server "proj"',
    );
    expect(await command(h, sessionId, "/permissions")).toContain("No remembered permission choices");
  });

  it("a dev container's 'always' answer is listed and revoked from devcontainer_trust.json", async () => {
    const root = await realpath(suite.project);
    const definition = join(root, ".devcontainer", "devcontainer.json");
    await mkdir(join(suite.home, ".deepagents", ".state"), { recursive: true });
    await writeFile(
      state("devcontainer_trust.json"),
      JSON.stringify({
        version: 1,
        plans: {
          ["f".repeat(64)]: { root, definition, trusted_at: "2026-01-01T00:00:00.000Z" },
          ["0".repeat(64)]: { root: "/elsewhere", definition: "/elsewhere/.devcontainer.json", trusted_at: "x" },
        },
      }),
    );
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    const listing = await command(h, sessionId, "/permissions");
    expect(listing).toContain(`1. Allowed: dev container of ${root} (${definition})`);
    // Another project's answer is not this project's to list.
    expect(listing).not.toContain("/elsewhere");
    expect(await command(h, sessionId, "/permissions revoke 1")).toContain(
      `Forgot: allowed — dev container of ${root}`,
    );
    const kept = JSON.parse(await readState("devcontainer_trust.json")) as { plans: Record<string, unknown> };
    expect(Object.keys(kept.plans)).toEqual(["0".repeat(64)]);
  });
});
