import { describeSshHealth, type SshHealth } from "../backends/ssh-backend.js";
import { openSshWorkspace } from "../backends/ssh-workspace.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import { selectRemote } from "../session/index.js";
import type { Diagnostic } from "../util/diagnostics.js";
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
  /** --trust-remote-host */
  trustRemoteHost: boolean;
};

export async function collectRemoteFacts(options: RemoteFactsOptions): Promise<DoctorRemoteFacts> {
  const diagnostics: Diagnostic[] = [];
  const mapped = Object.keys(options.config.remote.projects).length;
  let selection;
  try {
    selection = selectRemote(options.cwd, [options.cwd], options.flag ? { remote: options.flag } : {}, options.config);
  } catch (error) {
    diagnostics.push({ severity: "error", source: "remote", message: (error as Error).message });
    return { mappedProjects: mapped, diagnostics };
  }
  if (!selection) return { mappedProjects: mapped, diagnostics };
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
      url: selection.url,
      source: selection.source,
      ok: health.ok,
      summary: describeSshHealth(selection.url, health),
    },
    diagnostics,
  };
}
