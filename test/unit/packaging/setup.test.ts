import { mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parse } from "jsonc-parser";
import { afterEach, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../../src/cli/args/args.js";
import { mergeSettingsEntry } from "../../../src/cli/subcommands/jsonc-settings.js";
import { runSetup } from "../../../src/cli/subcommands/setup.js";
import { EDITOR_CONFIGS } from "./editor-configs.js";

const LAUNCH = { command: "/opt/node/bin/node", args: ["/home/me/deep acp/dist/deep-acp.js"] };
const ENTRY = {
  type: "custom",
  command: LAUNCH.command,
  args: LAUNCH.args,
  env: {},
  default_config_options: { mode: "default" },
};

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempHome(): Promise<string> {
  const home = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-setup-")));
  temps.push(home);
  return home;
}

async function setup(
  home: string,
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runSetup(parseCliArgs(["setup", ...argv]), {
    home,
    env,
    platform: "linux",
    launch: LAUNCH,
    out: (t) => (out += t),
    err: (t) => (err += t),
    now: () => new Date("2026-11-30T18:00:00Z"),
  });
  return { code, out, err };
}

async function writeAt(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

const ZED_WITH_COMMENTS = `// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark", // my theme
  /* agents I use */
  "agent_servers": {
    "Claude": {"type": "registry"},
  },
  "vim_mode": true,
}
`;

describe("deep-acp setup: JSON(C) editors", () => {
  it("merges into a Zed settings file with comments, keeping every comment, key and the other agent", async () => {
    const home = await tempHome();
    const file = join(home, ".config", "zed", "settings.json");
    await writeAt(file, ZED_WITH_COMMENTS);
    const { code, out } = await setup(home, ["zed"]);
    expect(code).toBe(0);
    const text = await readFile(file, "utf8");
    for (const kept of [
      "// Zed settings",
      "// For information on how to configure Zed",
      '"theme": "One Dark", // my theme',
      "/* agents I use */",
      '"Claude": {"type": "registry"},',
      '"vim_mode": true,',
    ])
      expect(text).toContain(kept);
    const settings = parse(text);
    expect(settings.agent_servers).toEqual({ Claude: { type: "registry" }, "deep-acp": ENTRY });
    const backup = `${file}.20261130T180000Z.bak`;
    expect(await readFile(backup, "utf8")).toBe(ZED_WITH_COMMENTS);
    expect(out).toContain(`backup: ${backup}`);
  });

  it("updates an existing deep-acp entry's command but keeps the user's env and mode", async () => {
    const home = await tempHome();
    const file = join(home, ".config", "Code", "User", "settings.json");
    await writeAt(
      file,
      `{\n\t// keys live here\n\t"acp.agents": {\n\t\t"deep-acp": { "command": "npx", "args": ["-y", "deep-acp"], "env": { "ANTHROPIC_API_KEY": "sk-1" } },\n\t\t"Gemini": { "command": "gemini", "args": ["--acp"] }\n\t},\n\t"editor.fontSize": 14\n}\n`,
    );
    const { code, out } = await setup(home, ["vscode"]);
    expect(code).toBe(0);
    expect(out).toContain('updated "deep-acp"');
    const text = await readFile(file, "utf8");
    expect(text).toContain("// keys live here");
    const settings = parse(text);
    expect(settings["acp.agents"]).toEqual({
      "deep-acp": { command: LAUNCH.command, args: LAUNCH.args, env: { ANTHROPIC_API_KEY: "sk-1" } },
      Gemini: { command: "gemini", args: ["--acp"] },
    });
    expect(settings["editor.fontSize"]).toBe(14);
    // A second run finds nothing to do and makes no second backup.
    const again = await setup(home, ["vscode"]);
    expect(again.out).toContain("nothing to change");
    expect((await readdir(dirname(file))).filter((f) => f.endsWith(".bak"))).toHaveLength(1);
  });

  it("creates a missing JetBrains acp.json with the MCP defaults and no backup", async () => {
    const home = await tempHome();
    const { code } = await setup(home, ["jetbrains"]);
    expect(code).toBe(0);
    const file = join(home, ".jetbrains", "acp.json");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      default_mcp_settings: { use_idea_mcp: false, use_custom_mcp: true },
      agent_servers: { "deep-acp": { command: LAUNCH.command, args: LAUNCH.args, env: {} } },
    });
    expect(await readdir(dirname(file))).toEqual(["acp.json"]);
    expect((await stat(file)).mode & 0o777).toBe(0o644);
  });

  it("refuses a broken file: says where it broke, writes nothing and prints the entry to merge by hand", async () => {
    const home = await tempHome();
    const file = join(home, ".config", "zed", "settings.json");
    const broken = `{\n  "theme": "One Dark"\n  "agent_servers": {}\n}\n`;
    await writeAt(file, broken);
    const { code, out } = await setup(home, ["zed"]);
    expect(code).toBe(1);
    expect(out).toMatch(/not valid JSON with comments \(CommaExpected at line 3, column 3\)\. Nothing was written/);
    expect(out).toContain('"agent_servers"');
    expect(await readFile(file, "utf8")).toBe(broken);
    expect(await readdir(dirname(file))).toEqual(["settings.json"]);
  });

  it("refuses a file whose agent group is not an object", async () => {
    const result = mergeSettingsEntry(`{ "agent_servers": [] }`, "agent_servers", "deep-acp", {});
    expect(result).toEqual({ ok: false, error: '"agent_servers" is not an object' });
    expect(mergeSettingsEntry(`[1]`, "agent_servers", "deep-acp", {})).toEqual({
      ok: false,
      error: "the file's top level is not a JSON object",
    });
  });

  it("--dry-run shows the result and writes nothing; --print shows only the entry", async () => {
    const home = await tempHome();
    const file = join(home, ".config", "zed", "settings.json");
    await writeAt(file, ZED_WITH_COMMENTS);
    const dry = await setup(home, ["zed", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`Dry run: would add "deep-acp" in ${file}`);
    expect(dry.out).toContain("/* agents I use */");
    const printed = await setup(home, ["zed", "--print"]);
    expect(JSON.parse(printed.out.slice(printed.out.indexOf("{")))).toEqual({ agent_servers: { "deep-acp": ENTRY } });
    expect(await readFile(file, "utf8")).toBe(ZED_WITH_COMMENTS);
    expect(await readdir(dirname(file))).toEqual(["settings.json"]);
  });

  it("writes through a symlinked settings file, leaving the link in place", async () => {
    const home = await tempHome();
    const real = join(home, "dotfiles", "zed.json");
    await writeAt(real, "{}\n");
    const link = join(home, ".config", "zed", "settings.json");
    await mkdir(dirname(link), { recursive: true });
    await symlink(real, link);
    expect((await setup(home, ["zed"])).code).toBe(0);
    expect(await readlink(link)).toBe(real);
    expect(parse(await readFile(real, "utf8")).agent_servers["deep-acp"]).toEqual(ENTRY);
  });

  it("on Linux, follows $XDG_CONFIG_HOME for Zed and VS Code, as they do", async () => {
    const home = await tempHome();
    const xdg = join(home, "xdg");
    expect((await setup(home, ["zed"], { XDG_CONFIG_HOME: xdg })).code).toBe(0);
    expect((await setup(home, ["vscode"], { XDG_CONFIG_HOME: xdg })).code).toBe(0);
    expect(parse(await readFile(join(xdg, "zed", "settings.json"), "utf8")).agent_servers["deep-acp"]).toEqual(ENTRY);
    expect(
      parse(await readFile(join(xdg, "Code", "User", "settings.json"), "utf8"))["acp.agents"]["deep-acp"].command,
    ).toBe(LAUNCH.command);
  });

  it("rejects a missing or unknown editor", async () => {
    const home = await tempHome();
    expect(await setup(home, [])).toMatchObject({
      code: 2,
      err: expect.stringContaining("name one editor: zed, jetbrains, vscode, neovim, emacs"),
    });
    expect(await setup(home, ["sublime"])).toMatchObject({ code: 2, err: expect.stringContaining('(got "sublime")') });
  });
});

describe("deep-acp setup: Lua and Emacs Lisp editors", () => {
  it("prints the CodeCompanion snippet alone (pasting avante's too failed: module 'avante' not found), or the one named", async () => {
    const home = await tempHome();
    const { code, out, err } = await setup(home, ["neovim"]);
    expect(code).toBe(0);
    expect(out).not.toContain("avante");
    expect(
      EDITOR_CONFIGS.find((c) => c.file === "neovim/codecompanion.lua")!.extract(out.slice(out.indexOf("require("))),
    ).toEqual(LAUNCH);
    expect(out).toContain("Neovim >= 0.11");
    expect(err).toContain("deep-acp setup neovim avante");
    const named = await setup(home, ["neovim", "codecompanion"]);
    expect(named).toMatchObject({ code: 0, out });
    const avante = await setup(home, ["neovim", "avante"]);
    expect(avante.code).toBe(0);
    expect(avante.out).not.toContain("codecompanion");
    expect(
      EDITOR_CONFIGS.find((c) => c.file === "neovim/avante.lua")!.extract(
        avante.out.slice(avante.out.indexOf("require(")),
      ).command,
    ).toBe(LAUNCH.command);
    expect(await setup(home, ["neovim", "lazy"])).toMatchObject({
      code: 2,
      err: expect.stringContaining("codecompanion, avante"),
    });
    expect(await setup(home, ["zed", "avante"])).toMatchObject({ code: 2 });
    // Where each goes is said on stderr, without sending a setup() call into a lazy.nvim `opts` file.
    expect(err).toContain('require("codecompanion").setup({...})');
    expect(err).not.toMatch(/plugins\/codecompanion\.lua/);
    expect(await readdir(home)).toEqual([]);
  });

  it("prints an agent-shell config on stdout and where it goes on stderr", async () => {
    const home = await tempHome();
    const { code, out, err } = await setup(home, ["emacs"]);
    expect(code).toBe(0);
    expect(err).toMatch(/init\.el/);
    expect(err).toContain("Emacs >= 29.1");
    const launch = EDITOR_CONFIGS.find((c) => c.file === "emacs/agent-shell.el")!.extract(
      out.slice(out.indexOf("(defun")),
    );
    expect({ command: launch.command, args: launch.args }).toEqual(LAUNCH);
    // agent-shell sets a default mode it is given after session/new: the mode was set twice.
    expect(out).not.toContain(":default-session-mode-id");
  });
});
