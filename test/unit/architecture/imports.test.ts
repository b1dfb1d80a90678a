import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// DESIGN.md §2: imports point one way,
// cli -> acp -> commands -> session -> turn -> transcript -> extensions -> agent -> tools/model -> backends/...
// A folder may import folders of a strictly higher rank (and itself). Equal ranks are siblings
// that must not know each other.
const RANK: Record<string, number> = {
  cli: 0,
  acp: 1,
  commands: 2,
  session: 3,
  turn: 4,
  transcript: 5,
  extensions: 6,
  // Other ACP agents run as subagents: below the turn that launches them, above the agent loop,
  // gate and tools they are served through. They know nothing of acp/ (its errors are injected).
  peers: 6.5,
  watch: 7,
  agent: 7,
  interpreter: 8,
  mcp: 8,
  gate: 8.5,
  tools: 9,
  model: 10,
  subagents: 10,
  hooks: 10,
  memory: 10,
  plugins: 10,
  skills: 11,
  backends: 11,
  web: 11,
  config: 12,
  util: 13,
};

const SRC = resolve(__dirname, "../../../src");

// The rooms of the core: other folders reach them only through their public entry (index.ts), or
// errors.ts for the typed errors acp/ maps (importing those does not load the room).
const ROOMS = ["commands", "session", "turn", "transcript", "extensions"];
const PUBLIC_ENTRIES = ["index.ts", "errors.ts"];
// Light entries: loaded before the room itself (acp/ answers initialize and the first session/new
// before it loads the session layer), so they import nothing of the room at run time but types.
const LIGHT_ENTRIES: Record<string, string[]> = { session: ["registry.ts", "new-session-check.ts"] };

// Sub-folders that are listed but not ranked: acp/'s handlers and dialogs call each other, so only
// the list and the file cap hold there.
const SUBFOLDERS: Record<string, string[]> = {
  // wire: stdio framing and JSON-RPC lines; early: initialize and the first session/new before the
  // SDK loads; dialogs: what asks the editor (permission, questions, trust, fs/terminals); v2: ACP v2
  // over the v1 app (and the v2 methods it forwards to the v1 handlers); quota: the providers' limits
  // in the shapes editors read; handlers: the methods the v1 app answers (auth, prompt, providers, the
  // session lifecycle and standing, steering); updates: session events as ACP updates and the coalescing
  // stream that sends them. The server, the per-connection state, capabilities, config options, prompt
  // content and the error map stay at the top.
  acp: ["dialogs", "early", "handlers", "quota", "updates", "v2", "wire"],
  // workspace: where a session's files and commands live (local, ssh, container) and /changes, /apply.
  session: ["workspace"],
  // The tools by what they touch: files (read, write, edit, delete, ls, glob, grep and their paths),
  // shell (execute and the background processes), user (ask_user, write_todos), web (web_fetch). The
  // registry, defineTool, the types and the shared input and output helpers stay at the top.
  tools: ["files", "shell", "user", "web"],
};

// Sub-folders of the unranked folders above that stay apart: besides their own sub-folder they import
// only the listed ones of the same folder ("." is the files directly in it). A tool room knows the
// tool framework, never another tool room; the updates know nothing of the handlers or the state.
const SUB_IMPORTS: Record<string, string[]> = {
  "tools/files": ["."],
  "tools/shell": ["."],
  "tools/user": ["."],
  "tools/web": ["."],
  "acp/updates": ["quota"],
};

