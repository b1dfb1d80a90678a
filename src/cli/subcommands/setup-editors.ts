import { join } from "node:path";
import type { JsonObject } from "./jsonc-settings.js";

/** What `deep-acp setup` puts into an editor: the launch line of this installation. */
export type LaunchCommand = { command: string; args: string[] };

/** An editor whose settings are a JSON(C) file we can merge into. */
export type JsonEditor = {
  kind: "json";
  label: string;
  /** Absolute path of the settings file. */
  file: string;
  /** Where in the file the agent goes: `file[group][name]`. */
  group: string;
  entry: JsonObject;
  /** Top-level keys a new file gets (never overwritten). */
  seed?: JsonObject;
  /** Shown after writing: how to start the agent from the editor. */
  next: string;
};

/** An editor configured in code (Lua, elisp): we print the snippet and where it goes. */
export type SnippetEditor = {
  kind: "snippet";
  label: string;
  /** The first is printed unless another is named (`setup neovim avante`): one paste, one plugin. */
  snippets: Array<{ id: string; title: string; where: string; code: string }>;
};

export type EditorTarget = JsonEditor | SnippetEditor;

export const EDITORS = ["zed", "jetbrains", "vscode", "neovim", "emacs"] as const;
export type EditorName = (typeof EDITORS)[number];

/** The name users pick in the editor's agent list. */
export const AGENT_NAME = "deep-acp";

export type TargetOptions = {
  home: string;
  platform: NodeJS.Platform;
  /** On Linux, Zed and VS Code keep settings under $XDG_CONFIG_HOME when it is set (absolute). */
  xdgConfigHome?: string;
};

/** Where each editor keeps its settings (reference: acp-anchors.md §4); `home` decides every path. */
export function editorTarget(editor: EditorName, launch: LaunchCommand, options: TargetOptions): EditorTarget {
  const { home, platform } = options;
  const appData = join(home, "AppData", "Roaming");
  const config =
    platform === "linux" && options.xdgConfigHome?.startsWith("/") ? options.xdgConfigHome : join(home, ".config");
  switch (editor) {
    case "zed":
      return {
        kind: "json",
        label: "Zed",
        file: platform === "win32" ? join(appData, "Zed", "settings.json") : join(config, "zed", "settings.json"),
        group: "agent_servers",
        entry: {
          type: "custom",
          command: launch.command,
          args: launch.args,
          env: {},
          default_config_options: { mode: "default" },
        },
        next: `Open the agent panel, click "+" and pick ${AGENT_NAME}. Restart Zed if it was running an older deep-acp.`,
      };
    case "jetbrains":
      return {
        kind: "json",
        label: "JetBrains AI Assistant",
        file: join(home, ".jetbrains", "acp.json"),
        group: "agent_servers",
        entry: { command: launch.command, args: launch.args, env: {} },
        seed: { default_mcp_settings: { use_idea_mcp: false, use_custom_mcp: true } },
        next: `Open AI Chat; ${AGENT_NAME} is in the agent picker (restart the chat if it was open).`,
      };
    case "vscode":
      return {
        kind: "json",
        label: "VS Code (ACP Client extension, formulahendry.acp-client)",
        file: vscodeSettings(home, platform, config),
        group: "acp.agents",
        entry: { command: launch.command, args: launch.args, env: {} },
        next: `Install the "ACP Client" extension if you have not, open its view and pick ${AGENT_NAME}.`,
      };
    case "neovim":
      return {
        kind: "snippet",
        label: "Neovim",
        snippets: [
          {
            id: "codecompanion",
            title: "CodeCompanion.nvim (needs Neovim >= 0.11)",
            where: luaSetupWhere("codecompanion"),
            code: codeCompanionSnippet(launch),
          },
          {
            id: "avante",
            title: "avante.nvim",
            where: luaSetupWhere("avante"),
            code: avanteSnippet(launch),
          },
        ],
      };
    case "emacs":
      return {
        kind: "snippet",
        label: "Emacs agent-shell",
        snippets: [
          {
            id: "agent-shell",
            title: "agent-shell (needs Emacs >= 29.1)",
            where: "your init file: ~/.emacs.d/init.el or ~/.config/emacs/init.el (after agent-shell is installed)",
            code: agentShellSnippet(launch),
          },
        ],
      };
  }
}

function vscodeSettings(home: string, platform: NodeJS.Platform, config: string): string {
  if (platform === "darwin") return join(home, "Library", "Application Support", "Code", "User", "settings.json");
  if (platform === "win32") return join(home, "AppData", "Roaming", "Code", "User", "settings.json");
  return join(config, "Code", "User", "settings.json");
}

