-- deep-acp as a CodeCompanion ACP adapter, for your Neovim config (e.g. ~/.config/nvim/init.lua),
-- in place of or merged into your `require("codecompanion").setup({...})` call. With lazy.nvim, the
-- table passed to setup() is the plugin spec's `opts` instead. It extends the built-in "goose"
-- adapter only for its generic ACP plumbing; nothing of Goose is used.
require("codecompanion").setup({
  adapters = {
    acp = {
      deep_acp = function()
        return require("codecompanion.adapters").extend("goose", {
          name = "deep_acp",
          formatted_name = "deep-acp",
          commands = {
            default = { "deep-acp" },
          },
          defaults = {
            mcpServers = {},
            timeout = 30000, -- ms
          },
          -- Keys are read from Neovim's environment. To take one from elsewhere, e.g.:
          -- env = { ANTHROPIC_API_KEY = "cmd:op read op://personal/Anthropic/credential --no-newline" },
          env = {},
        })
      end,
    },
  },
  interactions = {
    chat = { adapter = "deep_acp" },
  },
})
