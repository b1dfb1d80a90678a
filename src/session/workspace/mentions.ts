import { posix } from "node:path";
import type { PromptBlock } from "../../tools/types.js";
import { relativeWithin } from "../../util/path-within.js";

/**
 * File mentions arrive as local paths (the editor resolves them against its local project); in a
 * session whose place is elsewhere those under the local cwd name the same file under the place's cwd.
 */
export function remoteMentions(blocks: readonly PromptBlock[], localCwd: string, remoteCwd: string): PromptBlock[] {
  return blocks.map((block) => {
    if (block.type !== "file") return block;
    const rel = relativeWithin(localCwd, block.path);
    return rel === undefined ? block : { ...block, path: rel === "" ? remoteCwd : posix.join(remoteCwd, rel) };
  });
}
