import { describe, expect, it } from "vitest";
import { filePathOf, toContentBlocks, toPromptBlocks } from "../../../src/acp/prompt-content.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import type { MentionDecision } from "../../../src/gate/seams/mention.js";
import { blockPlan, promptText, resolvePrompt, type BlockPlan } from "../../../src/turn/index.js";
import type { PromptBlock } from "../../../src/tools/types.js";

// The prompt's three conversions: ACP content -> prompt blocks (acp/), prompt blocks -> the user
// message the model sees and -> plain text for hooks and titles (turn/).

describe("ACP content -> prompt blocks -> ACP content", () => {
  const cases: Array<[string, Parameters<typeof toPromptBlocks>[0][number], PromptBlock]> = [
    ["text", { type: "text", text: "hi" }, { type: "text", text: "hi" }],
    [
      "image",
      { type: "image", mimeType: "image/png", data: "AA==" },
      { type: "image", mimeType: "image/png", data: "AA==" },
    ],
    [
      "file link",
      { type: "resource_link", uri: "file:///p/a.ts", name: "a.ts" },
      { type: "file", path: "/p/a.ts", name: "a.ts", uri: "file:///p/a.ts" },
    ],
    [
      "relative link",
      { type: "resource_link", uri: "src/a.ts", name: "a.ts" },
      { type: "file", path: "/p/src/a.ts", name: "a.ts", uri: "src/a.ts" },
    ],
    [
      "other link",
      { type: "resource_link", uri: "https://x.dev", name: "x" },
      { type: "link", uri: "https://x.dev", name: "x" },
    ],
    [
      "embedded text",
      { type: "resource", resource: { uri: "file:///p/b", text: "B" } },
      { type: "resource", uri: "file:///p/b", text: "B" },
    ],
  ];
  for (const [name, acpBlock, block] of cases) {
    it(name, () => {
      expect(toPromptBlocks([acpBlock], "/p")).toEqual([block]);
      if (name !== "relative link") expect(toContentBlocks([block])).toEqual([acpBlock]);
    });
  }

  it("audio becomes a note, and only file URIs and plain paths name files", () => {
    expect(toPromptBlocks([{ type: "audio", mimeType: "audio/wav", data: "" }], "/p")[0]).toMatchObject({
      type: "text",
    });
    expect(filePathOf("zed://x", "/p")).toBeUndefined();
    expect(filePathOf("/abs", "/p")).toBe("/abs");
  });
});

describe("one block -> its plain text and its parts of the user message (one switch)", () => {
  const image = { type: "image", mimeType: "image/png", data: "AA==" } as const;
  const cases: Array<[string, PromptBlock, boolean, BlockPlan]> = [
    ["text", { type: "text", text: "hi" }, true, { plain: "hi", content: [{ type: "text", text: "hi" }] }],
    ["image, seen", { ...image, uri: "x.png" }, true, { plain: "", content: [image] }],
    [
      "image, unseen",
      { ...image, uri: "x.png" },
      false,
      { plain: "", content: [{ type: "text", text: "[image x.png omitted: the current model cannot view images]" }] },
    ],
    [
      "link",
      { type: "link", uri: "https://x.dev", name: "x" },
      true,
      { plain: "", content: [{ type: "text", text: "[@x](https://x.dev)" }] },
    ],
    [
      "file",
      { type: "file", path: "/p/a.ts", name: "a.ts", uri: "file:///p/a.ts" },
      true,
      { plain: "", content: [{ type: "text", text: "@/p/a.ts" }], read: "/p/a.ts" },
    ],
    [
      "embedded text",
      { type: "resource", uri: "file:///p/b", text: "B" },
      true,
      {
        plain: "",
        content: [{ type: "text", text: "@file:///p/b" }],
        context: '<context ref="file:///p/b">\nB\n</context>',
      },
    ],
    [
      "embedded image, seen",
      { type: "resource", uri: "u", blob: "AA==", mimeType: "image/png" },
      true,
      { plain: "", content: [image] },
    ],
    [
      "embedded image, unseen",
      { type: "resource", uri: "u", blob: "AA==", mimeType: "image/png" },
      false,
      { plain: "", content: [{ type: "text", text: "[embedded image/png resource u omitted]" }] },
    ],
    [
      "embedded blob",
      { type: "resource", uri: "u", blob: "AA==" },
      true,
      { plain: "", content: [{ type: "text", text: "[embedded binary resource u omitted]" }] },
    ],
  ];
  for (const [name, block, supportsImages, plan] of cases) {
    it(name, () => expect(blockPlan(block, supportsImages)).toEqual(plan));
  }
});

describe("prompt blocks -> the model's user message", () => {
  // The state backend has no links: the gate's decision here only lets the read go ahead.
  const allow = async (): Promise<MentionDecision> => ({ ok: true, approved: new Map() });
  it("reads mentioned files into context, and says what it could not read", async () => {
    const backend = createStateBackend();
    await backend.write("/p/a.txt", "alpha");
    const message = await resolvePrompt(
      [
        { type: "text", text: "look at " },
        { type: "file", path: "/p/a.txt", name: "a.txt", uri: "file:///p/a.txt" },
        { type: "file", path: "/p/missing.txt", name: "missing.txt", uri: "file:///p/missing.txt" },
        { type: "link", uri: "https://x.dev", name: "x" },
      ],
      backend,
      false,
      allow,
    );
    const text = message.content.map((c) => (c.type === "text" ? c.text : "")).join("|");
    expect(text).toContain("look at |@/p/a.txt|@/p/missing.txt|[@x](https://x.dev)");
    expect(text).toContain('<context ref="/p/a.txt">\nalpha\n</context>');
    expect(text).toMatch(/<context ref="\/p\/missing.txt" error="[^"]+"\/>/);
  });

  it("keeps images only for models that can see them", async () => {
    const backend = createStateBackend();
    const image: PromptBlock = { type: "image", mimeType: "image/png", data: "AA==" };
    expect((await resolvePrompt([image], backend, true, allow)).content).toEqual([
      { type: "image", mimeType: "image/png", data: "AA==" },
    ]);
    expect((await resolvePrompt([image], backend, false, allow)).content[0]).toMatchObject({ type: "text" });
    expect((await resolvePrompt([], backend, true, allow)).content).toEqual([{ type: "text", text: "" }]);
  });

  it("plain text is the text blocks only", () => {
    expect(
      promptText([
        { type: "text", text: "a" },
        { type: "link", uri: "u", name: "n" },
        { type: "text", text: "b" },
      ]),
    ).toBe("ab");
  });
});
