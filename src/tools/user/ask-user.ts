import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { ToolResult, UserAnswer, UserQuestion } from "../types.js";

const schema = z.object({
  question: z.string().trim().min(1).max(2000).describe("The question, complete and self-contained"),
  options: z
    .array(z.string().trim().min(1).max(200))
    .min(2)
    .max(12)
    .optional()
    .describe("Choices to pick from (2-12); omit for a free-text answer"),
  multi_select: z.boolean().optional().describe("Let the user pick several options (default false)"),
});

/**
 * `ask_user {question, options?, multi_select?}`: a structured question. The editor shows a form where it
 * can; otherwise the question becomes the agent's message and the turn ends, so the user answers with
 * their next prompt.
 */
export function createAskUserTool() {
  return defineTool({
    name: "ask_user",
    hookName: "AskUserQuestion",
    kind: "other",
    effect: "none",
    schema,
    description: [
      "Asks the user a question and waits for the answer. Use it when a decision is genuinely theirs (a choice between approaches, missing requirements), not for things you can find out yourself.",
      "Offer `options` when the answer is one of a few choices (the user can still type something else); set `multi_select` when several may apply.",
      "Never ask for passwords, API keys, tokens or other secrets.",
    ].join("\n"),
    present(input) {
      return { title: input.question.length > 120 ? `${input.question.slice(0, 117)}...` : input.question };
    },
    // The gate refuses a question that asks for a secret before it runs (gate/secret-question.ts).
    question: (input) => ({ text: input.question, ...(input.options ? { options: input.options } : {}) }),
    async execute(input, ctx): Promise<ToolResult> {
      const question: UserQuestion = {
        question: input.question,
        ...(input.options ? { options: input.options } : {}),
        ...(input.multi_select ? { multiSelect: true } : {}),
      };
      const answer: UserAnswer = ctx.askUser
        ? await ctx.askUser(question)
        : { outcome: "unavailable", reason: "no way to show questions" };
      return answerResult(question, answer);
    },
  });
}

function answerResult(question: UserQuestion, answer: UserAnswer): ToolResult {
  switch (answer.outcome) {
    case "answered": {
      const parts = [...answer.selected, ...(answer.text ? [answer.text] : [])];
      const text = parts.length === 0 ? "The user submitted no answer." : `The user answered: ${parts.join("; ")}`;
      return {
        content: [{ type: "text", text }],
        rawOutput: { selected: answer.selected, ...(answer.text ? { text: answer.text } : {}) },
      };
    }
    case "declined":
      return {
        content: [
          {
            type: "text",
            text: "The user declined to answer. Continue with your best judgement and say what you assumed, or stop if you cannot.",
          },
        ],
        rawOutput: { declined: true },
      };
    case "failed":
      return { content: [{ type: "text", text: `Error: ${answer.message}` }], isError: true };
    case "cancelled":
      return { content: [{ type: "text", text: "The question was dismissed." }], isError: true };
    case "unavailable":
      return {
        content: [
          {
            type: "text",
            text: "The question was shown to the user as your message and the turn ends here; their answer will arrive as the next user message.",
          },
        ],
        endTurnWith: questionAsText(question),
        rawOutput: { askedInConversation: true, reason: answer.reason },
      };
  }
}

export function questionAsText(question: UserQuestion): string {
  if (!question.options) return question.question;
  const list = question.options.map((option, i) => `${i + 1}. ${option}`).join("\n");
  const hint = question.multiSelect
    ? "(Reply with one or more of these, or something else.)"
    : "(Reply with one of these, or something else.)";
  return `${question.question}\n\n${list}\n\n${hint}`;
}
