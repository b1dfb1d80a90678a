import { readFile } from "node:fs/promises";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { defaultConfig } from "./config-defaults.js";
import type { DeepAcpConfig } from "./config-schema.js";

// ~/.deepagents/config.toml: a missing or broken file still yields a usable config; problems (bad
// TOML, wrong types, unknown keys) become diagnostics. The TOML parser and the schema load only when
// there is a file to read.

export type { DeepAcpConfig, FilePermissionRule } from "./config-schema.js";
export { defaultConfig } from "./config-defaults.js";
export type ConfigLoad = { config: DeepAcpConfig; diagnostics: Diagnostic[]; found: boolean };

/** Reads and validates config.toml. Never throws: a broken section falls back to its defaults. */
export async function loadConfigFile(path: string): Promise<ConfigLoad> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return {
      config: defaultConfig(),
      found: false,
      diagnostics: missing ? [] : [{ severity: "error", source: path, message: `cannot read: ${errorMessage(error)}` }],
    };
  }
  const { parse } = await import("smol-toml");
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (error) {
    return {
      config: defaultConfig(),
      found: true,
      diagnostics: [{ severity: "error", source: path, message: `invalid TOML: ${errorMessage(error)}` }],
    };
  }
  const { parseConfigObject } = await import("./config-schema.js");
  return { ...parseConfigObject(raw, path), found: true };
}
