import { isPlainObject, toolInputObject } from "../wire/tool-input.js";
import type { Message, ModelToolSpec, UserContent } from "../types.js";

// Our conversation → Gemini `contents`, `systemInstruction` and `tools` (Gemini API and Vertex AI alike).

export type GeminiPart = Record<string, unknown>;
export type GeminiContent = { role: "user" | "model"; parts: GeminiPart[] };

export function toGeminiContents(messages: Message[]): GeminiContent[] {
  const out: GeminiContent[] = [];
  const push = (role: GeminiContent["role"], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const previous = out[out.length - 1];
    // One turn's function responses must travel together, in one user content.
    if (previous && previous.role === role) previous.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case "user":
        push("user", message.content.flatMap(userPart));
        break;
      case "assistant": {
        const parts: GeminiPart[] = [];
        for (const part of message.content) {
          if (part.type === "text" && part.text !== "") parts.push({ text: part.text });
          if (part.type === "tool_call") {
            const call: GeminiPart = {
              functionCall: {
                name: part.name,
                args: toolInputObject(part.input),
              },
            };
            // Gemini 3 rejects a function call sent back without the signature it came with.
            if (part.thoughtSignature) call.thoughtSignature = part.thoughtSignature;
            parts.push(call);
          }
        }
        push("model", parts);
        break;
      }
      case "tool": {
        const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
        const response = message.isError ? { error: text } : { content: text };
        push("user", [
          { functionResponse: { name: message.toolName, response } },
          ...message.content.filter((p) => p.type === "image").flatMap(userPart),
        ]);
        break;
      }
    }
  }
  return out;
}

function userPart(part: UserContent): GeminiPart[] {
  if (part.type === "text") return part.text === "" ? [] : [{ text: part.text }];
  return [{ inlineData: { mimeType: part.mimeType, data: part.data } }];
}

export function toGeminiTools(tools: ModelToolSpec[]): Record<string, unknown>[] {
  if (tools.length === 0) return [];
  return [
    {
      functionDeclarations: tools.map((tool) => {
        const parameters = toGeminiSchema(tool.inputSchema);
        // A tool without arguments is declared without parameters (an empty OBJECT is rejected).
        return parameters.properties
          ? { name: tool.name, description: tool.description, parameters }
          : { name: tool.name, description: tool.description };
      }),
    },
  ];
}

// Gemini takes an OpenAPI 3.0 subset: no $schema, additionalProperties or const, "nullable" instead
// of type unions, and an OBJECT must have at least one property.
const KEPT = new Set([
  "type",
  "format",
  "description",
  "nullable",
  "enum",
  "required",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "title",
]);

export function toGeminiSchema(schema: unknown): Record<string, unknown> {
  if (!isPlainObject(schema)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (KEPT.has(key)) out[key] = value;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    out.type = types[0] ?? "string";
    if (types.length < schema.type.length) out.nullable = true;
  }
  if ("const" in schema) out.enum = [schema.const];
  if (Array.isArray(out.enum)) out.enum = out.enum.map(String);
  if (isPlainObject(schema.properties) && Object.keys(schema.properties).length > 0) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, sub]) => [name, toGeminiSchema(sub)]),
    );
  } else if (out.type === "object") {
    delete out.required;
  }
  if (schema.items !== undefined) out.items = toGeminiSchema(schema.items);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(schema[key])) out.anyOf = (schema[key] as unknown[]).map(toGeminiSchema);
  }
  return out;
}
