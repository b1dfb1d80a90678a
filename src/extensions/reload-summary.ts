import type { Extensions } from "./load.js";

/** One line per kind of thing that changed, for the /reload reply. */
export function summarizeReload(before: Extensions, after: Extensions): string {
  const lines: string[] = [];
  const diff = (label: string, a: readonly string[], b: readonly string[]) => {
    const added = b.filter((x) => !a.includes(x));
    const removed = a.filter((x) => !b.includes(x));
    if (added.length || removed.length)
      lines.push(`- ${label}: ${[...added.map((x) => `+${x}`), ...removed.map((x) => `-${x}`)].join(", ")}`);
  };
  diff(
    "Skills",
    before.skills.items.map((s) => s.name),
    after.skills.items.map((s) => s.name),
  );
  diff(
    "Subagents",
    before.subagents.map((s) => s.name),
    after.subagents.map((s) => s.name),
  );
  diff(
    "Plugins",
    before.plugins.map((p) => p.id),
    after.plugins.map((p) => p.id),
  );
  diff(
    "MCP servers",
    before.mcpEntries.map((e) => e.name),
    after.mcpEntries.map((e) => e.name),
  );
  const memoryBefore = before.memory.items.map((m) => `${m.path}\0${m.content}`);
  const memoryAfter = after.memory.items.map((m) => `${m.path}\0${m.content}`);
  if (memoryBefore.join("\n") !== memoryAfter.join("\n"))
    lines.push(`- Memory: reloaded (${after.memory.items.length} file(s))`);
  const hookCount = (e: Extensions) => e.hooks.describe().events.reduce((n, ev) => n + ev.handlers.length, 0);
  lines.push(`- Hooks: ${hookCount(after)} handler(s) loaded`);
  const problems = after.diagnostics.filter((d) => d.severity === "error" || d.severity === "warning");
  if (problems.length) lines.push(`- Problems: ${problems.map((d) => `${d.source}: ${d.message}`).join("; ")}`);
  return `**Reloaded** skills, memory, subagents, plugins, hooks and MCP servers.\n\n${lines.join("\n")}`;
}
