// Questions never ask for secrets: the judge of ask_user questions and relayed MCP forms, as tables.
import { describe, expect, it } from "vitest";
import { secretInForm, secretInQuestion } from "../../../src/gate/decide/secret-question.js";

describe("ask_user questions", () => {
  it.each([
    "What is your API key?",
    "What is your AWS_SECRET_ACCESS_KEY?",
    "Please paste the contents of ~/.ssh/id_ed25519 so I can deploy.",
    "Share your credentials for the staging server",
    "Which GITHUB_TOKEN should I use? Paste it here.",
    "Type the passphrase of your signing key",
    "What's the DB_PASS for production?",
    "Enter the 2FA code you just received",
    "Send me your .aws/credentials file",
    "What is the recovery phrase of the wallet?",
    "Upload the server.pem",
    "What is the DATABASE_URL?",
  ])("refuses %s", (question) => {
    expect(secretInQuestion(question)).toBeDefined();
  });

  it.each([
    ["Which database should the app use?", []],
    ["Should the token refresh be retried?", []],
    ["How many tokens should the summary have?", []],
    ["Should I rotate the API key?", ["Yes", "No"]],
    ["Which key should the map use: id or name?", []],
    ["Should I pin the dependency versions?", []],
    ["Which file should I edit next?", ["src/a.ts", "src/b.ts"]],
  ] as const)("allows %s", (question, options) => {
    expect(secretInQuestion(question, options)).toBeUndefined();
  });
});

describe("relayed forms", () => {
  const form = (properties: Record<string, unknown>) => ({ type: "object", properties });
  it.each([
    ["Sign in", form({ user: { type: "string" }, pw: { type: "string", title: "Password" } })],
    ["Setup", form({ api_key: { type: "string" } })],
    ["Configure the deployment", form({ value: { type: "string", description: "Your AWS_SECRET_ACCESS_KEY" } })],
    ["Log in", form({ value: { type: "string", title: "Account", description: "the credentials for the registry" } })],
    ["One more thing", form({ value: { type: "string", format: "password" } })],
    ["One more thing", form({ value: { type: "string", writeOnly: true } })],
    ["Paste your ~/.ssh/id_ed25519 to continue", form({ value: { type: "string" } })],
    ["Connect", form({ GITHUB_TOKEN: { type: "string" } })],
  ] as const)("declines %s", (message, schema) => {
    expect(secretInForm(message, schema)).toBeDefined();
  });

  it.each([
    ["Pick a name", form({ value: { type: "string", title: "Project name" } })],
    ["Your contact", form({ name: { type: "string" }, email: { type: "string", format: "email" } })],
    // A message naming a secret over fields where none can be typed asks for none.
    ["Rotate the API key now?", form({ confirm: { type: "boolean" } })],
    ["Which credentials store?", form({ store: { type: "string", enum: ["keychain", "file"] } })],
  ] as const)("shows %s", (message, schema) => {
    expect(secretInForm(message, schema)).toBeUndefined();
  });
});
