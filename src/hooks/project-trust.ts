import { hookLabel, loadHooksConfig, type LoadedHooks } from "./config-loader.js";
import type { HookEventName } from "./events.js";
import { hookScriptDigests, hookScriptsUndetermined, hookTrustChanges, hookTrustFingerprint } from "./script-refs.js";
import type { HookTrustStore } from "./trust-store.js";
import { canonicalRoot } from "../util/path-within.js";
import type { HookDiagnostic, HookItem } from "./types.js";

// Project hooks come from the repository, so they run only after the user has seen every command.
// User hooks are the user's own; plugin hooks were authorized by enabling the plugin.

export type HookTrustCommand = {
  event: HookEventName;
  matcher: string;
  /** What runs, as the user should read it. */
  hook: string;
  command?: string;
  argv?: string[];
  /** JSON path in the file. */
  path: string;
};

/** Everything the trust dialog shows. */
export type HookTrustRequest = {
  projectRoot: string;
  file: string;
  /** Of the hooks file's bytes. */
  sha256: string;
  commands: HookTrustCommand[];
  /** Project files the commands run (relative path -> digest), covered by the approval. */
  scripts: Record<string, string>;
  /** Why some files the commands run cannot be told from them (the dialog says so). */
  undetermined?: string[];
  /** What an approval is bound to: the hooks file and the scripts. */
  fingerprint: string;
  /** Set when an earlier approval exists: what changed since (e.g. ".deepagents/hook.mjs changed"). */
  changes?: string[];
};

export type HookTrustAnswer = "allow_once" | "allow_always" | "reject";

export type HookTrustStatus =
  /** No project hooks to decide about. */
  | "none"
  /** Remembered for this root and these exact bytes. */
  | "trusted"
  /** Allowed for this session only. */
  | "trusted_once"
  /** --trust-project-hooks. */
  | "flag"
  | "rejected"
  /** Nobody could be asked (headless without the flag). */
  | "untrusted";

export type ResolveProjectHookTrustOptions = {
  loaded: LoadedHooks;
  projectRoot: string;
  store: HookTrustStore;
  /** --trust-project-hooks: trust for this run without remembering. Default false. */
  trustFlag?: boolean;
  /**
   * Fingerprints the session allowed once; `allow_once` adds to it so /reload of unchanged bytes
   * does not ask again. Default: a fresh set (ask every time).
   */
  sessionGrants?: Set<string>;
  /** Shows the dialog. Absent (headless): untrusted project hooks are skipped with a diagnostic. */
  ask?: (request: HookTrustRequest) => Promise<HookTrustAnswer>;
};

export type ResolvedHookTrust = {
  /** The handlers to give the engine: project handlers only when trusted. */
  items: HookItem[];
  status: HookTrustStatus;
  request?: HookTrustRequest;
  diagnostics: HookDiagnostic[];
};

/**
 * Lists the project file's handlers and the scripts they run, for the dialog; undefined when there
 * is nothing to run.
 */
export async function describeProjectHooks(
  loaded: LoadedHooks,
  projectRoot: string,
): Promise<HookTrustRequest | undefined> {
  const file = loaded.files.find((f) => f.scope === "project" && f.exists && f.itemCount > 0);
  if (!file?.sha256) return undefined;
  const commands = loaded.items
    .filter((item) => item.source.scope === "project" && item.source.file === file.file)
    .map(toCommand);
  const scripts = await hookScriptDigests(commands, projectRoot);
  const undetermined = hookScriptsUndetermined(commands, projectRoot);
  return {
    projectRoot,
    file: file.file,
    sha256: file.sha256,
    commands,
    scripts,
    ...(undetermined.length > 0 ? { undetermined } : {}),
    fingerprint: hookTrustFingerprint(file.sha256, scripts),
  };
}

/** Reads one hooks file and describes it (for `deep-acp doctor`, or a dialog outside a session). */
export async function describeHooksFile(
  file: string,
  projectRoot: string,
): Promise<{ request?: HookTrustRequest; diagnostics: HookDiagnostic[] }> {
  const loaded = await loadHooksConfig([{ scope: "project", file }]);
  const request = await describeProjectHooks(loaded, projectRoot);
  return request ? { request, diagnostics: loaded.diagnostics } : { diagnostics: loaded.diagnostics };
}

