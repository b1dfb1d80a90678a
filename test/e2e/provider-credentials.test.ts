// Credential resolution per provider, through the built binary (`deep-acp -n`): a missing credential
// names what to set and sends nothing; a wrong or expired one is reported with what to check and is
// not retried.
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";

const suite = useAgentSuite({ name: "creds" });

/** `deep-acp -n hi --model SPEC` in HOME, with `env` and no cloud metadata services to fall back on. */
function run(spec: string, env: Record<string, string>) {
  return suite.run(["-n", "hi", "--model", spec], {
    api: "none",
    cwd: suite.home,
    env: { AWS_EC2_METADATA_DISABLED: "true", METADATA_SERVER_DETECTION: "none", ...env },
  });
}

type KeyCase = { spec: string; keyVar: string; names: RegExp; base: () => Record<string, string> };

const KEYED: KeyCase[] = [
  {
    spec: "anthropic:claude-sonnet-4-5",
    keyVar: "ANTHROPIC_API_KEY",
    names: /ANTHROPIC_API_KEY/,
    base: () => ({ ANTHROPIC_BASE_URL: suite.model.origin }),
  },
  {
    spec: "openai:gpt-4o",
    keyVar: "OPENAI_API_KEY",
    names: /OPENAI_API_KEY/,
    base: () => ({ OPENAI_BASE_URL: suite.model.openaiBaseUrl }),
  },
  {
    spec: "openai-responses:gpt-5",
    keyVar: "OPENAI_API_KEY",
    names: /OPENAI_API_KEY/,
    base: () => ({ OPENAI_BASE_URL: suite.model.openaiBaseUrl }),
  },
  {
    spec: "google:gemini-2.5-flash",
    keyVar: "GEMINI_API_KEY",
    names: /GOOGLE_API_KEY or GEMINI_API_KEY/,
    base: () => ({ GOOGLE_BASE_URL: suite.model.origin }),
  },
  {
    spec: "azure:gpt-4o",
    keyVar: "AZURE_OPENAI_API_KEY",
    names: /AZURE_OPENAI_API_KEY/,
    base: () => ({ AZURE_OPENAI_ENDPOINT: suite.model.origin }),
  },
  {
    spec: "openrouter:anthropic/claude-sonnet-4.5",
    keyVar: "OPENROUTER_API_KEY",
    names: /OPENROUTER_API_KEY/,
    base: () => ({ OPENROUTER_BASE_URL: suite.model.openaiBaseUrl }),
  },
  {
    spec: "groq:openai/gpt-oss-120b",
    keyVar: "GROQ_API_KEY",
    names: /GROQ_API_KEY/,
    base: () => ({ GROQ_BASE_URL: suite.model.openaiBaseUrl }),
  },
  {
    spec: "mistral:mistral-medium-latest",
    keyVar: "MISTRAL_API_KEY",
    names: /MISTRAL_API_KEY/,
    base: () => ({ MISTRAL_BASE_URL: suite.model.openaiBaseUrl }),
  },
  {
    spec: "deepseek:deepseek-chat",
    keyVar: "DEEPSEEK_API_KEY",
    names: /DEEPSEEK_API_KEY/,
    base: () => ({ DEEPSEEK_BASE_URL: suite.model.openaiBaseUrl }),
  },
  {
    spec: "together:meta-llama/Llama-3.3-70B-Instruct-Turbo",
    keyVar: "TOGETHER_API_KEY",
    names: /TOGETHER_API_KEY/,
    base: () => ({ TOGETHER_BASE_URL: suite.model.openaiBaseUrl }),
  },
];

