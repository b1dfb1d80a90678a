import type { Diagnostic } from "../util/diagnostics.js";
import { takeLaunchChainWarning } from "../util/launch-chain.js";
import type { SessionEventSink } from "./services.js";

export type SessionNotice = { severity: "info" | "warning" | "error"; title: string; description?: string };

export type NoticeQueue = {
  /** Queues problems found while building the workspace. */
  addDiagnostics(diagnostics: readonly Diagnostic[]): void;
  /** Sends every queued notice to `sink` and forgets them. */
  flush(sink: SessionEventSink): void;
};

/** Problems found in the background (sandbox, config, loaders), shown at the start of the next turn. */
export function createNoticeQueue(): NoticeQueue {
  const pending: SessionNotice[] = [];
  return {
    addDiagnostics(diagnostics) {
      for (const d of diagnostics)
        pending.push({
          severity: d.severity === "info" ? "info" : d.severity,
          title: d.message,
          description: d.source,
        });
    },
    flush(sink) {
      // Once per process, at the first turn of its first session: the key in a launcher's environment.
      const launch = takeLaunchChainWarning();
      if (launch)
        sink({ type: "notice", severity: "warning", title: "Model key exposed by the launcher", description: launch });
      for (const notice of pending.splice(0)) sink({ type: "notice", ...notice });
    },
  };
}
