import { describe, expect, it } from "vitest";
import { createQuestionDialog } from "../../../src/acp/dialogs/question-dialog.js";
import { parseLine } from "../../../src/cli/stdin-questions.js";
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
      reason: 'its field "pw" asks for "Password", which looks like a secret; forms must not collect secrets',
      secret: true,
    });
    expect(shown).toEqual([]);
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
