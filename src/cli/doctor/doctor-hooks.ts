import { projectPaths } from "../../config/paths.js";
import {
  createHookTrustStore,
  describeProjectHooks,
  loadHooksConfig,
  type HookSource,
  type LoadedHooks,
} from "../../hooks/index.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import { canonicalRoot } from "../../util/path-within.js";
import type { DoctorHookFile, DoctorHookTrust, DoctorHooksFacts } from "./doctor-types.js";

export type HooksFactsOptions = {
  /** `~/.deepagents/hooks.json`. */
  userFile: string;
  projectRoot: string;
  stateDir: string;
  /** `--trust-project-hooks`. */
  trustProjectHooks: boolean;
  /** Hooks of enabled plugins. */
  pluginSources: readonly HookSource[];
};

/** Loads every hooks file a session would, and says whether the project's hooks would run. Runs nothing. */
export async function collectHooksFacts(options: HooksFactsOptions): Promise<DoctorHooksFacts> {
  const sources: HookSource[] = [
    { scope: "user", file: options.userFile },
    { scope: "project", file: projectPaths(options.projectRoot).hooksFile },
    ...options.pluginSources,
  ];
  const loaded = await loadHooksConfig(sources);
  const diagnostics: Diagnostic[] = [...loaded.diagnostics];
  const projectTrust = await trustOf(loaded, options, diagnostics);
  return { files: loaded.files.map((info) => fileFacts(info, loaded)), projectTrust, diagnostics };
}

function fileFacts(info: LoadedHooks["files"][number], loaded: LoadedHooks): DoctorHookFile {
  const base = {
    path: info.file,
    scope: info.scope,
    handlers: info.itemCount,
    ...(info.pluginId !== undefined ? { pluginId: info.pluginId } : {}),
  };
  if (!info.exists) return { ...base, state: "missing" };
  const errors = loaded.diagnostics.filter((d) => d.source === info.file && d.severity === "error");
  if (errors.length === 0) return { ...base, state: "found" };
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return { ...base, state: "invalid", detail: `${errors[0]!.message}${more}` };
}

async function trustOf(
  loaded: LoadedHooks,
  options: HooksFactsOptions,
  diagnostics: Diagnostic[],
): Promise<DoctorHookTrust> {
  const request = await describeProjectHooks(loaded, options.projectRoot);
  if (!request) return { status: "none", commands: [] };
  const facts = {
    file: request.file,
    sha256: request.sha256,
    commands: request.commands.map((c) => `${c.event}${isAny(c.matcher) ? "" : `[${c.matcher}]`}: ${c.hook}`),
  };
  if (options.trustProjectHooks) return { status: "flag", ...facts };
  const store = createHookTrustStore({ stateDir: options.stateDir });
  if (await store.isTrusted(options.projectRoot, request.fingerprint)) return { status: "trusted", ...facts };
  const earlier = (await store.list())[canonicalRoot(options.projectRoot)];
  if (earlier) {
    diagnostics.push({
      severity: "warning",
      source: request.file,
      message:
        "edited (or a script it runs changed) since you trusted it; the editor asks again before these hooks run",
    });
    return { status: "changed", ...facts };
  }
  return { status: "untrusted", ...facts };
}

function isAny(matcher: string): boolean {
  return matcher.trim() === "" || matcher.trim() === "*";
}
