// Decides whether a server may start. User, flag, editor and plugin servers are trusted like the
// user's own config; project servers (.deepagents/.mcp.json, .mcp.json) are untrusted until the
// human approves them. The "never" list beats everything, including --trust-project-mcp.

import { canonicalRoot } from "../../util/path-within.js";
import type { Logger } from "../../util/logger.js";
import { silentLogger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import type { McpEnvPolicy } from "../config/environment.js";
import { describeDigestChanges } from "../../util/file-digest.js";
import { serverScripts, type ServerScripts } from "./script-trust.js";
import type { McpTrustSnapshot, McpTrustStore } from "./trust-store.js";
import { boundFingerprint, describeTrustRequest, trustFingerprint, type McpTrustRequest } from "./trust-request.js";
import type { McpServerEntry } from "../config/types.js";
import { UNTRUSTED_SOURCES } from "../config/types.js";
import {
  createRemembered,
  rememberedKey,
  type Remembered,
  type RememberedStore,
} from "../../gate/memory/remembered.js";
import { mcpServerMemory } from "./trust-memory.js";

export type McpTrustDecision = "allow_once" | "allow_always" | "reject" | "never";

export type McpTrustState =
  /** Not a project server. */
  | "trusted"
  /** A saved approval matches this exact definition. */
  | "approved"
  /** Allowed for this session only. */
  | "approved-once"
  /** Allowed by --trust-project-mcp for this run. */
  | "flag"
  /** On the persisted "never" list. */
  | "denied"
  /** Rejected in this session. */
  | "rejected"
  /** Needs a decision; headless runs skip it. */
  | "pending";

export type McpTrustVerdict = { state: McpTrustState; allowed: boolean; reason: string };

/**
 * Shows the request to the human and returns the choice. Resolve `"cancelled"` when the dialog
 * was dismissed or `signal` aborted: the server stays off and is asked about again next time.
 */
export type McpTrustDecider = (
  request: McpTrustRequest,
  signal: AbortSignal,
) => Promise<McpTrustDecision | "cancelled">;

export interface McpTrustResolver {
  /** The verdict without asking anybody. */
  check(entry: McpServerEntry): Promise<McpTrustVerdict>;
  /** Like `check`, but a pending project server is put to `decide` (one dialog at a time). */
  resolve(entry: McpServerEntry, signal?: AbortSignal): Promise<McpTrustVerdict>;
  /** Applies a decision made elsewhere (the dialog, a slash command). */
  record(entry: McpServerEntry, decision: McpTrustDecision): Promise<McpTrustVerdict>;
  request(entry: McpServerEntry): Promise<McpTrustRequest>;
  readonly projectRoot: string;
  /**
   * This session's "allow for this session" answers as a backing of the one store of remembered
   * decisions (`mcp-session:<source>/<name>`); the resolver writes them through it and it is what
   * /permissions lists and revokes. Forgotten, the server is asked about again the next time it
   * starts (/reload).
   */
  readonly sessionBacking: RememberedStore;
}

export type McpTrustResolverOptions = {
  /** mcp_trust.json: read for what changed since an earlier approval and whether it could be read. */
  store: McpTrustStore;
  /**
   * The one store of remembered decisions (gate/memory/remembered.ts): "always" and "never" are
   * written and read through it, as `mcp-server:<name>` bound to the definition's fingerprint.
   * This session's answers stay in the resolver, which decides in the middle of a load. Default:
   * the one store over `store` alone (outside a session).
   */
  remembered?: Pick<Remembered, "remember" | "lookup">;
  /** Project root the approvals are bound to (findProjectRoot(cwd)); resolved through symlinks. */
  projectRoot: string;
  /** --trust-project-mcp for this run; never persisted and beaten by the "never" list. Default: false. */
  trustProjectServers?: boolean;
  /** The editor dialog; absent in headless runs, where pending servers are skipped. */
  decide?: McpTrustDecider;
  /** Where `${VAR}` values come from (names shown in the dialog). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** config.toml `[mcp] project_env`. Default: nothing beyond the base variables. */
  envPolicy?: McpEnvPolicy;
  /** Default: silent. */
  logger?: Logger;
};

export function createMcpTrustResolver(options: McpTrustResolverOptions): McpTrustResolver {
  const projectRoot = canonicalRoot(options.projectRoot);
  const remembered = options.remembered ?? mcpServerMemory(options.store, projectRoot);
  const logger = options.logger ?? silentLogger;
  // Session memory: `name\0fingerprint` of definitions allowed once or rejected in this session.
  const allowedOnce = new Set<string>();
  const rejected = new Set<string>();
  let dialogs: Promise<unknown> = Promise.resolve();
  const env = options.env ?? process.env;
  const policy = options.envPolicy ?? { projectEnv: [] };
  // What an approval is bound to: the definition and the allowlisted variables it reads, and the
  // bytes of the project files it runs (without any, the plain definition fingerprint).
  type Bound = { fingerprint: string; definition: string; scripts: ServerScripts };
  const boundOf = async (entry: McpServerEntry): Promise<Bound> => {
    const definition = trustFingerprint(entry, policy);
    const scripts = UNTRUSTED_SOURCES.has(entry.source)
      ? await serverScripts(entry, projectRoot)
      : { digests: {}, undetermined: [] };
    return { fingerprint: boundFingerprint(definition, scripts), definition, scripts };
  };
  // Keyed by source too: a definition allowed in one file says nothing about another file's.
  const key = (entry: McpServerEntry, bound: Bound) => `${entry.source}\0${entry.name}\0${bound.fingerprint}`;
  const sessionBacking = sessionAnswers(allowedOnce);
  const sessionMemory = createRemembered([sessionBacking]);
  const allowForSession = (entry: McpServerEntry, id: string) =>
    sessionMemory.remember(
      rememberedKey("mcp-session", `${entry.source}/${entry.name}`),
      "allow",
      "session",
      `project MCP server "${entry.name}" for this session`,
      { key: id },
    );

  async function verdictFrom(entry: McpServerEntry, snapshot: McpTrustSnapshot): Promise<McpTrustVerdict> {
    if (!UNTRUSTED_SOURCES.has(entry.source))
      return { state: "trusted", allowed: true, reason: `${entry.source} config` };
    const bound = await boundOf(entry);
    const mine = (row: { projectRoot: string; name: string }) =>
      row.projectRoot === projectRoot && row.name === entry.name;
    let kept: "allow" | "deny" | undefined;
    try {
      kept = await remembered.lookup(rememberedKey("mcp-server", entry.name), { fingerprint: bound.fingerprint });
    } catch (error) {
      // Unknown is not "never decided": a never-listed server must not pass on a session allowance or
      // --trust-project-mcp because its list could not be read. It waits for the human.
      const why = error instanceof Error ? error.message : String(error);
      return {
        state: "pending",
        allowed: false,
        reason: `trust store unreadable (${why}); project servers need approval`,
      };
    }
    if (kept === "deny") return { state: "denied", allowed: false, reason: "on the never-allow list" };
    if (rejected.has(key(entry, bound)))
      return { state: "rejected", allowed: false, reason: "rejected for this session" };
    const forSession = rememberedKey("mcp-session", `${entry.source}/${entry.name}`);
    if ((await sessionMemory.lookup(forSession, { key: key(entry, bound) })) === "allow")
      return { state: "approved-once", allowed: true, reason: "allowed for this session" };
    if (kept === "allow") return { state: "approved", allowed: true, reason: "approved" };
    if (snapshot.error) {
      return {
        state: "pending",
        allowed: false,
        reason: `trust store unreadable (${snapshot.error}); project servers need approval`,
      };
    }
    if (options.trustProjectServers) return { state: "flag", allowed: true, reason: "--trust-project-mcp" };
    const changed = snapshot.approvals.some(mine);
    return {
      state: "pending",
      allowed: false,
      reason: changed
        ? "definition or the files it runs changed since it was approved"
        : "project server not approved (approve it in the editor or pass --trust-project-mcp)",
    };
  }

  async function request(entry: McpServerEntry): Promise<McpTrustRequest> {
    const [snapshot, bound] = await Promise.all([options.store.load(), boundOf(entry)]);
    const earlier = snapshot.approvals.find(
      (row) => row.projectRoot === projectRoot && row.name === entry.name && row.fingerprint !== bound.fingerprint,
    );
    const changes: string[] = [];
    if (earlier?.definition && earlier.definition !== bound.definition) changes.push("the definition changed");
    if (earlier?.scripts) changes.push(...describeDigestChanges(earlier.scripts, bound.scripts.digests));
    return describeTrustRequest(entry, projectRoot, earlier !== undefined, {
      env,
      policy,
      scripts: bound.scripts,
      changes,
    });
  }

  async function record(entry: McpServerEntry, decision: McpTrustDecision): Promise<McpTrustVerdict> {
    const persist = async (write: () => Promise<void>) => {
      try {
        await write();
      } catch (error) {
        logger.warn(`could not save MCP trust decision for "${entry.name}"`, errorMessage(error));
      }
    };
    const bound = await boundOf(entry);
    const id = key(entry, bound);
    switch (decision) {
      case "allow_once":
        rejected.delete(id);
        await allowForSession(entry, id);
        break;
      case "allow_always":
        rejected.delete(id);
        // Also remembered for the session, so a store that cannot be written still lets it run now.
        await allowForSession(entry, id);
        // Definitions that run no project file are stored as before (the fingerprint dcode stores too).
        await persist(() =>
          remembered.remember(
            rememberedKey("mcp-server", entry.name),
            "allow",
            "project",
            `project MCP server "${entry.name}" (this definition)`,
            {
              fingerprint: bound.fingerprint,
              ...(Object.keys(bound.scripts.digests).length === 0
                ? {}
                : { definition: bound.definition, scripts: bound.scripts.digests }),
            },
          ),
        );
        break;
      case "reject":
        // Only this definition's allowance goes (the backing's own memory; a revoke forgets them all).
        allowedOnce.delete(id);
        rejected.add(id);
        break;
      case "never":
        allowedOnce.delete(id);
        rejected.add(id);
        await persist(() =>
          remembered.remember(
            rememberedKey("mcp-server", entry.name),
            "deny",
            "project",
            `project MCP server "${entry.name}" (never run it)`,
          ),
        );
        break;
    }
    return verdictFrom(entry, await options.store.load());
  }

  async function check(entry: McpServerEntry): Promise<McpTrustVerdict> {
    if (!UNTRUSTED_SOURCES.has(entry.source)) return verdictFrom(entry, { approvals: [], denied: [] });
    return verdictFrom(entry, await options.store.load());
  }

  async function resolveOne(entry: McpServerEntry, signal?: AbortSignal): Promise<McpTrustVerdict> {
    const first = await check(entry);
    if (first.state !== "pending" || !options.decide) return first;
    const decide = options.decide;
    const turn = dialogs.then(async () => {
      // Another dialog may have settled this server (same definition listed twice, or a reload).
      const again = await check(entry);
      if (again.state !== "pending") return again;
      if (signal?.aborted) return again;
      const choice = await decide(await request(entry), signal ?? new AbortController().signal).catch(
        (error: unknown) => {
          logger.warn(`MCP trust dialog for "${entry.name}" failed`, errorMessage(error));
          return "cancelled" as const;
        },
      );
      if (choice === "cancelled") return { ...again, reason: "approval dialog dismissed" };
      return record(entry, choice);
    });
    dialogs = turn.catch(() => undefined);
    return turn;
  }

  return { check, resolve: resolveOne, record, request, projectRoot, sessionBacking };
}

/** `allowed` (source\0name\0fingerprint of each definition allowed) as the `mcp-session` backing. */
function sessionAnswers(allowed: Set<string>): RememberedStore {
  const idOf = (key: string) => {
    const [source = "", name = ""] = key.split("\0");
    return { id: `${source}/${name}`, name };
  };
  const matching = (id: string) => [...allowed].filter((key) => idOf(key).id === id);
  return {
    kind: "mcp-session",
    scope: "session",
    list: async () =>
      [...new Map([...allowed].map((key) => [idOf(key).id, idOf(key).name])).entries()].map(([id, name]) => ({
        id,
        decision: "allow" as const,
        label: `project MCP server "${name}" for this session (asked again the next time it starts)`,
        scope: "session" as const,
      })),
    // Bound to the definition: the resolver's key (its fingerprint) of the one it asks about.
    read: async (id, binding) =>
      allowed.has(String(binding?.["key"])) && matching(id).length > 0 ? "allow" : undefined,
    write: async (_id, _decision, _label, binding) => void allowed.add(String(binding?.["key"])),
    async forget(id) {
      const found = matching(id);
      for (const key of found) allowed.delete(key);
      return found.length > 0;
    },
  };
}
