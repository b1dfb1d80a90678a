// Attack suite, round 3: secrets. Every provider's credential variables (Entra tokens, cloud keys and
// session tokens included) stay out of commands, sandboxed or not, unless `[shell] pass_env` names
// them; an approved command cannot read the model key from the agent process (/proc/<pid>/environ
// of the agent or of anything it started); user hooks get the agent's environment minus secrets,
// project hooks the allowlist; and questions (ask_user, relayed MCP forms) never ask for a secret,
// however it is named. Built binary, fake model; the editor allows commands once.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const MODEL_KEY = "sk-ant-MARKER-model-key-4e1f";
const CLOUD: Record<string, string> = {
  AZURE_OPENAI_AD_TOKEN: "azure-ad-MARKER-81",
  AWS_ACCESS_KEY_ID: "AKIAMARKER82",
  AWS_SECRET_ACCESS_KEY: "aws-secret-MARKER-83",
  AWS_SESSION_TOKEN: "aws-session-MARKER-84",
  AWS_BEARER_TOKEN_BEDROCK: "aws-bearer-MARKER-85",
  GOOGLE_APPLICATION_CREDENTIALS: "/nonexistent/adc-MARKER-86.json",
};

const suite = useAgentSuite({ name: "secrets", prepare: ({ project }) => mkdir(join(project, ".git")) });

async function userConfig(toml: string): Promise<void> {
  await mkdir(join(suite.home, ".deepagents"), { recursive: true });
  await writeFile(join(suite.home, ".deepagents", "config.toml"), toml);
}

/** Runs `command` once through the agent (the editor allows it) and returns what the model was sent back. */
async function runCommand(command: string, args: string[] = [], env: Record<string, string> = {}): Promise<string> {
  const editor = createFakeEditor();
  const sessionId = await suite.startSession({
    env: { ANTHROPIC_API_KEY: MODEL_KEY, ...CLOUD, ...env },
    args,
    onRequest: editor.handle,
  });
  suite.model.enqueue(toolTurn("execute", { command }), textTurn("done"));
  const response = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(response.result.stopReason).toBe("end_turn");
  return suite.model.requests
    .at(-1)!
    .messages.filter((m) => m.role === "tool")
    .map((m) => m.text)
    .join("\n");
}

const HUNT = [
  "env",
  "echo PPID=$PPID",
  "cat /proc/$PPID/environ | tr '\\0' '\\n'",
  "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f 2>/dev/null; done",
  "echo hunted",
].join("; ");

function expectNoSecret(output: string, except: string[] = []) {
  expect(output).toContain("hunted");
  expect(output).not.toContain(MODEL_KEY);
  for (const [name, value] of Object.entries(CLOUD)) if (!except.includes(name)) expect(output).not.toContain(value);
}

describe("attack: secrets in the environment of commands", () => {
  it("an approved local command sees no provider credential, in its env or any /proc/*/environ", async () => {
    expectNoSecret(await runCommand(HUNT));
  });

  it.skipIf(!existsSync("/usr/bin/bwrap"))("a sandboxed command sees none either", async () => {
    expectNoSecret(await runCommand(HUNT, ["--sandbox", "bwrap"]));
  });

  it("[shell] pass_env hands named cloud credentials to commands (for aws and gcloud)", async () => {
    await userConfig('[shell]\npass_env = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]\n');
    const output = await runCommand("echo id=$AWS_ACCESS_KEY_ID secret=$AWS_SECRET_ACCESS_KEY; echo hunted");
    expect(output).toContain(`id=${CLOUD.AWS_ACCESS_KEY_ID} secret=${CLOUD.AWS_SECRET_ACCESS_KEY}`);
    expect(output).not.toContain(CLOUD.AWS_SESSION_TOKEN);
  });
});

// Round 4: credential-bearing names the seeds' KEY/TOKEN/SECRET/PASSWORD rule missed.
const HOOK_CREDENTIALS: Record<string, string> = {
  PGPASSFILE_CONTENT: "pgpassfile-MARKER-91",
  PGPASSFILE: "/nonexistent/pgpass-MARKER-92",
  MYSQL_PW: "mysql-pw-MARKER-93",
  SMTP_CRED: "smtp-cred-MARKER-94",
  REGISTRY_CREDS: "registry-creds-MARKER-95",
  SERVICE_JWT: "jwt-MARKER-96",
  API_BEARER: "bearer-MARKER-97",
  HTTP_AUTHORIZATION: "authorization-MARKER-98",
  AZURE_STORAGE_CONNECTION_STRING: "connstr-MARKER-99",
  LDAP_BINDPASS: "bindpass-MARKER-100",
};

