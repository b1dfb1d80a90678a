-- deep-acp as a CodeCompanion ACP adapter. Put this in your CodeCompanion setup (lazy.nvim `opts`
-- or a plain `require("codecompanion").setup(...)` call). It extends the built-in "goose" adapter
-- only for its generic ACP plumbing; nothing of Goose is used.
require("codecompanion").setup({
  adapters = {
    acp = {
      deep_acp = function()
        return require("codecompanion.adapters").extend("goose", {
          name = "deep_acp",
          formatted_name = "deep-acp",
          commands = {
            default = { "npx", "-y", "deep-acp" },
          },
          defaults = {
            mcpServers = {},
            timeout = 30000, -- ms; the first `npx -y` run downloads the package
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
