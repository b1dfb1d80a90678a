import { describe, expect, it } from "vitest";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import { defaultConfig } from "../../../src/config/config-file.js";
import type { SessionMode } from "../../../src/gate/decide/modes.js";
import type { ModelClient } from "../../../src/model/types.js";
import { assembleTurn } from "../../../src/turn/index.js";

// A model that is never called: assembly only reads what it can do.
const model: ModelClient = {
  id: "anthropic:test",
  provider: "anthropic",
  model: "test",
  contextWindow: 200_000,
  supportsImages: true,
  stream: () => {
    throw new Error("assembly must not call the model");
  },
};

function toolNames(mode: SessionMode, options: { canExecute?: boolean; webFetch?: boolean } = {}): string[] {
  const backend = createStateBackend();
  const executor = options.canExecute === false ? undefined : (backend as never);
  const config = defaultConfig();
  config.web_fetch.enabled = options.webFetch ?? false;
  const turn = assembleTurn({
    session: { id: "s", cwd: "/p", roots: ["/p"], mode },
    workspace: { backend, executor },
    model,
    config,
    now: new Date("2026-01-01T00:00:00Z"),
  });
  return turn.tools.map((t) => t.name);
}

describe("turn assembly", () => {
  const cases: Array<[string, SessionMode, { canExecute?: boolean; webFetch?: boolean }, string[], string[]]> = [
    [
      "default mode offers the file, shell and planning tools",
      "default",
      {},
      ["ls", "read_file", "write_file", "edit_file", "delete", "glob", "grep", "execute", "write_todos"],
      [],
    ],
    [
      "plan mode offers nothing that writes or runs",
      "plan",
      {},
      ["ls", "read_file", "glob", "grep"],
      ["write_file", "edit_file", "delete", "execute"],
    ],
    ["a session that cannot run commands has no execute", "default", { canExecute: false }, ["ls"], ["execute"]],
    ["web_fetch only when config.toml enables it", "default", { webFetch: true }, ["web_fetch"], []],
    ["no web_fetch by default", "bypass", {}, [], ["web_fetch"]],
  ];
  for (const [name, mode, options, offered, withheld] of cases) {
    it(name, () => {
      const names = toolNames(mode, options);
      for (const tool of offered) expect(names).toContain(tool);
      for (const tool of withheld) expect(names).not.toContain(tool);
    });
  }

  it("tells the model where it works", () => {
    const turn = assembleTurn({
      session: { id: "s", cwd: "/work/proj", roots: ["/work/proj", "/work/lib"], mode: "default" },
      workspace: { backend: createStateBackend() },
      model,
      config: defaultConfig(),
      now: new Date("2026-01-01T00:00:00Z"),
    });
    expect(turn.system).toContain("/work/proj");
    expect(turn.system).toContain("/work/lib");
    expect(turn.diagnostics).toEqual([]);
  });
});
