import { describe, expect, it } from "vitest";
import { resolveLimits } from "../../../src/interpreter/quickjs/limits.js";
import { interpreterPromptSection } from "../../../src/interpreter/prompt.js";
import { schemaToTypeScript, toolSignature } from "../../../src/interpreter/calls/signatures.js";
import { fakeLs, fakeReadFile, fakeWriteFile } from "./helpers.js";

describe("TypeScript signatures from JSON Schema", () => {
  it("renders a zod-defined tool as an async tools.* signature", () => {
    expect(toolSignature({ callName: "readFile", tool: fakeReadFile({}) })).toBe(
      "/** Read a file from the filesystem. */\nasync tools.readFile(input: { file_path: string; offset?: number; limit?: number }): Promise<string>",
    );
  });

  it("makes the input optional when nothing is required", () => {
    const tool = { ...fakeLs([]), jsonSchema: { type: "object", properties: { path: { type: "string" } } } };
    expect(toolSignature({ callName: "ls", tool })).toContain(
      "async tools.ls(input?: { path?: string }): Promise<string>",
    );
  });

  it("covers enums, unions, arrays, nested objects, refs and odd keys", () => {
    const schema = {
      type: "object",
      properties: {
        mode: { enum: ["content", "files_with_matches"] },
        limit: { type: ["integer", "null"] },
        tags: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
        todo: { $ref: "#/$defs/Todo" },
        "x-extra": { const: true },
        meta: { type: "object", additionalProperties: { type: "string" } },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "boolean" }] },
      },
      required: ["mode"],
      $defs: { Todo: { type: "object", properties: { content: { type: "string" } }, required: ["content"] } },
    };
    expect(schemaToTypeScript(schema)).toBe(
      '{ mode: "content" | "files_with_matches"; limit?: number | null; tags?: (string | number)[]; todo?: { content: string }; ' +
        '"x-extra"?: true; meta?: { [key: string]: string }; pair?: [string, boolean] }',
    );
  });

  it("falls back to unknown for what it cannot express", () => {
    expect(schemaToTypeScript({})).toBe("unknown");
    expect(schemaToTypeScript({ $ref: "https://example.com/schema" })).toBe("unknown");
    expect(schemaToTypeScript({ type: "object" })).toBe("Record<string, unknown>");
  });
});

describe("system prompt section", () => {
  const limits = resolveLimits({});

  it("documents the limits, the tools namespace and task()", () => {
    const text = interpreterPromptSection({ limits, allowlist: [fakeReadFile({}), fakeLs([])], hasSubagents: true });
    expect(text.startsWith("### Interpreter\n")).toBe(true);
    expect(text).toContain("5000 ms of execution");
    expect(text).toContain("64 MB of memory");
    expect(text).toContain("4000 characters of output");
    expect(text).toContain("256 calls to `tools` and `task()`");
    expect(text).toContain("no clock");
    expect(text).toContain(
      "async tools.readFile(input: { file_path: string; offset?: number; limit?: number }): Promise<string>",
    );
    expect(text).toContain("async tools.ls(input: { path: string }): Promise<string>");
    expect(text).toContain("#### Subagents — `task()`");
    expect(text).toContain("Up to 32 subagents run at once");
  });

  it("lists only what is callable: no write tools in read-only mode, no task() without subagents", () => {
    const text = interpreterPromptSection({
      limits,
      allowlist: [fakeReadFile({}), fakeWriteFile({})],
      hasSubagents: false,
      mode: "plan",
    });
    expect(text).toContain("tools.readFile");
    expect(text).not.toContain("tools.writeFile");
    expect(text).not.toContain("task(");
  });

  it("says so when no tool is callable", () => {
    const text = interpreterPromptSection({
      limits: resolveLimits({ allowClock: true }),
      allowlist: [],
      hasSubagents: false,
    });
    expect(text).toContain("No tools are callable from code");
    expect(text).toContain("read the real clock");
  });
});
