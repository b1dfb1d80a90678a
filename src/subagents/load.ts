import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseFrontmatter } from "../skills/frontmatter.js";
import type { ProjectFileCheck } from "../util/project-file-check.js";
import type { Diagnostic, Loaded } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { GENERAL_PURPOSE_SUBAGENT } from "./general-purpose.js";
import type { SubagentDefinition } from "./types.js";

const MAX_SUBAGENT_FILE_BYTES = 1024 * 1024;

export type LoadSubagentsOptions = {
  /** The gate's verdict on each project file (gate/project-file.ts `projectFileRefusal`). */
  refuseProjectFile: ProjectFileCheck;
  /** ~/.deepagents/<agent>/agents; omit to skip. */
  userDir?: string;
  /** <root>/.deepagents/agents; omit to skip. */
  projectDir?: string;
  /** Project files must resolve inside it. Default: the grandparent of projectDir. */
  projectRoot?: string;
  /**
   * The user's `[agents.NAME]` (config.toml): each is a subagent type of its own, and the only names
   * a file's `agent:` may give. A project file cannot add an agent (a command to run), only pick one.
   */
  agents?: Readonly<Record<string, { description?: string | undefined }>>;
};

/**
 * The built-in general-purpose subagent plus `<dir>/<name>/AGENTS.md` definitions; project
 * definitions replace user ones of the same name, and either may replace general-purpose.
 * Invalid files become diagnostics.
 */
export async function loadSubagents(options: LoadSubagentsOptions): Promise<Loaded<SubagentDefinition[]>> {
  const diagnostics: Diagnostic[] = [];
  const byName = new Map<string, SubagentDefinition>([[GENERAL_PURPOSE_SUBAGENT.name, GENERAL_PURPOSE_SUBAGENT]]);
  const agents = options.agents ?? {};
  for (const [name, agent] of Object.entries(agents))
    byName.set(name, {
      name,
      description: agent.description ?? `The ${name} agent (another ACP agent, with its own model and tools)`,
      systemPrompt: "",
      source: "user",
      agent: name,
    });
  if (options.userDir) {
    for (const agent of await loadDir(options.userDir, "user", undefined, diagnostics))
      if (knownAgent(agent, agents, diagnostics)) byName.set(agent.name, agent);
  }
  if (options.projectDir) {
    const root = options.projectRoot ?? dirname(dirname(options.projectDir));
    const realRoot = await realpath(root).catch(() => root);
    for (const agent of await loadDir(
      options.projectDir,
      "project",
      { root: realRoot, refuse: options.refuseProjectFile },
      diagnostics,
    ))
      if (knownAgent(agent, agents, diagnostics)) byName.set(agent.name, agent);
  }
  return { items: [...byName.values()], diagnostics };
}

/** A file's `agent:` must name one of the user's `[agents.NAME]`; otherwise the file is skipped. */
function knownAgent(
  definition: SubagentDefinition,
  agents: Readonly<Record<string, unknown>>,
  diagnostics: Diagnostic[],
): boolean {
  if (definition.agent === undefined || Object.hasOwn(agents, definition.agent)) return true;
  diagnostics.push({
    severity: "error",
    source: definition.path ?? definition.name,
    message: `subagent skipped: agent '${definition.agent}' is not one of your [agents.NAME] in config.toml${Object.keys(agents).length ? ` (${Object.keys(agents).join(", ")})` : ""}`,
  });
  return false;
}

/** A project's real root and the gate's verdict on files read from it; user files have none. */
type Containment = { root: string; refuse: ProjectFileCheck };

async function loadDir(
  dir: string,
  source: "user" | "project",
  containRoot: Containment | undefined,
  diagnostics: Diagnostic[],
): Promise<SubagentDefinition[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT")
      diagnostics.push({ severity: "warning", source: dir, message: `cannot list subagents: ${errorMessage(error)}` });
    return [];
  }
  const found = new Map<string, SubagentDefinition>();
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const entryPath = join(dir, entry.name);
    const isDir =
      entry.isDirectory() ||
      (entry.isSymbolicLink() &&
        (await stat(entryPath).then(
          (s) => s.isDirectory(),
          () => false,
        )));
    if (!isDir) {
      if (entry.name.toLowerCase().endsWith(".md")) {
        diagnostics.push({
          severity: "warning",
          source: entryPath,
          message: `ignored: subagents are defined as ${join(dir, "<name>", "AGENTS.md")}, not as files directly in ${dir}`,
        });
      }
      continue;
    }
    const file = join(entryPath, "AGENTS.md");
    const text = await readDefinition(file, entryPath, containRoot, diagnostics);
    if (text === undefined) continue;
    const agent = parseSubagent(text, file, entry.name, source, diagnostics);
    if (!agent) continue;
    const previous = found.get(agent.name);
    if (previous) {
      diagnostics.push({
        severity: "warning",
        source: file,
        message: `subagent name '${agent.name}' is also used by ${previous.path}; using ${file}`,
      });
    }
    found.set(agent.name, agent);
  }
  return [...found.values()];
}

