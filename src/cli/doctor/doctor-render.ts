import type { Diagnostic } from "../../util/diagnostics.js";
import type { DoctorFile, DoctorHookTrust, DoctorMcpServer, DoctorReport } from "./doctor-types.js";

// Text view of a DoctorReport: one block per area, one line per thing looked at, marked
// ✓ (loaded / works), ✗ (broken), – (not there, which is fine) or ! (works, but look at it).

type Mark = "✓" | "✗" | "–" | "!";
type Block = { title: string; lines: string[] };

export function renderDoctorReport(report: DoctorReport): string {
  const blocks: Block[] = [
    {
      title: `deep-acp ${report.version} doctor`,
      lines: [
        `  directory     ${report.cwd}${report.projectRoot === report.cwd ? "" : ` (project root ${report.projectRoot})`}`,
        `  home          ${report.home}`,
        `  agent         ${report.agent}`,
      ],
    },
    {
      title: "Node.js",
      lines: [mark(report.node.ok ? "✓" : "✗", `${report.node.version} (deep-acp needs ${report.node.required})`)],
    },
    modelBlock(report),
    {
      title: "Config",
      lines: [fileLine(report.config.file), ...diagnosticLines(report.config.diagnostics, [report.config.file])],
    },
    mcpBlock(report),
    hooksBlock(report),
    {
      title: "Memory (AGENTS.md, in load order)",
      lines: [
        ...report.memory.files.map((file) =>
          fileLine(file, `${file.scope}: `, file.bytes !== undefined ? `${file.bytes} bytes` : undefined),
        ),
        fileLine(
          report.memory.memoriesDir,
          "memories: ",
          report.memory.memoriesDir.entries !== undefined ? `${report.memory.memoriesDir.entries} entries` : undefined,
        ),
        ...diagnosticLines(report.memory.diagnostics, report.memory.files),
      ],
    },
    skillsBlock(report),
    {
      title: "Subagents",
      lines: [
        ...report.subagents.dirs.map((dir) => fileLine(dir, `${dir.scope}: `)),
        ...report.subagents.items.map((agent) =>
          mark(
            "✓",
            `${agent.name} (${agent.source}${agent.model ? `, ${agent.model}` : ""})${agent.path ? ` ${agent.path}` : ""}`,
          ),
        ),
        ...diagnosticLines(report.subagents.diagnostics, report.subagents.dirs),
      ],
    },
    pluginsBlock(report),
    sandboxBlock(report),
    remoteBlock(report),
  ];
  const text = blocks
    .map((block) => [block.title, ...(block.lines.length > 0 ? block.lines : ["  (nothing)"])].join("\n"))
    .join("\n\n");
  return `${text}\n\n${summary(report)}\n`;
}

function modelBlock(report: DoctorReport): Block {
  const model = report.model;
  const lines: string[] = [];
  if (model.ok) {
    lines.push(mark("✓", `${model.spec} (chosen by ${model.source})`));
    if (model.credential) lines.push(`      key: ${model.credential}`);
    if (model.endpoint) lines.push(`      endpoint: ${model.endpoint}`);
  } else {
    lines.push(mark("✗", model.error ?? "no usable model"));
  }
  const stored = model.credentialsFile;
  lines.push(
    fileLine(stored, "stored credentials: ", stored.providers.length > 0 ? stored.providers.join(", ") : undefined),
  );
  lines.push(`  environment: ${model.env.length > 0 ? model.env.join(", ") : "no model variables set"}`);
  const chosen = model.spec?.slice(0, model.spec.indexOf(":"));
  for (const provider of model.providers ?? []) {
    const touched = provider.set.length > 0 || provider.stored;
    const state =
      provider.name === chosen
        ? "chosen"
        : provider.usable
          ? "configured"
          : touched
            ? provider.explicit
              ? "by --model"
              : "partly set"
            : "not set";
    const set = provider.set.length > 0 ? `; set: ${provider.set.join(", ")}` : "";
    const files = provider.files ? `; files: ${provider.files.join(", ")}` : "";
    lines.push(
      `    ${provider.name.padEnd(17)} ${state.padEnd(10)} reads ${provider.reads.join(", ") || "nothing"}${provider.stored ? ", stored credentials" : ""}${set}${files}`,
    );
  }
  // The resolution error is already the first line.
  lines.push(
    ...diagnosticLines(
      model.diagnostics.filter((d) => d.source !== "model"),
      [stored],
    ),
  );
  return { title: "Model", lines };
}

