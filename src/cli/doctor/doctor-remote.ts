import type { DeepAcpConfig } from "../../config/config-file.js";
import { selectWorkspace } from "../../session/index.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { DoctorRemoteFacts } from "./doctor-types.js";

// Whether a session here would work elsewhere (an SSH host, a container), and whether that place
// answers: the place's kind checks it without a session (place.ts: check). SSH connects (no dialog: an
// unknown host key is reported with what to do), checks the directory and the search tool, and disconnects.

export type RemoteFactsOptions = {
  cwd: string;
  home: string;
  config: DeepAcpConfig;
  /** --remote */
  flag?: string;
  /** --workspace */
  workspaceFlag?: string;
  /** --trust-remote-host */
  trustRemoteHost: boolean;
};

export async function collectRemoteFacts(options: RemoteFactsOptions): Promise<DoctorRemoteFacts> {
  const diagnostics: Diagnostic[] = [];
  const mapped = Object.keys(options.config.remote.projects).length;
  let chosen;
  try {
    const flags = {
      ...(options.flag ? { remote: options.flag } : {}),
      ...(options.workspaceFlag ? { workspace: options.workspaceFlag } : {}),
    };
    chosen = selectWorkspace(options.cwd, [options.cwd], flags, options.config);
  } catch (error) {
    diagnostics.push({ severity: "error", source: "workspace", message: (error as Error).message });
    return { mappedProjects: mapped, diagnostics };
  }
  if (!chosen) return { mappedProjects: mapped, diagnostics };
  // Each kind checks its own place (place.ts): an SSH host is connected to, a container's engine and image looked at.
  const check = await chosen.check?.({
    cwd: options.cwd,
    home: options.home,
    config: options.config,
    trustRemoteHost: options.trustRemoteHost,
  });
  if (!check) return { mappedProjects: mapped, diagnostics };
  if (!check.ok) diagnostics.push({ severity: "error", source: chosen.source, message: check.summary });
  return {
    mappedProjects: mapped,
    workspace: {
      kind: chosen.kind,
      title: check.title,
      url: chosen.url,
      source: chosen.source,
      ok: check.ok,
      summary: check.summary,
    },
    diagnostics,
  };
}