export async function resolveProjectHookTrust(options: ResolveProjectHookTrustOptions): Promise<ResolvedHookTrust> {
  const { loaded } = options;
  const request = await describeProjectHooks(loaded, options.projectRoot);
  const withoutProject = loaded.items.filter((item) => item.source.scope !== "project");
  if (!request) return { items: withoutProject, status: "none", diagnostics: [] };

  const grantKey = `${canonicalRoot(options.projectRoot)}\0${request.fingerprint}`;
  const trusted = (status: HookTrustStatus): ResolvedHookTrust => ({
    items: [...loaded.items],
    status,
    request,
    diagnostics: [],
  });
  // A rejection is the user's own answer, so it is only listed (/hooks), not raised as a warning.
  const skipped = (status: HookTrustStatus, message: string): ResolvedHookTrust => ({
    items: withoutProject,
    status,
    request,
    diagnostics: [
      { severity: status === "rejected" ? "info" : "warning", source: request.file, code: "untrusted", message },
    ],
  });

  if (options.trustFlag) return trusted("flag");
  if (options.sessionGrants?.has(grantKey)) return trusted("trusted_once");
  if (await options.store.isTrusted(options.projectRoot, request.fingerprint)) return trusted("trusted");
  const previous = await options.store.entry(options.projectRoot);
  if (previous)
    request.changes = hookTrustChanges(
      previous.hooks_file !== undefined
        ? {
            sha256: previous.sha256,
            hooksFile: previous.hooks_file,
            ...(previous.scripts ? { scripts: previous.scripts } : {}),
          }
        : { sha256: previous.sha256 },
      { fileSha256: request.sha256, scripts: request.scripts, file: request.file },
    );
  if (!options.ask) {
    const why = request.changes?.length ? ` (changed since you trusted them: ${request.changes.join("; ")})` : "";
    return skipped(
      "untrusted",
      `project hooks not loaded: not trusted${why} (review them in the editor, or pass --trust-project-hooks)`,
    );
  }
  const answer = await options.ask(request);
  if (answer === "allow_always") {
    await options.store.trust(options.projectRoot, request.fingerprint, {
      hooksFile: request.sha256,
      scripts: request.scripts,
    });
    return trusted("trusted");
  }
  if (answer === "allow_once") {
    options.sessionGrants?.add(grantKey);
    return trusted("trusted_once");
  }
  return skipped("rejected", `project hooks not loaded: rejected by the user`);
}

/** Markdown body for the trust dialog: every command with its event and matcher. */
export function formatHookTrustRequest(request: HookTrustRequest): string {
  const lines: string[] = [];
  if (request.changes?.length) lines.push(`Asked again because: ${request.changes.join("; ")}.`, "");
  lines.push(
    `${request.file} wants to run these commands on lifecycle events, with your privileges:`,
    "",
    ...request.commands.map((c) => {
      const matcher = c.matcher.trim() === "" || c.matcher.trim() === "*" ? "" : ` [${c.matcher}]`;
      return `- ${c.event}${matcher}: \`${c.hook.replace(/`/g, "'")}\``;
    }),
  );
  const scripts = Object.keys(request.scripts).sort();
  if (scripts.length > 0)
    lines.push(
      "",
      `Project files these commands run (any change asks again): ${scripts.map((s) => `\`${s}\``).join(", ")}`,
    );
  if (request.undetermined?.length)
    lines.push(
      "",
      `Which files they run cannot be determined (${request.undetermined.join("; ")}): the approval covers the commands as written, not what they load.`,
    );
  return lines.join("\n");
}

function toCommand(item: HookItem): HookTrustCommand {
  const command: HookTrustCommand = {
    event: item.event,
    matcher: item.matcher.source,
    hook: hookLabel(item.handler),
    path: item.path,
  };
  if (item.handler.command !== undefined) command.command = item.handler.command;
  if (item.handler.argv !== undefined) command.argv = [...item.handler.argv];
  return command;
}