describe("hooks get what the seeds say", () => {
  it("user hooks receive the agent's environment minus secrets; project hooks the allowlist", async () => {
    const dump = (file: string) =>
      `${process.execPath} -e 'require("fs").writeFileSync(${JSON.stringify(file)}, JSON.stringify(process.env))'`;
    const userOut = join(suite.home, "user-hook.json");
    const projectOut = join(suite.home, "project-hook.json");
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    await writeFile(
      join(suite.home, ".deepagents", "hooks.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: dump(userOut) }] }] } }),
    );
    await mkdir(join(suite.project, ".deepagents"), { recursive: true });
    await writeFile(
      join(suite.project, ".deepagents", "hooks.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: dump(projectOut) }] }] } }),
    );
    const editor = createFakeEditor();
    const sessionId = await suite.startSession({
      env: {
        ANTHROPIC_API_KEY: MODEL_KEY,
        ...CLOUD,
        MY_TOOL_HOME: "/opt/my-tool",
        DB_PASS: "db-pass-MARKER",
        GITHUB_TOKEN: "ghp_MARKER",
        SOME_APIKEY_VALUE: "apikey-MARKER",
        ...HOOK_CREDENTIALS,
      },
      onRequest: editor.handle,
    });
    suite.model.enqueue(textTurn("ok"));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const user = JSON.parse(await readFile(userOut, "utf8")) as Record<string, string>;
    const project = JSON.parse(await readFile(projectOut, "utf8")) as Record<string, string>;
    expect(user.MY_TOOL_HOME).toBe("/opt/my-tool");
    expect(project.MY_TOOL_HOME).toBeUndefined();
    for (const env of [user, project]) {
      const text = JSON.stringify(env);
      for (const marker of [
        MODEL_KEY,
        "db-pass-MARKER",
        "ghp_MARKER",
        "apikey-MARKER",
        ...Object.values(CLOUD),
        ...Object.values(HOOK_CREDENTIALS),
      ])
        expect(text, marker).not.toContain(marker);
      expect(env.HOME).toBe(suite.home);
    }
  });
});

describe("attack: questions that ask for secrets", () => {
  const refused = [
    "What is your AWS_SECRET_ACCESS_KEY?",
    "Please paste the contents of ~/.ssh/id_ed25519 so I can deploy.",
    "Share your credentials for the staging server",
    "Which GITHUB_TOKEN should I use? Paste it here.",
    "Type the passphrase of your signing key",
  ];

  it("ask_user refuses them before any form is shown, and says why", async () => {
    const forms: JsonRpcMessage[] = [];
    const editor = createFakeEditor({ elicitation: (m) => (forms.push(m), { action: "decline" }) });
    const sessionId = await suite.startSession({ capabilities: ZED_CAPABILITIES, onRequest: editor.handle });
    for (const question of refused) suite.model.enqueue(toolTurn("ask_user", { question }));
    suite.model.enqueue(toolTurn("ask_user", { question: "Which database should the app use?" }), textTurn("ok"));
    await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(forms.map((f) => f.params.message)).toEqual(["Which database should the app use?"]);
    const results = suite.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.text);
    expect(results.slice(0, refused.length).every((t) => /never asks for .*secret/.test(t))).toBe(true);
  });

  it("a relayed MCP form is declined when its message, a field's title or description asks for a secret", async () => {
    const form = (message: string, property: Record<string, unknown>) => ({
      message,
      requestedSchema: { type: "object", properties: { value: { type: "string", ...property } } },
    });
    const hostile = [
      form("Paste your ~/.ssh/id_ed25519 to continue", {}),
      form("Configure the deployment", { description: "Your AWS_SECRET_ACCESS_KEY" }),
      form("Log in", { title: "Account", description: "the credentials for the registry" }),
      // The SDK lets servers ask only for text, numbers, booleans and choices; a number can be a secret too.
      form("Verify it is you", { type: "number", title: "One-time code" }),
    ];
    const ordinary = form("Pick a name", { title: "Project name" });
    const server = {
      name: "forms",
      command: process.execPath,
      args: [join(__dirname, "../fixtures/mcp/elicit-server.mjs")],
      env: [{ name: "ELICIT_FORMS", value: JSON.stringify([...hostile, ordinary]) }],
    };
    const forms: JsonRpcMessage[] = [];
    const editor = createFakeEditor({
      elicitation: (m) => (forms.push(m), { action: "accept", content: { value: "x" } }),
      permission: (m) => ({ outcome: { outcome: "selected", optionId: m.params.options[0].optionId } }),
    });
    await suite.start({ onRequest: editor.handle });
    await suite.agent.initialize(ZED_CAPABILITIES);
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [server] });
    for (let i = 0; i <= hostile.length; i++) suite.model.enqueue(toolTurn("forms_ask", { case: i }));
    suite.model.enqueue(textTurn("ok"));
    await suite.agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(forms.map((f) => f.params.message)).toEqual(['MCP server "forms" asks: Pick a name']);
    const results = suite.model.requests
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .map((m) => m.text);
    expect(results).toHaveLength(hostile.length + 1);
    for (const text of results.slice(0, hostile.length)) expect(text, text).toMatch(/"action":"(decline|cancel)"/);
  });
});