function mcpBlock(report: DoctorReport): Block {
  const mcp = report.mcp;
  if (mcp.disabled)
    return { title: "MCP servers", lines: [mark("–", "disabled by --no-mcp"), ...diagnosticLines(mcp.diagnostics)] };
  const width = Math.max(...mcp.files.map((file) => file.level.length));
  const lines = mcp.files.map((file) =>
    fileLine(
      file,
      `${file.level.padEnd(width)}  `,
      file.state === "found" ? `${file.servers.length} server${file.servers.length === 1 ? "" : "s"}` : undefined,
    ),
  );
  lines.push(...mcp.servers.map(serverLine));
  // Server problems are already on the server lines.
  const serverNotes = new Set(
    mcp.servers.flatMap((server) =>
      [...server.errors, ...server.warnings].map((note) => `server "${server.name}": ${note}`),
    ),
  );
  lines.push(
    ...diagnosticLines(
      mcp.diagnostics.filter((d) => !serverNotes.has(d.message)),
      mcp.files,
    ),
  );
  return { title: "MCP servers", lines };
}

function serverLine(server: DoctorMcpServer): string {
  const head = `${server.name} [${server.source}, ${server.transport}]${server.target ? ` ${server.target}` : ""}`;
  const notes = [...server.errors, ...server.warnings];
  if (server.errors.length > 0) return mark("✗", `${head}: ${notes.join("; ")}`);
  if (server.disabled) return mark("–", `${head}: disabled in config.toml [mcp].disabled_servers`);
  if (server.trust && !server.trust.allowed) return mark("!", `${head}: ${server.trust.reason}`);
  const trust = server.trust ? ` (${server.trust.reason})` : "";
  return mark(
    server.warnings.length > 0 ? "!" : "✓",
    `${head}${trust}${server.warnings.length > 0 ? `: ${server.warnings.join("; ")}` : ""}`,
  );
}

const TRUST_TEXT: Record<DoctorHookTrust["status"], string> = {
  none: "no project hooks",
  trusted: "trusted (these exact contents)",
  flag: "trusted for this run by --trust-project-hooks",
  untrusted: "not trusted yet: the editor asks before they run",
  changed: "edited since you trusted them: the editor asks again",
};

function hooksBlock(report: DoctorReport): Block {
  const hooks = report.hooks;
  const lines = hooks.files.map((file) =>
    fileLine(
      file,
      `${file.scope}${file.pluginId ? ` ${file.pluginId}` : ""}: `,
      file.state !== "missing" ? `${file.handlers} handler${file.handlers === 1 ? "" : "s"}` : undefined,
    ),
  );
  const trust = hooks.projectTrust;
  if (trust.status !== "none") {
    lines.push(
      mark(
        trust.status === "trusted" || trust.status === "flag" ? "✓" : "!",
        `project hooks ${TRUST_TEXT[trust.status]}`,
      ),
    );
    lines.push(...trust.commands.map((command) => `      ${command}`));
  }
  lines.push(...diagnosticLines(hooks.diagnostics, hooks.files));
  return { title: "Hooks", lines };
}

function skillsBlock(report: DoctorReport): Block {
  const skills = report.skills;
  const lines = skills.dirs.map((dir) => fileLine(dir, `${dir.label}: `));
  lines.push(mark("✓", `built-in: ${skills.builtin.join(", ")}`));
  for (const skill of skills.skills)
    lines.push(
      mark(
        "✓",
        `${skill.name} (${skill.scope}) ${skill.path}${skill.overrides.length > 0 ? `, overrides ${skill.overrides.join(", ")}` : ""}`,
      ),
    );
  for (const pending of skills.pendingSymlinks)
    lines.push(mark("!", `${pending.skill}: ${pending.link} leads to ${pending.target}; approve it in the editor`));
  const pendingLinks = new Set(skills.pendingSymlinks.map((p) => p.link));
  lines.push(
    ...diagnosticLines(
      skills.diagnostics.filter((d) => !pendingLinks.has(d.source)),
      skills.dirs,
    ),
  );
  return { title: "Skills", lines };
}

