import { describe, expect, it } from "vitest";
import { createQuestionDialog, secretField } from "../../../src/acp/question-dialog.js";
import { parseLine } from "../../../src/cli/stdin-questions.js";
import { looksLikeSecretRequest } from "../../../src/tools/ask-user.js";
import { silentLogger } from "../../../src/util/logger.js";

const signal = new AbortController().signal;

describe("relayed forms", () => {
  it("declines a form that asks for a secret without showing it", async () => {
    const shown: unknown[] = [];
    const dialog = createQuestionDialog({
      sessionId: "s",
      capabilities: { elicitation: { form: {} } },
      elicit: async (params) => (shown.push(params), { action: "accept", content: {} }),
      choose: async () => ({ outcome: { outcome: "cancelled" } }),
      logger: silentLogger,
    });
    const answer = await dialog.form(
      {
        message: "Sign in",
        schema: { type: "object", properties: { user: { type: "string" }, pw: { type: "string", title: "Password" } } },
      },
      {},
      signal,
    );
    expect(answer).toEqual({
      action: "unsupported",
      reason: 'the form asks for "pw", which looks like a secret; forms must not collect secrets',
    });
    expect(shown).toEqual([]);
  });

  it("finds secret-looking fields by name, title or format", () => {
    expect(secretField({ properties: { api_key: { type: "string" } } })).toBe("api_key");
    expect(
      secretField({ properties: { name: { type: "string" }, email: { type: "string", format: "email" } } }),
    ).toBeUndefined();
  });

  it("says whether a question asks for a secret", () => {
    expect(looksLikeSecretRequest("What is your API key?")).toBe(true);
    expect(looksLikeSecretRequest("Should the token refresh be retried?")).toBe(false);
  });
});

describe("headless answers", () => {
  const q = { question: "Which?", options: ["Postgres", "SQLite", "MySQL"] };
  it("reads numbers, option text, free text and an empty line", () => {
    expect(parseLine(q, "2")).toEqual({ outcome: "answered", selected: ["SQLite"] });
    expect(parseLine(q, "mysql")).toEqual({ outcome: "answered", selected: ["MySQL"] });
    expect(parseLine({ ...q, multiSelect: true }, "1, 3")).toEqual({
      outcome: "answered",
      selected: ["Postgres", "MySQL"],
    });
    expect(parseLine(q, "DuckDB please")).toEqual({ outcome: "answered", selected: [], text: "DuckDB please" });
    expect(parseLine(q, "  ")).toEqual({ outcome: "declined" });
  });
});
