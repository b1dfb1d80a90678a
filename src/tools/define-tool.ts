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

export function toModelJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
