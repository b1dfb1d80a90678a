import { nodeRealPathFs, resolveRealTarget } from "../../backends/paths/real-path.js";
import type { GatePolicy } from "../call/gate.js";
import { checkToolPath } from "../rules/file-rules.js";

// Another ACP agent that edits with its own tools (claude-agent-acp, codex-acp: they never send
// fs/write_text_file) still asks before a change in its ask modes; that question is the one moment
// our file rules can refuse the change. Each path it names is judged as our write_file would be, on
// the path as named and on its real path (a link into a denied folder is denied), before anyone is
// asked. Hard links, hooks and protected paths are not judged here: the question still goes to the
// user, who sees the paths.

/** Why the user's file rules refuse writing one of `paths` (workspace paths), or undefined. */
export async function peerChangeRefusal(
  policy: GatePolicy | undefined,
  paths: readonly string[],
): Promise<string | undefined> {
  const rules = policy?.rules;
  if (!rules || rules.rules.length === 0) return undefined;
  for (const path of paths) {
    const target = await resolveRealTarget(path, policy.fs ?? nodeRealPathFs);
    for (const named of new Set([target.requested, target.real])) {
      const checked = checkToolPath(rules, "write", named);
      if (!checked.ok) return checked.error;
    }
  }
  return undefined;
}
