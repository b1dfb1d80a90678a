-- deep-acp as an avante.nvim ACP provider, for your Neovim config (e.g. ~/.config/nvim/init.lua), in
-- place of or merged into your `require("avante").setup({...})` call. With lazy.nvim, the table
-- passed to setup() is the plugin spec's `opts` instead.
require("avante").setup({
  provider = "deep-acp",
  acp_providers = {
    ["deep-acp"] = {
      command = "deep-acp",
      args = {},
      env = {
        NODE_NO_WARNINGS = "1",
        -- Forward whichever model key you use; unset ones are simply left out.
        ANTHROPIC_API_KEY = os.getenv("ANTHROPIC_API_KEY"),
        OPENAI_API_KEY = os.getenv("OPENAI_API_KEY"),
        DEEP_ACP_MODEL = os.getenv("DEEP_ACP_MODEL"),
      },
    },
  },
})