/** A Lua string literal; Lua's escapes for `\` and `"` match these. */
function lua(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** An Emacs Lisp string literal. */
function elisp(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** Where a plugin's setup snippet goes: not into a lazy.nvim `opts` file, which takes a table, not a call. */
function luaSetupWhere(plugin: string): string {
  return `your Neovim config, e.g. ~/.config/nvim/init.lua, in place of (or merged into) your require(${lua(plugin)}).setup({...}) call; with lazy.nvim, the table passed to setup() is the plugin spec's \`opts\` instead`;
}

// Module names go through lua(): a literal require("...") in this bundle would read as an import to
// tools that scan it (test/e2e/packaging checks the bundle imports only real dependencies).
function codeCompanionSnippet(launch: LaunchCommand): string {
  const argv = [launch.command, ...launch.args].map(lua).join(", ");
  return `-- deep-acp for CodeCompanion.nvim (needs Neovim >= 0.11)
require(${lua("codecompanion")}).setup({
  adapters = {
    acp = {
      deep_acp = function()
        -- "goose" is extended only for CodeCompanion's generic ACP plumbing.
        return require(${lua("codecompanion.adapters")}).extend("goose", {
          name = "deep_acp",
          formatted_name = "deep-acp",
          commands = { default = { ${argv} } },
          defaults = { mcpServers = {}, timeout = 30000 },
          env = {},
        })
      end,
    },
  },
  interactions = { chat = { adapter = "deep_acp" } },
})`;
}

function avanteSnippet(launch: LaunchCommand): string {
  const args = launch.args.map(lua).join(", ");
  return `-- deep-acp for avante.nvim
require(${lua("avante")}).setup({
  provider = "deep-acp",
  acp_providers = {
    ["deep-acp"] = {
      command = ${lua(launch.command)},
      args = { ${args} },
      env = {
        NODE_NO_WARNINGS = "1",
        ANTHROPIC_API_KEY = os.getenv("ANTHROPIC_API_KEY"),
        OPENAI_API_KEY = os.getenv("OPENAI_API_KEY"),
        DEEP_ACP_MODEL = os.getenv("DEEP_ACP_MODEL"),
      },
    },
  },
})`;
}

function agentShellSnippet(launch: LaunchCommand): string {
  const params = launch.args.map(elisp).join(" ");
  return `;;; deep-acp for agent-shell (https://github.com/xenodium/agent-shell)
;; For your init file. Then M-x agent-shell and pick deep-acp, or M-x deep-acp-agent-shell.

${AGENT_SHELL_CONFIG.replace("%COMMAND%", elisp(launch.command)).replace("%PARAMS%", params)}`;
}

/**
 * The agent-shell configuration and its registration, as in editors/emacs/agent-shell.el (a test
 * keeps the two equal but for the launch line). No closures over variables, so it works in an init
 * file without lexical-binding.
 */
const AGENT_SHELL_CONFIG = `(defun deep-acp-agent-shell-config ()
  "Return the agent-shell configuration that launches deep-acp."
  (agent-shell-make-agent-config
   :identifier 'deep-acp
   :mode-line-name "deep-acp"
   :buffer-name "deep-acp"
   :shell-prompt "deep-acp> "
   :shell-prompt-regexp "deep-acp> "
   :client-maker (lambda (buffer)
                   (agent-shell--make-acp-client
                    :command %COMMAND%
                    :command-params '(%PARAMS%)
                    ;; Emacs's environment is passed on, so ANTHROPIC_API_KEY & co. reach the agent.
                    :environment-variables (agent-shell-make-environment-variables :inherit-env t)
                    :context-buffer buffer))
   ;; No default session mode: sessions start in the default one, and agent-shell set it a second time.
   :default-model-id (lambda () nil)))

(defun deep-acp-agent-shell--with-deep-acp (configs)
  "CONFIGS with deep-acp's configuration first, and no older one."
  (cons (deep-acp-agent-shell-config)
        (delq nil (mapcar (lambda (entry)
                            (unless (and (consp entry) (not (functionp entry))
                                         (eq (cdr (assq :identifier entry)) 'deep-acp))
                              entry))
                          configs))))

(defvar deep-acp-agent-shell--other-configs nil
  "The function \`agent-shell-agent-configs' was before deep-acp joined it.")

(defun deep-acp-agent-shell--configs ()
  "What \`deep-acp-agent-shell--other-configs' returns, with deep-acp."
  (deep-acp-agent-shell--with-deep-acp (funcall deep-acp-agent-shell--other-configs)))

;; \`agent-shell-agent-configs' is a list of configurations or, in newer agent-shell, may be a
;; function returning one: deep-acp joins either, keeping every other agent.
(with-eval-after-load 'agent-shell
  (cond ((eq agent-shell-agent-configs #'deep-acp-agent-shell--configs))
        ((functionp agent-shell-agent-configs)
         (setq deep-acp-agent-shell--other-configs agent-shell-agent-configs
               agent-shell-agent-configs #'deep-acp-agent-shell--configs))
        (t (setq agent-shell-agent-configs
                 (deep-acp-agent-shell--with-deep-acp agent-shell-agent-configs)))))

(defun deep-acp-agent-shell ()
  "Start a new agent-shell with deep-acp."
  (interactive)
  (require 'agent-shell)
  (agent-shell-start :config (deep-acp-agent-shell-config)))`;
