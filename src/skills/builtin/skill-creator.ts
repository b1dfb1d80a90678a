import type { ResolvedBuiltinSkillContext } from "./context.js";

// One long function on purpose (over the 80-line mark): it is the skill's SKILL.md as one Markdown
// document, with only the two user skill folders filled in. Split into pieces it would no longer
// read as the file the model is shown.
export function skillCreatorSkillText(ctx: ResolvedBuiltinSkillContext): string {
  return `---
name: skill-creator
description: How to write a good Agent Skill (SKILL.md with YAML frontmatter, optional scripts and references) and where to put it so it is discovered. Use when the user asks to create, scaffold, improve, validate or explain a skill.
license: MIT
---

# Skill Creator

A skill is a folder with a \`SKILL.md\` file. Only its \`name\` and \`description\` are shown to the agent
up front; the body is read when a task matches. So the description decides *whether* a skill is used,
and the body decides *how well*.

## Where skills live

Lowest to highest priority; a skill in a higher directory replaces a same-named one below it whole:

| # | directory | scope |
| --- | --- | --- |
| 1 | built-in (shipped with deep-acp) | everyone |
| 2 | enabled plugins (named \`plugin@marketplace:<skill>\`) | everyone |
| 3 | \`${ctx.userSkillsDir}/\` | you, every project (default for \`deep-acp skills create\`) |
| 4 | \`${ctx.sharedUserSkillsDir}/\` | you, shared with other agent tools |
| 5 | \`<project root>/.deepagents/skills/\` | this project (\`deep-acp skills create <name> --project\`) |
| 6 | \`<project root>/.agents/skills/\` | this project, shared with other agent tools |

Each skill is \`<directory>/<name>/SKILL.md\`. Put it in the project when it depends on this repository
(it is then part of the code review like any other file); otherwise at user level.

A symlinked skill must resolve inside one of these directories. A link pointing elsewhere is refused
until the user approves its target in the editor or lists it in \`[skills].extra_allowed_dirs\` of
\`~/.deepagents/config.toml\`.

## SKILL.md format

\`\`\`markdown
---
name: pdf-forms
description: Fill in and flatten PDF forms with pypdf. Use when the user asks to fill, complete or flatten a PDF form, or to extract its field names.
license: MIT                     # optional
compatibility: Python 3.10+      # optional, at most 500 characters
allowed-tools: read_file execute # optional, informational
metadata:                        # optional string map
  owner: docs-team
---

# PDF forms

1. List the form fields: \`python scripts/fields.py <file>\`.
2. ...
\`\`\`

Frontmatter rules:
- \`name\` (required): 1-64 characters, lowercase letters, digits and single hyphens, no leading or
  trailing hyphen, **equal to the folder name**.
- \`description\` (required, at most 1024 characters): say what the skill does *and* when to use it,
  with the words a user would actually say. Vague descriptions ("helps with documents") never trigger.
- The file must start with \`---\`; the closing \`---\` must be followed by a newline. Quote values that
  contain \`: \` or start with a special character.
- A skill whose frontmatter lacks \`name\` or \`description\`, or is not valid YAML, is skipped and the
  problem is reported by \`deep-acp skills list\` and \`deep-acp doctor\`.

## Writing the body

- **Be brief.** The agent is already capable; write only what it would not know: the exact commands,
  file locations, conventions, pitfalls and the order of steps. Aim for well under 500 lines.
- **Imperative steps.** "Run the tests with \`npm test -- --run\`", not "you might want to test".
- **Say when to stop or ask.** State what done looks like and which decisions need the user.
- **Include the pitfalls** you already hit; they are often the most valuable lines.
- **Progressive disclosure.** Move long reference material into \`references/*.md\` and say in the body
  when to read each file. Put deterministic, repeatedly needed code into \`scripts/\` and tell the agent
  how to run it. Templates and other output material go in \`assets/\`.
- Refer to bundled files by path relative to the skill folder; the agent resolves them against the
  SKILL.md location shown in its prompt.
- No README, changelog or installation notes inside the skill: everything in it should help do the task.

## Creating one

1. Check the existing skills (\`/skills\` or \`deep-acp skills list\`) so you do not duplicate one.
2. Choose the name (folder name = \`name\`) and the directory from the table above.
3. Write \`<directory>/<name>/SKILL.md\` with \`write_file\` (the user approves the write), plus any
   \`scripts/\` or \`references/\` files. \`deep-acp skills create <name> [--project]\` scaffolds a valid
   template from the command line.
4. Tell the user to run \`/reload\` so the session discovers it, then try it with \`/skill:<name> <request>\`.

## Improving one

Read the current SKILL.md fully, keep its name, tighten the description if it triggers too often or
too rarely, and fix the steps that went wrong in practice. Edit with \`edit_file\` so the change is
reviewed.
`;
}