// Sub-folders of a folder ("." is the files directly in it), ranked like the folders above: a file
// may import its own sub-folder or one of a strictly higher rank in the same folder. Equal ranks are
// siblings that must not know each other. Every sub-folder is listed here.
const SUB_RANK: Record<string, Record<string, number>> = {
  // routes and the backends built on the local one, then SSH, then the shared parts, then the protocol.
  backends: {
    routes: 0,
    container: 0,
    sandbox: 0,
    editor: 0,
    state: 0,
    ssh: 1,
    local: 1,
    processes: 2,
    search: 3,
    paths: 4,
    files: 5,
    ".": 6,
  },
  // choosing and building a client, the providers, what the catalog knows and the HTTP wire, the vocabulary.
  model: { client: 0, providers: 1, catalog: 2, wire: 2, ".": 3 },
  // the entry, sign-in and commands; running servers; trust and OAuth state; the servers' configuration.
  mcp: { ".": 0, servers: 1, trust: 2, oauth: 2, config: 3 },
  // main, serve and -n; doctor and the subcommands; the composition root; argv and the version.
  cli: { ".": 0, doctor: 1, subcommands: 1, services: 2, args: 3 },
  // the eval tool and its session; tool calls from the sandbox and the worker; QuickJS itself.
  interpreter: { ".": 0, calls: 1, worker: 1, quickjs: 2 },
  transcript: { ".": 0, store: 1 },
  turn: { ".": 0, compaction: 1 },
  skills: { ".": 0, builtin: 1 },
  // The gate's rooms by job (no file directly in gate/): seams, one decision for another room (a mention, a
  // restore, a project file, a subagent's model, an asker through the door); call, the whole procedure for one
  // tool call (verdict, hooks, dialog, memory); door, the session's one door to the human (the lock, trust
  // questions, the Approver port); memory, remembered "always" answers; rules, the user's file rules;
  // decide, the pure decision, modes and what a mode offers; commands, what a command runs; surfaces, what
  // decides what runs on the host.
  gate: { seams: 0, call: 1, door: 1.5, memory: 2, rules: 2, decide: 3, commands: 4, surfaces: 5 },
};

// No folder holds more than this many files side by side (sub-folders count as one).
const MAX_FILES_SIDE_BY_SIDE = 20;

