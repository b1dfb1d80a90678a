// `pass_mcp_servers`: a child agent the user allowed them gets the MCP servers this session runs
// (the user's config, project servers the user trusted, the editor's), started by the child itself;
// never a project server the user refused. The real server-everything from npm, a second deep-acp
// as the child.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { BINARY } from "../support/agent-process.js";
import { parentDelegates, taskResult, toolResults, usePeerSuite } from "../support/peer-suite.js";
import { EVERYTHING, NODE } from "../unit/mcp/helpers.js";

const suite = usePeerSuite();
const everything = { command: NODE, args: [EVERYTHING, "stdio"] };
const toml = (value: unknown) => JSON.stringify(value);

it("hands the child the user's and the trusted project's MCP servers, never a refused project one", async () => {
  await writeFile(join(suite.home, ".deepagents", ".mcp.json"), JSON.stringify({ mcpServers: { mine: everything } }));
  await mkdir(join(suite.project, ".deepagents"), { recursive: true });
  await writeFile(
    join(suite.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { trusted: everything, refused: everything } }),
  );
  const childHome = join(suite.dir, "child-home");
  const config = [
    `[agents.child-mcp]\ncommand = ${toml(process.execPath)}\nargs = [${toml(BINARY)}]\nmode = "accept-edits"\npass_mcp_servers = true`,
    `env = { HOME = ${toml(childHome)}, ANTHROPIC_API_KEY = "k", ANTHROPIC_BASE_URL = ${toml(suite.childModel.anthropicBaseUrl)} }\n`,
  ].join("\n");
  // The user trusts one project server and refuses the other, in our dialog and in the child's own
  // (the child, working in the same project, finds its .mcp.json too and asks through our door).
  const { h, sessionId } = await suite.start(
    {},
    {
      config,
      onPermission: (request) =>
        request.toolCall.title?.endsWith('MCP server "refused"?') ? "reject_once" : "allow_once",
    },
  );
  // Exactly what is handed on, as session/new's mcpServers (the fixture agent answers with them).
  parentDelegates(h, "mcp-allowed");
  await h.prompt(sessionId, "delegate");
  const passed = JSON.parse(taskResult(h).text.replace(/^starting/, "")) as Array<{ name: string }>;
  expect(passed).toEqual([
    { name: "mine", ...everything, env: [] },
    { name: "trusted", ...everything, env: [] },
  ]);
  // A second deep-acp starts them itself and its model calls one.
  parentDelegates(h, "child-mcp", "use the servers");
  suite.childModel.setHandler((request: RecordedRequest) =>
    toolResults(request).length === 0
      ? toolTurn("mine_echo", { message: "through the child" })
      : textTurn(`child saw: ${toolResults(request)[0]!.text}`),
  );
  await h.prompt(sessionId, "delegate");
  const tools = suite.childModel.requests[0]!.toolNames;
  expect(tools).toEqual(expect.arrayContaining(["mine_echo", "trusted_echo"]));
  expect(tools.filter((name) => name.startsWith("refused_"))).toEqual([]);
  expect(taskResult(h).text).toBe("child saw: Echo: through the child");
}, 60_000);
