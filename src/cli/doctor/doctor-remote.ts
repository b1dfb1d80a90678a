import { describeSshHealth, type SshHealth } from "../../backends/ssh/ssh-backend.js";
import { openSshWorkspace } from "../../backends/ssh/ssh-workspace.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import { findProjectRoot } from "../../config/project-root.js";
import { selectWorkspace } from "../../session/index.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { DoctorRemoteFacts } from "./doctor-types.js";

// Whether a session here would work on a remote machine, and whether that machine answers: doctor
// connects (no dialog: an unknown host key is reported with what to do) and checks the workspace
// directory and the search tool, then disconnects.

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
  if (chosen.kind === "container") {
    const { checkContainerWorkspace } = await import("../../backends/container/container-check.js");
    const check = await checkContainerWorkspace(chosen.spec, findProjectRoot(options.cwd));
    if (!check.ok) diagnostics.push({ severity: "error", source: chosen.source, message: check.summary });
    return {
      mappedProjects: mapped,
      workspace: { kind: "container", url: chosen.url, source: chosen.source, ok: check.ok, summary: check.summary },
      diagnostics,
    };
  }
  const selection = chosen.remote;
  let health: SshHealth;
  try {
    const backend = await openSshWorkspace({
      spec: selection.spec,
      home: options.home,
      trustUnknownHost: options.trustRemoteHost,
      connectTimeoutSeconds: options.config.remote.connect_timeout_seconds,
    });
    health = await backend.health();
    await backend.close();
  } catch (error) {
    health = {
      target: selection.url,
      connected: false,
      reconnects: 0,
      channelsOpened: 0,
      ok: false,
      error: (error as Error).message,
    };
  }
  if (!health.ok)
    diagnostics.push({
      severity: "error",
      source: selection.source,
      message: describeSshHealth(selection.url, health),
    });
  return {
    mappedProjects: mapped,
    workspace: {
      kind: "ssh",
      url: selection.url,
      source: selection.source,
      ok: health.ok,
      summary: describeSshHealth(selection.url, health),
    },
    diagnostics,
  };
}
