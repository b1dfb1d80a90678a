import type { PendingSymlink } from "./types.js";

/** The trust dialog's title and body for a skill, or a whole skills folder, that links out of its owner. */
export function describePendingLink(link: PendingSymlink): { key: string; title: string; body: string } {
  if (link.kind === "folder") {
    return {
      key: `trust-skills-folder-${link.linkPath}`,
      title: `Use ${link.target} as a skills folder?`,
      body:
        `The skills folder \`${link.linkPath}\` is a link to \`${link.target}\`, outside the folder it belongs to. ` +
        `Skills found there become instructions the agent follows, and their folders become readable without asking. ` +
        `Allow it only if you trust every skill in \`${link.target}\`.`,
    };
  }
  return {
    key: `trust-skill-${link.skillName}`,
    title: `Load skill "${link.skillName}" from outside the skill folders?`,
    body: `The skill folder \`${link.linkPath}\` is a symlink to \`${link.target}\`, outside every skill directory. Skills are instructions the agent follows; load it only if you trust that folder.`,
  };
}
