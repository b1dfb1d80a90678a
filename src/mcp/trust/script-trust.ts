import { commandFiles } from "../../util/command-scripts.js";
import { projectFileDigests, type FileDigests } from "../../util/file-digest.js";
import type { McpServerEntry } from "../config/types.js";

// What a project stdio server runs besides its definition: the project files its command line
// names (the script `node tools/server.mjs` runs, a binary `./bin/server`, scripts inside `sh -c`,
// found against the folder `cd` moves to; util/command-scripts.ts). An approval is bound to their
// bytes as well as to the definition, so a pull or an edit that swaps the script asks again. Where
// the files cannot be told from the command line (npx, `${VAR}` paths, inline code), the dialog
// says the approval covers the definition only.

export type ServerScripts = {
  /** Project-relative path -> digest of the files it runs. */
  digests: FileDigests;
  /** Why the files it runs cannot all be determined. */
  undetermined: string[];
};

/** The project files a stdio server's command runs (it starts in the project root). */
export async function serverScripts(entry: McpServerEntry, projectRoot: string): Promise<ServerScripts> {
  const definition = entry.definition;
  if (definition?.transport !== "stdio") return { digests: {}, undetermined: [] };
  const argv = [definition.command, ...definition.args];
  const found = commandFiles({ argv }, projectRoot);
  const undetermined = [...found.undetermined];
  if (argv.some((arg) => arg.includes("${"))) undetermined.push("a path in it is filled in from ${VAR} when it starts");
  return { digests: await projectFileDigests(found.candidates, projectRoot), undetermined };
}
