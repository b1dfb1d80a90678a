import { findTrustedExecutable } from "../surfaces/git-probe.js";

// Which program an `[agents.NAME] command` starts. The user's config names it; the repository must not
// supply it. A bare name is found on PATH but never in the project's own folders (node_modules/.bin,
// "." or a link into the project), as the git the gate asks is; a path is the user's own choice.

/** The program to start, or undefined when PATH leads only into the project. */
export function peerProgram(
  command: string,
  pathVariable: string | undefined,
  projectRoot: string,
): string | undefined {
  return command.includes("/") ? command : findTrustedExecutable(command, pathVariable, [projectRoot]);
}
