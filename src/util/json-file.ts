import { readFile } from "node:fs/promises";
import { errorMessage, isNotFound } from "./errors.js";

/** What a JSON state or config file held: nothing, an object, or the reason it cannot be used. */
export type JsonObjectFile =
  { state: "missing" } | { state: "ok"; value: Record<string, unknown> } | { state: "invalid"; reason: string };

/** Reads a file that must hold one JSON object. Never throws; the caller decides what a bad file means. */
export async function readJsonObjectFile(path: string): Promise<JsonObjectFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return { state: "missing" };
    return { state: "invalid", reason: `cannot read: ${errorMessage(error)}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { state: "invalid", reason: `invalid JSON: ${errorMessage(error)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { state: "invalid", reason: "not a JSON object" };
  return { state: "ok", value: value as Record<string, unknown> };
}
