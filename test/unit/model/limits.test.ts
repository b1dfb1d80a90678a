import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createModelClient } from "../../../src/model/client/create-client.js";
import type { ModelEvent } from "../../../src/model/types.js";
import {
  createFakeModelServer,
  limitHeaders,
  rateLimitedTurn,
  textTurn,
  type FakeApi,
  type FakeModelServer,
} from "../../support/fake-model/index.js";
import { collect, instantRetry, request, userText } from "./helpers.js";

// Each provider's own way of saying how much of its limits is used and when a refused request may
// be sent again, from the fake model's realistic headers and bodies to the normalized events.

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  server.setHandler(undefined);
});
afterEach(() => vi.unstubAllEnvs());

const PROVIDERS: Array<[FakeApi, string, () => Record<string, string>]> = [
  ["anthropic", "anthropic:claude-sonnet-4-5", () => ({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.origin })],
  ["openai", "openai:gpt-4.1", () => ({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.openaiBaseUrl })],
  ["gemini", "google:gemini-2.5-pro", () => ({ GEMINI_API_KEY: "k", GOOGLE_BASE_URL: server.origin })],
  [
    "bedrock",
    "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0",
    () => ({
      AWS_ACCESS_KEY_ID: "AKIDTEST",
      AWS_SECRET_ACCESS_KEY: "secret",
      AWS_REGION: "us-east-1",
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.origin,
      AWS_EC2_METADATA_DISABLED: "true",
    }),
  ],
];

async function run(spec: string, env: Record<string, string>): Promise<ModelEvent[]> {
  // The AWS SDK's credential chain reads the process environment.
  if (spec.startsWith("bedrock:")) for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const retry = instantRetry();
  const client = await createModelClient(spec, { env, retry: { ...retry.options, maxRetryAfterMs: 60_000 } });
  return collect(client.stream(request([userText("hi")])));
}

describe("provider limits", () => {
  for (const [api, spec, env] of PROVIDERS) {
    it(`${api}: a refusal past the retry budget says which limit and when it resets`, async () => {
      // Five minutes: longer than any retry waits, so the request fails at once.
      // Every attempt is refused (the AWS SDK retries throttling itself before we see it).
      server.setHandler(() => rateLimitedTurn(api, { resetsInSeconds: 300 }));
      const events = await run(spec, env());
      const error = events.at(-1)!;
      expect(error.type).toBe("error");
      if (error.type !== "error") return;
      expect(error.limit?.message, JSON.stringify(error)).toMatch(/limit reached/);
      if (api === "bedrock") {
        // Bedrock only throttles: no reset time is known.
        expect(error.limit?.resetsAt).toBeUndefined();
      } else {
        const wait = Date.parse(error.limit!.resetsAt!) - Date.now();
        expect(wait).toBeGreaterThan(240_000);
        expect(wait).toBeLessThanOrEqual(300_000);
        expect(error.limit?.message).toMatch(/resets at \d\d:\d\d:\d\d UTC \(in 5 min\)/);
      }
      expect(error.limit?.pool?.state).toBe("exhausted");
    });

    if (api === "anthropic" || api === "openai")
      it(`${api}: the headers of a good answer become a limits event`, async () => {
        server.enqueue({ ...textTurn("hi"), headers: limitHeaders(api, { tokensLeft: 8000 }) });
        const events = await run(spec, env());
        const limits = events.find((e) => e.type === "limits");
        expect(limits?.type === "limits" && limits.pool.meters.map((m) => [m.id, m.status])).toContainEqual(
          api === "anthropic" ? ["output-tokens", "warning"] : ["tokens", "warning"],
        );
        expect(events.at(-1)!.type).toBe("done");
      });
  }

  it("openai: an account out of credit is not retried and says to check billing", async () => {
    server.enqueue(rateLimitedTurn("openai", { resetsInSeconds: 0, quota: true }), textTurn("never"));
    const events = await run("openai:gpt-4.1", PROVIDERS[1]![2]());
    const error = events.at(-1)!;
    expect(error.type === "error" && error.limit?.message).toMatch(/quota limit reached.*plan and billing/);
    expect(events.some((e) => e.type === "retry")).toBe(false);
  });
});
