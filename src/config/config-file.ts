import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../util/atomic-file.js";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { defaultConfig } from "./config-defaults.js";
import type { DeepAcpConfig } from "./config-schema.js";

// ~/.deepagents/config.toml: a missing or broken file still yields a usable config; problems (bad
// TOML, wrong types, unknown keys) become diagnostics. The TOML parser and the schema load only when
// there is a file to read, and not even then when the file is what was last checked: the result of
// checking it is kept (`checked`), keyed on the file's bytes and the schema's identity, because
// loading the schema library is most of what an editor's first session would otherwise wait for.

export type { DeepAcpConfig, FilePermissionRule, PeerAgentConfig } from "./config-schema.js";
export { defaultConfig } from "./config-defaults.js";
export type ConfigLoad = { config: DeepAcpConfig; diagnostics: Diagnostic[]; found: boolean };

/** Where the last check of config.toml is kept, and the identity of the schema that made it. */
export type CheckedConfigCache = { file: string; schemaId: string };

type CheckedConfig = { schemaId: string; sha256: string; config: DeepAcpConfig; diagnostics: Diagnostic[] };

/** Reads and validates config.toml. Never throws: a broken section falls back to its defaults. */
export async function loadConfigFile(path: string, checked?: CheckedConfigCache): Promise<ConfigLoad> {
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
  const sha256 = checked ? createHash("sha256").update(text).digest("hex") : "";
  const kept = checked && (await readChecked(checked.file));
  if (kept && kept.schemaId === checked.schemaId && kept.sha256 === sha256)
    return { config: kept.config, diagnostics: kept.diagnostics, found: true };
  const result = await checkConfigText(text, path);
  if (checked) {
    const record: CheckedConfig = { schemaId: checked.schemaId, sha256, ...result };
    // Best effort: without it the next start checks the file again.
    await writeFileAtomic(checked.file, JSON.stringify(record)).catch(() => undefined);
  }
  return { ...result, found: true };
}

async function readChecked(file: string): Promise<CheckedConfig | undefined> {
  try {
    const record = JSON.parse(await readFile(file, "utf8")) as Partial<CheckedConfig>;
    const valid =
      typeof record.schemaId === "string" &&
      typeof record.sha256 === "string" &&
      typeof record.config === "object" &&
      record.config !== null &&
      Array.isArray(record.diagnostics);
    return valid ? (record as CheckedConfig) : undefined;
  } catch {
    return undefined;
  }
}

async function checkConfigText(
  text: string,
  path: string,
): Promise<{ config: DeepAcpConfig; diagnostics: Diagnostic[] }> {
  const { parse } = await import("smol-toml");
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (error) {
    return {
      config: defaultConfig(),
      diagnostics: [{ severity: "error", source: path, message: `invalid TOML: ${errorMessage(error)}` }],
    };
  }
  const { parseConfigObject } = await import("./config-schema.js");
  return parseConfigObject(raw, path);
}
