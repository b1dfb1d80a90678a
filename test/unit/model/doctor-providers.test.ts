import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { collectModelFacts } from "../../../src/cli/doctor/doctor-model.js";

// `deep-acp doctor` knows every provider: what it reads, what is set (never values), which one was chosen.
describe("doctor model facts", () => {
  let dir: string | undefined;
  afterEach(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it("lists every provider with the variables and files it reads, and says which was chosen from what", async () => {
    dir = await mkdtemp(join(tmpdir(), "deep-acp-doctor-"));
    const facts = await collectModelFacts({
      env: { GEMINI_API_KEY: "secret-value", AWS_PROFILE: "work" },
      stateDir: dir,
    });
    expect(facts).toMatchObject({
      ok: true,
      spec: "google:gemini-2.5-pro",
      source: "GEMINI_API_KEY",
      credential: "GEMINI_API_KEY (environment)",
    });
    expect(JSON.stringify(facts)).not.toContain("secret-value");
    const rows = new Map(facts.providers!.map((row) => [row.name, row]));
    expect(rows.size).toBe(16);
    expect(rows.get("google")).toMatchObject({
      usable: true,
      set: ["GEMINI_API_KEY"],
      reads: expect.arrayContaining(["GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_BASE_URL"]),
    });
    expect(rows.get("bedrock")).toMatchObject({
      usable: false,
      set: ["AWS_PROFILE"],
      reads: expect.arrayContaining(["AWS_REGION", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"]),
    });
    expect(rows.get("bedrock")!.files).toEqual(expect.arrayContaining([expect.stringContaining("~/.aws/sso/cache")]));
    expect(rows.get("azure")!.reads).toEqual(
      expect.arrayContaining(["AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN"]),
    );
    expect(rows.get("openrouter")!.reads).toContain("OPENROUTER_API_KEY");
  });

  it("reports a named provider whose credentials are missing", async () => {
    dir = await mkdtemp(join(tmpdir(), "deep-acp-doctor-"));
    const facts = await collectModelFacts({ env: {}, flag: "azure:gpt-4o", stateDir: dir });
    expect(facts.ok).toBe(false);
    expect(facts.error).toMatch(/azure:gpt-4o \(from --model flag\): .*AZURE_OPENAI_ENDPOINT/);
  });
});
