import { homedir } from "node:os";
import { join } from "node:path";

/** Every user-level location of ../shared/DESIGN.md §1. `home` defaults to os.homedir(), so HOME=/tmp/x isolates all. */
export type UserPaths = {
  home: string;
  /** ~/.deepagents */
  root: string;
  /** ~/.deepagents/<agent> */
  agentDir: string;
  configFile: string;
  mcpFile: string;
  hooksFile: string;
  agentMemoryFile: string;
  memoriesDir: string;
  skillsDirs: string[];
  subagentsDir: string;
  pluginsDir: string;
  storeDir: string;
  /** ~/.deepagents/.state (0700; approvals, trust, tokens, credentials) */
  stateDir: string;
  /** API keys stored by `deep-acp login` (0600). */
  credentialsFile: string;
  sessionsDir: string;
  /** Plans of `plan`-mode turns, one Markdown file per session. */
  plansDir: string;
};

export function userPaths(agent = "agent", home = homedir()): UserPaths {
  const root = join(home, ".deepagents");
  const agentDir = join(root, agent);
  return {
    home,
    root,
    agentDir,
    configFile: join(root, "config.toml"),
    mcpFile: join(root, ".mcp.json"),
    hooksFile: join(root, "hooks.json"),
    agentMemoryFile: join(agentDir, "AGENTS.md"),
    memoriesDir: join(agentDir, "memories"),
    skillsDirs: [join(agentDir, "skills"), join(home, ".agents", "skills")],
    subagentsDir: join(agentDir, "agents"),
    pluginsDir: join(root, "plugins"),
    storeDir: join(agentDir, "store"),
    stateDir: join(root, ".state"),
    credentialsFile: join(root, ".state", "credentials.json"),
    sessionsDir: join(root, "sessions"),
    plansDir: join(root, "plans"),
  };
}

/** Project-level locations under `<root>`, lowest priority first where there are several. */
export type ProjectPaths = {
  root: string;
  mcpFiles: string[];
  hooksFile: string;
  memoryFiles: string[];
  skillsDirs: string[];
  subagentsDir: string;
};

export function projectPaths(root: string): ProjectPaths {
  return {
    root,
    mcpFiles: [join(root, ".deepagents", ".mcp.json"), join(root, ".mcp.json")],
    hooksFile: join(root, ".deepagents", "hooks.json"),
    memoryFiles: [join(root, ".deepagents", "AGENTS.md"), join(root, "AGENTS.md")],
    skillsDirs: [join(root, ".deepagents", "skills"), join(root, ".agents", "skills")],
    subagentsDir: join(root, ".deepagents", "agents"),
  };
}
