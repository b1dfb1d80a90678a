import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EDITOR_CONFIGS, EDITORS_DIR, readEditorLaunches } from "./editor-configs.js";

const read = (file: string) => readFile(join(EDITORS_DIR, file), "utf8");
const extractor = (file: string) => EDITOR_CONFIGS.find((c) => c.file === file)!;

describe("editors/", () => {
  it("has one folder per host, each with a README", async () => {
    const folders = (await readdir(EDITORS_DIR, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(folders).toEqual(["emacs", "jetbrains", "neovim", "vscode", "zed"]);
    for (const folder of folders) expect((await read(join(folder, "README.md"))).length).toBeGreaterThan(200);
  });

  // Never through npx: its `npm exec` parent would keep the model key in its environment for as long
  // as the agent runs, readable by any approved command (README, "What is still a limit").
  it("every config launches `deep-acp` directly, never through npx", async () => {
    const launches = await readEditorLaunches();
    expect(launches.map((l) => l.file).sort()).toEqual(EDITOR_CONFIGS.map((c) => c.file).sort());
    for (const launch of launches)
      expect({ file: launch.file, command: launch.command, args: launch.args }).toEqual({
        file: launch.file,
        command: "deep-acp",
        args: [],
      });
  });

  it("Zed: a custom agent server that starts new threads in the default mode", async () => {
    const entry = JSON.parse(await read("zed/settings.json")).agent_servers["deep-acp"];
    expect(entry).toEqual({
      type: "custom",
      command: "deep-acp",
      args: [],
      env: {},
      default_config_options: { mode: "default" },
    });
  });

  it("JetBrains: acp.json passes the IDE's custom MCP servers", async () => {
    const config = JSON.parse(await read("jetbrains/acp.json"));
    expect(config.default_mcp_settings).toEqual({ use_idea_mcp: false, use_custom_mcp: true });
  });

  it("each README says where the file goes, how to see logs and which variables hold keys", async () => {
    const expectations: Record<string, RegExp[]> = {
      "zed/README.md": [/settings\.json/, /dev: open acp logs/, /ANTHROPIC_API_KEY/],
      "jetbrains/README.md": [/~\/\.jetbrains\/acp\.json/, /Show Log/, /ANTHROPIC_API_KEY/],
      "neovim/README.md": [
        /codecompanion\.lua/,
        /avante\.lua/,
        /codecompanion\.log/,
        /per-connection RPC\s+log/,
        /Neovim >= 0\.11/,
        /ANTHROPIC_API_KEY/,
      ],
      "vscode/README.md": [/acp\.agents|settings\.json/, /acp\.logTraffic/, /ANTHROPIC_API_KEY/],
      "emacs/README.md": [/init file/, /Emacs >= 29\.1/, /agent-shell-view-traffic/, /ANTHROPIC_API_KEY/],
    };
    for (const [file, patterns] of Object.entries(expectations)) {
      const text = await read(file);
      for (const pattern of patterns) expect(text, `${file} ${pattern}`).toMatch(pattern);
    }
  });

  it("every README leads with `deep-acp setup <editor>` and says why not npx", async () => {
    for (const editor of ["zed", "jetbrains", "vscode", "neovim", "emacs"]) {
      const text = await read(join(editor, "README.md"));
      const firstSection = text.slice(0, text.indexOf("\n## ", text.indexOf("## ") + 3));
      expect(firstSection, editor).toContain(`deep-acp setup ${editor}`);
      expect(text, editor).toMatch(/npm i -g deep-acp/);
      expect(text, editor).toMatch(/not through `npx`[^.]*model key/);
    }
  });

  it("the Lua and Emacs Lisp checks catch a broken file and a non-literal command", async () => {
    const lua = await read("neovim/codecompanion.lua");
    expect(() => extractor("neovim/codecompanion.lua").extract(lua.replace(/\}\)\s*$/, ")"))).toThrow(
      /unbalanced|unclosed/,
    );
    expect(() =>
      extractor("neovim/codecompanion.lua").extract(lua.replace('{ "deep-acp" }', "{ deep_acp_path }")),
    ).toThrow(/not a string literal/);
    const avante = await read("neovim/avante.lua");
    expect(() => extractor("neovim/avante.lua").extract(avante.replace("acp_providers", "providers"))).toThrow(
      /cannot find/,
    );
    const elisp = await read("emacs/agent-shell.el");
    expect(() =>
      extractor("emacs/agent-shell.el").extract(elisp.replace(":context-buffer buffer))", ":context-buffer buffer)")),
    ).toThrow(/unclosed/);
    // A bracket inside a comment or string does not count.
    expect(extractor("emacs/agent-shell.el").extract(`${elisp}\n;; (unbalanced\n(message "(")\n`).command).toBe(
      "deep-acp",
    );
    expect(extractor("neovim/avante.lua").extract(`${avante}\n-- {{\nlocal s = "}"\n`).args).toEqual([]);
  });
});