describe.each(KEYED)("$spec credentials", (c) => {
  it("missing: names the variable to set and sends nothing", async () => {
    const result = await run(c.spec, c.base());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(c.names);
    expect(suite.model.requests).toHaveLength(0);
  });

  it("wrong: reports the rejection and what to check, without retrying", async () => {
    const result = await run(c.spec, { ...c.base(), [c.keyVar]: "bad-key" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401/);
    expect(result.stderr).toContain(c.keyVar.startsWith("GEMINI") ? "GEMINI_API_KEY" : c.keyVar);
    expect(suite.model.requests).toHaveLength(1);
  });

  it("expired: reports the expiry", async () => {
    const result = await run(c.spec, { ...c.base(), [c.keyVar]: "expired-key" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/expired/);
    expect(suite.model.requests).toHaveLength(1);
  });
});

describe("azure Entra ID token", () => {
  it("uses AZURE_OPENAI_AD_TOKEN as a bearer token and says how to refresh an expired one", async () => {
    const result = await run("azure:gpt-4o", {
      AZURE_OPENAI_ENDPOINT: suite.model.origin,
      AZURE_OPENAI_AD_TOKEN: "expired-key",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/az account get-access-token/);
    expect(suite.model.requests[0]?.headers.authorization).toBe("Bearer expired-key");
  });

  it("needs an endpoint", async () => {
    const result = await run("azure:gpt-4o", { AZURE_OPENAI_API_KEY: "k" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/AZURE_OPENAI_ENDPOINT/);
  });
});

describe("bedrock credentials (the AWS chain)", () => {
  const base = () => ({ AWS_REGION: "us-east-1", AWS_ENDPOINT_URL_BEDROCK_RUNTIME: suite.model.origin });
  const spec = "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0";

  it("missing: no credentials anywhere in the chain", async () => {
    const result = await run(spec, base());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no AWS credentials found.*AWS_PROFILE/s);
    expect(suite.model.requests).toHaveLength(0);
  });

  it("wrong: an access key AWS does not know", async () => {
    const result = await run(spec, { ...base(), AWS_ACCESS_KEY_ID: "bad-key", AWS_SECRET_ACCESS_KEY: "s" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/UnrecognizedClientException/);
    expect(suite.model.requests).toHaveLength(1);
  });

  it("expired: session credentials past their expiry", async () => {
    const result = await run(spec, {
      ...base(),
      AWS_ACCESS_KEY_ID: "expired-key",
      AWS_SECRET_ACCESS_KEY: "s",
      AWS_SESSION_TOKEN: "t",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ExpiredTokenException.*aws sso login/s);
    expect(suite.model.requests).toHaveLength(1);
  });

  it("reads a profile from ~/.aws/credentials, and an expired SSO session says to log in again", async () => {
    await mkdir(join(suite.home, ".aws", "sso", "cache"), { recursive: true });
    await writeFile(
      join(suite.home, ".aws", "credentials"),
      "[work]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s\n",
    );
    const startUrl = "https://example.awsapps.com/start";
    await writeFile(
      join(suite.home, ".aws", "config"),
      `[profile sso]\nsso_start_url = ${startUrl}\nsso_region = us-east-1\nsso_account_id = 123456789012\nsso_role_name = Dev\nregion = us-east-1\n`,
    );
    const cacheName = createHash("sha1").update(startUrl).digest("hex");
    await writeFile(
      join(suite.home, ".aws", "sso", "cache", `${cacheName}.json`),
      JSON.stringify({ accessToken: "t", expiresAt: "2020-01-01T00:00:00Z", region: "us-east-1", startUrl }),
    );
    suite.model.enqueue({ parts: [{ type: "text", text: "profile works" }] });
    const ok = await run(spec, { ...base(), AWS_PROFILE: "work" });
    expect(ok.stdout, ok.stderr).toContain("profile works");
    expect(suite.model.requests[0]?.headers.authorization).toMatch(/Credential=AKIDPROFILE\//);

    const expired = await run(spec, { ...base(), AWS_PROFILE: "sso" });
    expect(expired.code).toBe(1);
    expect(expired.stderr).toMatch(/aws sso login/);
    expect(suite.model.requests).toHaveLength(1);
  });
});

describe("vertex credentials (application-default credentials)", () => {
  const base = () => ({
    GOOGLE_CLOUD_PROJECT: "p",
    GOOGLE_CLOUD_LOCATION: "us-central1",
    GOOGLE_VERTEX_BASE_URL: suite.model.origin,
  });

  it("missing: says how to log in", async () => {
    const result = await run("vertex:gemini-2.5-flash", base());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/gcloud auth application-default login/);
    expect(suite.model.requests).toHaveLength(0);
  });

  it("wrong: a credentials file that is not one", async () => {
    const file = join(suite.home, "key.json");
    await writeFile(
      file,
      JSON.stringify({
        type: "service_account",
        client_email: "x@p.iam.gserviceaccount.com",
        private_key: "not a key",
      }),
    );
    const result = await run("vertex:gemini-2.5-flash", { ...base(), GOOGLE_APPLICATION_CREDENTIALS: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(file);
    expect(suite.model.requests).toHaveLength(0);
  });

  it("expired: the server's 401 comes with the way to refresh", async () => {
    const { generateKeyPairSync } = await import("node:crypto");
    const file = join(suite.home, "key.json");
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    await writeFile(
      file,
      JSON.stringify({
        type: "service_account",
        client_email: "x@p.iam.gserviceaccount.com",
        private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      }),
    );
    suite.model.enqueue({
      parts: [],
      httpError: {
        status: 401,
        body: {
          error: {
            code: 401,
            message: "Request had invalid authentication credentials. ACCESS_TOKEN_EXPIRED",
            status: "UNAUTHENTICATED",
          },
        },
      },
    });
    const result = await run("vertex:gemini-2.5-flash", { ...base(), GOOGLE_APPLICATION_CREDENTIALS: file });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ACCESS_TOKEN_EXPIRED.*gcloud auth application-default login/s);
    expect(suite.model.requests).toHaveLength(1);
  });
});