// Folder-internal leaves: what they may import besides their own folder.
const LEAVES: Record<string, string[]> = {
  "transcript/store": ["util"],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports of a file, resolved to .ts paths (both static and dynamic import()). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.[^"']+)["']/g)].map((m) => m[1]!);
  return specifiers.map((s) => resolve(dirname(file), s).replace(/\.js$/, ".ts"));
}

const folderOf = (file: string) => relative(SRC, file).split("/")[0]!;
/** The sub-folder of a file inside its folder: "." for a file directly in the folder. */
const subFolderOf = (file: string) => {
  const parts = relative(SRC, file).split("/");
  return parts.length > 2 ? parts[1]! : ".";
};

describe("architecture", () => {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it("puts every source folder in the layering table", () => {
    const folders = new Set(files.map(folderOf));
    expect([...folders].filter((f) => !(f in RANK) && !f.endsWith(".ts"))).toEqual([]);
  });

  it("only imports downward between folders", () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const from = folderOf(file);
      for (const target of imports) {
        if (!target.startsWith(SRC)) continue;
        const to = folderOf(target);
        if (to === from) continue;
        if (!(RANK[to]! > RANK[from]!)) violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("lists every sub-folder in the sub-folder table", () => {
    const subFolders = new Set(
      files.filter((f) => subFolderOf(f) !== ".").map((f) => `${folderOf(f)}/${subFolderOf(f)}`),
    );
    const unlisted = [...subFolders].filter((dir) => {
      const [folder, sub] = dir.split("/");
      return SUB_RANK[folder!]?.[sub!] === undefined && !SUBFOLDERS[folder!]?.includes(sub!);
    });
    expect(unlisted).toEqual([]);
  });

  it("keeps the listed sub-folders apart from the rest of their folder", () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const folder = folderOf(file);
      const allowed = SUB_IMPORTS[`${folder}/${subFolderOf(file)}`];
      if (!allowed) continue;
      for (const target of imports) {
        if (!target.startsWith(SRC) || folderOf(target) !== folder) continue;
        const to = subFolderOf(target);
        if (to !== subFolderOf(file) && !allowed.includes(to))
          violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("only imports downward between the sub-folders of a folder", () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const folder = folderOf(file);
      const ranks = SUB_RANK[folder];
      if (!ranks) continue;
      const from = subFolderOf(file);
      for (const target of imports) {
        if (!target.startsWith(SRC) || folderOf(target) !== folder) continue;
        const to = subFolderOf(target);
        if (to === from) continue;
        if (!(ranks[to]! > ranks[from]!)) violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it(`keeps at most ${MAX_FILES_SIDE_BY_SIDE} files side by side in a folder`, () => {
    const crowded: string[] = [];
    const visit = (dir: string) => {
      const names = readdirSync(dir);
      const own = names.filter((name) => !statSync(join(dir, name)).isDirectory());
      const rel = relative(SRC, dir);
      if (own.length > MAX_FILES_SIDE_BY_SIDE) crowded.push(`${rel}: ${own.length}`);
      for (const name of names) if (statSync(join(dir, name)).isDirectory()) visit(join(dir, name));
    };
    visit(SRC);
    expect(crowded).toEqual([]);
  });

  // peers/ is the other side of ACP: deep-acp as the editor of another agent (the SDK's client app).
  it("only the acp and peers folders import the ACP SDK", () => {
    const speaksAcp = new Set(["acp", "cli", "peers"]);
    const offenders = files.filter(
      (f) => !speaksAcp.has(folderOf(f)) && /["']@agentclientprotocol\/sdk/.test(readFileSync(f, "utf8")),
    );
    expect(offenders.map((f) => relative(SRC, f))).toEqual([]);
  });

  it("has no import cycles between files", () => {
    const state = new Map<string, "visiting" | "done">();
    const cycles: string[] = [];
    const visit = (file: string, stack: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "visiting") {
        cycles.push([...stack.slice(stack.indexOf(file)), file].map((f) => relative(SRC, f)).join(" -> "));
        return;
      }
      state.set(file, "visiting");
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...stack, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it("reaches the rooms only through their public entry", () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const from = folderOf(file);
      for (const target of imports) {
        const to = relative(SRC, target);
        const [room, ...rest] = to.split("/");
        if (!ROOMS.includes(room!) || room === from) continue;
        const entries = [...PUBLIC_ENTRIES, ...(LIGHT_ENTRIES[room!] ?? [])];
        if (!(rest.length === 1 && entries.includes(rest[0]!))) violations.push(`${relative(SRC, file)} -> ${to}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps every gate file in one of the gate's rooms (none directly in gate/)", () => {
    const loose = files.filter((f) => folderOf(f) === "gate" && subFolderOf(f) === ".");
    expect(loose.map((f) => relative(SRC, f))).toEqual([]);
  });

  it("keeps the light entries light: only types from their room, values only from util/", () => {
    const heavy: string[] = [];
    for (const [room, names] of Object.entries(LIGHT_ENTRIES))
      for (const name of names) {
        const text = readFileSync(join(SRC, room, name), "utf8");
        for (const [, specifier] of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+["'](\.[^"']+)["']/gm)) {
          const to = relative(SRC, resolve(SRC, room, specifier!));
          if (!to.startsWith("util/")) heavy.push(`${room}/${name} -> ${to}`);
        }
      }
    expect(heavy).toEqual([]);
  });

  it("gives the sub-divided rooms only their listed sub-folders, none over the file cap", () => {
    for (const [room, subfolders] of Object.entries(SUBFOLDERS)) {
      const dir = join(SRC, room);
      const entries = readdirSync(dir);
      expect(entries.filter((name) => statSync(join(dir, name)).isDirectory()).sort()).toEqual(subfolders);
      for (const folder of [dir, ...subfolders.map((name) => join(dir, name))])
        expect({
          folder: relative(SRC, folder),
          files: readdirSync(folder).filter((n) => n.endsWith(".ts")).length,
        }).toSatisfy(({ files }: { files: number }) => files <= MAX_FILES_SIDE_BY_SIDE);
    }
  });

  it("keeps folder-internal leaves free of what sits above them", () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const rel = relative(SRC, file);
      const leaf = Object.keys(LEAVES).find((dir) => rel.startsWith(`${dir}/`));
      if (!leaf) continue;
      for (const target of imports) {
        const to = relative(SRC, target);
        if (!to.startsWith(`${leaf}/`) && !LEAVES[leaf]!.includes(to.split("/")[0]!))
          violations.push(`${rel} -> ${to}`);
      }
    }
    expect(violations).toEqual([]);
  });
});
