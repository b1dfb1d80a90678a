import { z } from "zod";

/** Models sometimes send `path` for `file_path`; accept it (as Deep Agents does). */
export function withFilePathAlias<T extends z.ZodRawShape>(shape: T) {
  return z.preprocess((raw) => {
    if (raw && typeof raw === "object" && !("file_path" in raw) && "path" in raw) {
      const { path, ...rest } = raw as Record<string, unknown>;
      return { ...rest, file_path: path };
    }
    return raw;
  }, z.object(shape));
}

export const filePathField = z
  .string()
  .min(1)
  .describe("Absolute path of the file (relative paths resolve against the working directory)");
