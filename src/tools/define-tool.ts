import { z } from "zod";
import type { ToolDefinition, ValidationResult } from "./types.js";

type ZodToolSpec<S extends z.ZodType> = Omit<ToolDefinition<z.infer<S>>, "jsonSchema" | "validate"> & { schema: S };

/** Builds a tool whose input is described and validated by one zod schema. */
export function defineTool<S extends z.ZodType>(spec: ZodToolSpec<S>): ToolDefinition<z.infer<S>> {
  const { schema, ...rest } = spec;
  return {
    ...rest,
    jsonSchema: toModelJsonSchema(schema),
    validate: (raw) => validateWith(schema, raw),
  };
}

export function validateWith<S extends z.ZodType>(schema: S, raw: unknown): ValidationResult<z.infer<S>> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return { success: true, data: parsed.data };
  return { success: false, error: z.prettifyError(parsed.error) };
}

// Tools are built for every turn, and converting their schemas was most of that (about 2 ms a
// turn); the schemas are module constants, so each is converted once. Frozen, because every tool
// built from the schema shares the result.
const converted = new WeakMap<z.ZodType, Record<string, unknown>>();

export function toModelJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let json = converted.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    delete json.$schema;
    converted.set(schema, deepFreeze(json));
  }
  return json;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
