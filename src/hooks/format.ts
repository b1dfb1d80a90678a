import { formatDiagnostic } from "../util/diagnostics.js";
import type { HookEngineDescription } from "./engine.js";

/** Markdown for `/hooks`: handlers by event with their source, then what failed to load. */
export function formatHooksDescription(description: HookEngineDescription): string {
  const lines: string[] = [];
  if (description.events.length === 0) lines.push("No hooks loaded.");
  for (const { event, handlers } of description.events) {
    lines.push(`### ${event}`);
    for (const h of handlers) {
      const matcher = h.matcher.trim() === "" || h.matcher.trim() === "*" ? "" : ` matcher \`${h.matcher}\``;
      const origin = h.source.pluginId ? `plugin ${h.source.pluginId}` : h.source.scope;
      lines.push(`- \`${h.hook}\`${matcher} (${origin}: ${h.source.file}, timeout ${h.timeoutSec}s)`);
      for (const d of h.lastDiagnostics) lines.push(`  - last run: ${d.severity}: ${d.message}`);
    }
    lines.push("");
  }
  if (description.loadDiagnostics.length > 0) {
    lines.push("### Problems", ...description.loadDiagnostics.map((d) => `- ${formatDiagnostic(d)}`));
  }
  return lines.join("\n").trimEnd();
}