async function readDefinition(
  file: string,
  folder: string,
  containRoot: Containment | undefined,
  diagnostics: Diagnostic[],
): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    const strays = (await readdir(folder).catch(() => [] as string[])).filter((name) =>
      name.toLowerCase().endsWith(".md"),
    );
    if (strays.length > 0) {
      diagnostics.push({
        severity: "warning",
        source: folder,
        message: `ignored: expected AGENTS.md but found ${strays.sort().join(", ")}; rename the definition to AGENTS.md`,
      });
    }
    return undefined;
  }
  try {
    const info = await stat(real);
    const refusal =
      containRoot === undefined
        ? undefined
        : containRoot.refuse({ real, projectRoot: containRoot.root, hardLinks: info.isFile() ? info.nlink : 1 });
    if (refusal) {
      diagnostics.push({ severity: "warning", source: file, message: refusal });
      return undefined;
    }
    if (info.size > MAX_SUBAGENT_FILE_BYTES) {
      diagnostics.push({
        severity: "error",
        source: file,
        message: `subagent skipped: larger than 1 MiB (${info.size} bytes)`,
      });
      return undefined;
    }
    return await readFile(real, "utf8");
  } catch (error) {
    diagnostics.push({
      severity: "error",
      source: file,
      message: `subagent skipped: cannot read: ${errorMessage(error)}`,
    });
    return undefined;
  }
}

/** Validates one AGENTS.md; `folderName` is the name when frontmatter omits `name`. */
export function parseSubagent(
  text: string,
  file: string,
  folderName: string,
  source: "user" | "project",
  diagnostics: Diagnostic[],
): SubagentDefinition | undefined {
  const parsed = parseFrontmatter(text, { lenient: true });
  if (!parsed.ok) {
    diagnostics.push({
      severity: "error",
      source: file,
      message: `subagent skipped: ${parsed.error}; it needs at least a description`,
    });
    return undefined;
  }
  const data = parsed.data;
  const problems: string[] = [];
  // An explicit but empty name is a typo to surface, not a reason to fall back to the folder name.
  const name = "name" in data ? nonEmptyString(data.name) : folderName;
  if (name === undefined) problems.push("name (non-empty string required when present)");
  const description = nonEmptyString(data.description);
  if (description === undefined) problems.push("description (non-empty string required)");
  const rawAgent = data.agent;
  if (rawAgent !== undefined && nonEmptyString(rawAgent) === undefined) problems.push("agent (a name from [agents])");
  const rawModel = data.model;
  const modelValid = rawModel === undefined || rawModel === null || typeof rawModel === "string";
  if (!modelValid) problems.push("model (a 'provider:model' string)");
  if (problems.length > 0 || name === undefined || description === undefined) {
    diagnostics.push({
      severity: "error",
      source: file,
      message: `subagent skipped: invalid or missing ${problems.join(", ")}`,
    });
    return undefined;
  }
  const agent: SubagentDefinition = { name, description, systemPrompt: parsed.body.trim(), source, path: file };
  const model = typeof rawModel === "string" ? rawModel.trim() : "";
  if (model) {
    if (!/^[^:\s]+:\S+$/.test(model)) {
      diagnostics.push({
        severity: "warning",
        source: file,
        message: `model '${model}' is not in 'provider:model' form; it may fail when the subagent runs`,
      });
    }
    agent.model = model;
  }
  const agentName = nonEmptyString(rawAgent);
  if (agentName) agent.agent = agentName;
  for (const key of Object.keys(data)) {
    if (!["name", "description", "model", "agent"].includes(key)) {
      diagnostics.push({
        severity: "info",
        source: file,
        message: `frontmatter key '${key}' is not supported for subagents; ignored (subagents get the main agent's tools)`,
      });
    }
  }
  return agent;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