function pluginsBlock(report: DoctorReport): Block {
  const plugins = report.plugins;
  const lines = [
    fileLine(plugins.dir, "", plugins.installed.length > 0 ? `installed: ${plugins.installed.join(", ")}` : undefined),
  ];
  for (const plugin of plugins.enabled) {
    const parts = `${plugin.skills} skill dir(s), ${plugin.mcpServers} MCP server(s), ${plugin.hookFiles} hooks file(s)`;
    lines.push(
      plugin.loaded
        ? mark("✓", `${plugin.id}${plugin.version ? ` ${plugin.version}` : ""}: ${parts}`)
        : mark("✗", `${plugin.id}: enabled but not loaded`),
    );
  }
  lines.push(...diagnosticLines(plugins.diagnostics, [plugins.dir]));
  return { title: "Plugins", lines };
}

function sandboxBlock(report: DoctorReport): Block {
  const sandbox = report.sandbox;
  const lines = [`  sandbox for shell commands: ${sandbox.kind} (${sandbox.kindSource})`];
  if (sandbox.bwrap.ok) lines.push(mark("✓", "bubblewrap works"));
  lines.push(...diagnosticLines(sandbox.diagnostics));
  return { title: "Sandbox", lines };
}

function remoteBlock(report: DoctorReport): Block {
  const remote = report.remote;
  const lines: string[] = [];
  if (remote.workspace)
    lines.push(mark(remote.workspace.ok ? "✓" : "✗", `${remote.workspace.summary} (from ${remote.workspace.source})`));
  else
    lines.push(
      `  local (${remote.mappedProjects} project${remote.mappedProjects === 1 ? "" : "s"} mapped in [remote.projects]; none covers this directory)`,
    );
  if (!remote.workspace || remote.workspace.ok) lines.push(...diagnosticLines(remote.diagnostics));
  return { title: remote.workspace?.title ?? "Remote workspace", lines };
}

function summary(report: DoctorReport): string {
  const warnings =
    report.warnings.length > 0 ? ` ${report.warnings.length} warning${report.warnings.length === 1 ? "" : "s"}.` : "";
  if (report.ok) return `✓ Nothing is broken.${warnings}`;
  const count = report.problems.length;
  const list = report.problems.map(
    (p) => `  ${p.section}: ${p.source === p.section ? "" : `${p.source}: `}${p.message}`,
  );
  return [`✗ ${count} problem${count === 1 ? "" : "s"}:${warnings}`, ...list].join("\n");
}

function fileLine(file: DoctorFile, prefix = "", note?: string): string {
  if (file.state === "missing") return mark("–", `${prefix}${file.path}: not found`);
  if (file.state === "invalid")
    return mark("✗", `${prefix}${file.path}: invalid${file.detail ? `: ${file.detail}` : ""}`);
  return mark("✓", `${prefix}${file.path}${note ? `: ${note}` : ""}${file.detail ? ` (${file.detail})` : ""}`);
}

/** Warnings and errors, except those an "invalid" line of `files` already shows as its reason. */
function diagnosticLines(diagnostics: readonly Diagnostic[], files: readonly DoctorFile[] = []): string[] {
  const shown = (d: Diagnostic) =>
    files.some((file) => file.state === "invalid" && file.path === d.source && file.detail?.includes(d.message));
  return diagnostics
    .filter((d) => d.severity !== "info" && !shown(d))
    .map((d) => `    ${d.severity === "error" ? "✗" : "!"} ${d.source}: ${d.message}`);
}

function mark(symbol: Mark, text: string): string {
  return `  ${symbol} ${text}`;
}
