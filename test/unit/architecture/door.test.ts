import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Issue 35, "one door": every question to the human is a request to the session's door
// (src/gate/door/); the editor's renderers (src/acp/dialogs/) draw what it asks. Nothing else
// sends a dialog request, and nothing writes to the editor's sink but the session's observer
// (src/session/turn-observer.ts) and the ACP update stream it feeds.

const SRC = resolve(__dirname, "../../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Property names accessed in a file (parsed: comments and strings play no part). */
function accessedNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

const files = sourceFiles(SRC).map((file) => ({ file, path: relative(SRC, file), names: accessedNames(file) }));
const within = (path: string, dirs: readonly string[]) => dirs.some((dir) => path.startsWith(dir));
// peers/ is the client side of another ACP agent: these files register handlers for the child's
// requests (permission, elicitation, session/update) and notify the child; they send the editor
// nothing. What the child asks reaches the human through the door (peers/peer-door.ts). Named file by
// file, per check, so another file of peers/ doing the same is caught.
const CLIENT_SIDE = {
  dialogs: ["peers/peer-connection.ts", "peers/peer-editor.ts"],
  updates: ["peers/peer-connection.ts", "peers/peer-updates.ts"],
  channels: ["peers/peer-connection.ts", "peers/peer-editor.ts", "peers/peer-task.ts"],
};
const isOneOf = (path: string, files: readonly string[]) => files.includes(path);

describe("one door", () => {
  it("only the editor's dialog renderers send dialog requests (permission, elicitation)", () => {
    // acp/v2 relays the v1 agent's own requests to a v2 client unchanged: it asks nothing itself.
    const renderers = ["acp/dialogs/", "acp/v2/"];
    const senders = files
      .filter(({ names }) => names.has("requestPermission") || (names.has("elicitation") && names.has("create")))
      .map(({ path }) => path)
      .filter((path) => !within(path, renderers) && !isOneOf(path, CLIENT_SIDE.dialogs));
    expect(senders).toEqual([]);
  });

  it("the dialog renderers write nothing to the session's updates: the door's entries go through the observer", () => {
    const writers = files
      .filter(({ path }) => path.startsWith("acp/dialogs/"))
      .filter(({ file }) => /sessionUpdate\s*:/.test(readFileSync(file, "utf8")))
      .map(({ path }) => path);
    expect(writers).toEqual([]);
  });

  it("only the ACP update stream sends session/update", () => {
    const senders = files
      .filter(({ file }) => /methods\.client\.session\.update\b/.test(readFileSync(file, "utf8")))
      .map(({ path }) => path)
      .filter((path) => !within(path, ["acp/updates/", "acp/v2/"]) && !isOneOf(path, CLIENT_SIDE.updates));
    expect(senders).toEqual([]);
  });

  it("outside acp/, only the session's observer reads the editor's channels (updates, notify, reload pending)", () => {
    const channels = ["updates", "notify", "onReloadPending"];
    const readers = files
      .filter(
        ({ path }) =>
          !path.startsWith("acp/") && !isOneOf(path, CLIENT_SIDE.channels) && path !== "session/turn-observer.ts",
      )
      .filter(({ names }) => channels.some((name) => names.has(name)))
      .map(({ path }) => path);
    expect(readers).toEqual([]);
  });

  it("the door owns the dialog lock and the trust questions; the old queue is gone", () => {
    expect(existsSync(join(SRC, "gate/door/door.ts"))).toBe(true);
    expect(existsSync(join(SRC, "gate/door/trust.ts"))).toBe(true);
    expect(existsSync(join(SRC, "extensions/trust-queue.ts"))).toBe(false);
    // One lock: no other module makes a mutex for dialogs.
    const locks = files
      .filter(({ path }) => path.startsWith("gate/") || path.startsWith("agent/") || path.startsWith("extensions/"))
      .filter(({ file }) => /\bcreateMutex\(/.test(readFileSync(file, "utf8")))
      .map(({ path }) => path)
      .filter((path) => path !== "gate/door/door.ts" && path !== "gate/memory/approval-store.ts");
    expect(locks).toEqual([]);
  });

  it("rooms outside the gate and acp/ never import the ACP dialogs: they get a door-backed asker", () => {
    const reaching = files
      .filter(({ path }) => within(path, ["extensions/", "session/"]))
      .filter(({ file }) => /from\s+["'][^"']*acp\/dialogs/.test(readFileSync(file, "utf8")))
      .map(({ path }) => path);
    expect(reaching).toEqual([]);
  });
});
