import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Issue 35 item 2: every workspace kind (local, bwrap, SSH, container) is one object behind the place
// interface (src/session/workspace/place.ts), in its own folder, registered in place-kinds.ts. The
// code around it asks the place's members, never which kind it holds: a scan for the ways the old
// code branched on a kind (optional `remote` / `container` fields, `kind === "ssh"`, URL sniffing,
// `sandboxKind === "bwrap"`) finds none outside the kinds' own folders.

const SRC = resolve(__dirname, "../../../src");
const KIND_FOLDERS = ["local", "sandbox", "ssh", "container"].map((k) => `session/workspace/${k}/`);
// Where a session is chosen, built, asked and reported on: the session room, its slash commands, doctor.
const SCANNED = ["session", "commands", "cli/doctor"];
// doctor's sandbox section reports on bubblewrap the program (installed, working), asked for or not.
const EXEMPT = ["cli/doctor/doctor-system.ts"];

const KIND_CHECKS: Array<[string, RegExp]> = [
  ["a kind's optional field", /\b(?:workspace|selection|chosen|place|opened)\??\.(?:remote|container)\b/],
  ["a test for a missing kind field", /!\s*(?:remote|container)\b(?!\.)/],
  ["a kind compared by name", /\bkind\s*[!=]==?\s*["'](?:ssh|container|docker|devcontainer|local|bwrap|remote)["']/],
  ["a URL sniffed for its kind", /\bisContainerUrl\s*\(|\.startsWith\(\s*["'](?:ssh|docker):\/\//],
  ["the sandbox setting compared", /[!=]==?\s*["']bwrap["']/],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Each line of `text` that branches on a workspace kind, with what it does; comments are left out. */
function kindChecks(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
  return code.split("\n").flatMap((line) => KIND_CHECKS.filter(([, re]) => re.test(line)).map(([what]) => what));
}

describe("the session never asks which kind of place it holds", () => {
  it("the scan finds each way the old code branched on a kind", () => {
    // Lines of the code before the place interface (workspace.ts, workspace-slot.ts, changes-commands.ts,
    // prompt-turn.ts, remote-workspace.ts, doctor-remote.ts, doctor-render.ts).
    expect(
      kindChecks(`backend: createGuardedBackend(composite, rules.items, { localPaths: !remote && !container }),`),
    ).toEqual(["a test for a missing kind field"]);
    expect(kindChecks(`if (workspace.container) options.onContainer?.(workspace.container.url);`)).toEqual([
      "a kind's optional field",
    ]);
    expect(kindChecks(`blocks: workspace.remote || workspace.container ? remoteMentions(b) : blocks,`)).toEqual([
      "a kind's optional field",
    ]);
    expect(kindChecks(`: selection?.kind === "ssh" && selection.remote`)).toEqual([
      "a kind's optional field",
      "a kind compared by name",
    ]);
    expect(kindChecks(`if (chosen.kind === "container") {`)).toEqual(["a kind compared by name"]);
    expect(kindChecks(`isContainerUrl(url)`)).toEqual(["a URL sniffed for its kind"]);
    expect(kindChecks(`useEditorTerminals: sandboxKind !== "bwrap",`)).toEqual(["the sandbox setting compared"]);
    expect(kindChecks(`title: remote.workspace?.kind === "container" ? "Container workspace" : "x"`)).toEqual([
      "a kind compared by name",
    ]);
    // Comments may name kinds; config sections are not kinds.
    expect(kindChecks(`// a remote workspace: !remote\nconst t = config.remote.connect_timeout_seconds;`)).toEqual([]);
    expect(kindChecks(`if (!remote.workspace || remote.workspace.ok) lines.push(x);`)).toEqual([]);
  });

  it(`finds none in ${SCANNED.join(", ")} outside the kinds' folders`, () => {
    const found: string[] = [];
    for (const folder of SCANNED)
      for (const file of sourceFiles(join(SRC, folder))) {
        const own = relative(SRC, file);
        if (KIND_FOLDERS.some((dir) => own.startsWith(dir)) || EXEMPT.includes(own)) continue;
        for (const what of kindChecks(readFileSync(file, "utf8"))) found.push(`${own}: ${what}`);
      }
    expect(found).toEqual([]);
  });

  it("every kind is one folder with its place file, registered by one line", () => {
    const registry = readFileSync(join(SRC, "session/workspace/place-kinds.ts"), "utf8");
    for (const dir of KIND_FOLDERS) {
      const kind = dir.split("/")[2]!;
      expect(readdirSync(join(SRC, dir))).toContain(`${kind}-place.ts`);
      expect(registry).toContain(`from "./${kind}/${kind}-place.js"`);
    }
    expect(registry).toMatch(/const kinds: PlaceKind\[\] = \[sshPlace, containerPlace, sandboxPlace, localPlace\];/);
  });
});
