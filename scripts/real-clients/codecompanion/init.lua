-- A user of CodeCompanion.nvim, headless: `nvim --headless -u init.lua`. It loads CodeCompanion with
-- the exact snippet `deep-acp setup neovim --print` printed, opens a chat, types the prompts below one
-- by one, answers each permission prompt by pressing the key CodeCompanion shows for the wanted
-- choice (the buffer-local mapping it set, called as the key would call it), waits for the turn to
-- end, and writes what the chat buffer shows. check.mjs judges the files.
--
-- Environment: CC_DIR, PLENARY_DIR (plugin sources), DRIVER_SNIPPET (the printed snippet),
-- DRIVER_OUT (a folder for the results), DRIVER_VERBOSE=1 (CodeCompanion's `verbose_output`, which
-- also shows each finished call's content after its label).
local out = assert(vim.env.DRIVER_OUT, "DRIVER_OUT is not set")
vim.opt.rtp:prepend(assert(vim.env.PLENARY_DIR, "PLENARY_DIR is not set"))
vim.opt.rtp:prepend(assert(vim.env.CC_DIR, "CC_DIR is not set"))
vim.o.swapfile = false

-- What notifications and errors said, for the report.
local notes = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(notes, string.format("[%s] %s", tostring(level), tostring(msg)))
  return notify(msg, level, opts)
end

dofile(assert(vim.env.DRIVER_SNIPPET, "DRIVER_SNIPPET is not set"))

local config = require("codecompanion.config")
if vim.env.DRIVER_VERBOSE == "1" then
  local make = config.adapters.acp.deep_acp
  config.adapters.acp.deep_acp = function()
    local adapter = make()
    adapter.opts = vim.tbl_extend("force", adapter.opts or {}, { verbose_output = true })
    return adapter
  end
end

-- The prompts, and how the user answers the permission prompt each one brings:
-- "accept" presses Accept; "reject" presses Reject (the agent is told and the turn goes on);
-- "cancel" presses the prompt's Cancel (CodeCompanion answers `cancelled`
-- and the turn goes on); "stop" presses the chat's stop key `q` while the prompt is open
-- (CodeCompanion sends session/cancel, then answers the open prompt `cancelled`).
local PROMPTS = {
  { text = "Make a plan, then run the echo.", answer = "accept" },
  { text = "Write the new note.", answer = "accept" },
  { text = "Ask a helper to look around.", answer = "accept" },
  { text = "Run a command; I will reject it.", answer = "reject" },
  { text = "Run a command; I will refuse it.", answer = "cancel" },
  { text = "Run another command; I will stop it.", answer = "stop" },
  { text = "Say goodbye.", answer = "accept" },
}

local log = {}
local function say(fmt, ...)
  local line = string.format(fmt, ...)
  table.insert(log, line)
  io.stderr:write(line .. "\n")
end

local current -- the prompt being answered
local chat
local approvals = 0
local finished = 0

local function buffer_mapping(bufnr, lhs)
  for _, map in ipairs(vim.api.nvim_buf_get_keymap(bufnr, "n")) do
    if map.lhs == lhs and map.callback then
      return map.callback
    end
  end
end

vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionToolApprovalRequested",
  callback = function()
    approvals = approvals + 1
    -- The prompt's mappings are set right after this event: answer on the next tick.
    vim.schedule(function()
      local keys = require("codecompanion.interactions.chat.tools.labels").keymaps()
      local wanted = current and current.answer or "accept"
      local lhs = wanted == "accept" and keys.accept
        or wanted == "reject" and keys.reject
        or wanted == "cancel" and keys.cancel
        or config.interactions.chat.keymaps.stop.modes.n
      local press = buffer_mapping(chat.bufnr, lhs)
      say("approval %d: pressing %s (%s)%s", approvals, lhs, wanted, press and "" or " -- NO SUCH MAPPING")
      if press then
        press()
      end
    end)
  end,
})
vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionRequestFinished",
  callback = function()
    finished = finished + 1
  end,
})

local function sleep(ms)
  local co = coroutine.running()
  vim.defer_fn(function()
    coroutine.resume(co)
  end, ms)
  coroutine.yield()
end

local function wait_until(what, timeout_ms, done)
  local waited = 0
  while not done() do
    if waited >= timeout_ms then
      say("timed out after %d ms waiting for %s", timeout_ms, what)
      return false
    end
    sleep(100)
    waited = waited + 100
  end
  return true
end

local function write(name, lines)
  vim.fn.writefile(lines, vim.fs.joinpath(out, name))
end

-- Each tool line's status, read from the icon CodeCompanion put on it (what the user sees).
local function annotated_lines(bufnr)
  local status_of_hl = {
    CodeCompanionChatToolPending = "pending",
    CodeCompanionChatToolInProgress = "in_progress",
    CodeCompanionChatToolSuccessIcon = "completed",
    CodeCompanionChatToolFailureIcon = "failed",
  }
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local ns = require("codecompanion.interactions.chat.ui.icons").ns()
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
    local row, details = mark[2], mark[4]
    local hl = details.virt_text and details.virt_text[1] and details.virt_text[1][2]
    local status = status_of_hl[hl] or tostring(hl)
    lines[row + 1] = string.format("[tool:%s] %s", status, lines[row + 1])
  end
  return lines
end

local function run()
  vim.schedule(function()
    chat = require("codecompanion").chat()
  end)
  wait_until("the chat to open", 10000, function()
    return chat ~= nil
  end)
  assert(chat, "CodeCompanion opened no chat")
  -- A new chat connects and opens its session in the background; a user types after that.
  wait_until("the agent's session", 60000, function()
    return chat.acp_connection ~= nil and chat.acp_connection:is_ready() and chat.acp_connection.session_id ~= nil
  end)
  say("connected: session %s", tostring(chat.acp_connection and chat.acp_connection.session_id))
  for index, prompt in ipairs(PROMPTS) do
    current = prompt
    local before = finished
    say("prompt %d: %s", index, prompt.text)
    vim.api.nvim_buf_set_lines(chat.bufnr, -1, -1, false, { prompt.text })
    -- Outside this coroutine, as a key press would: CodeCompanion waits for the agent in a
    -- coroutine of its own when it finds none.
    vim.schedule(function()
      chat:submit()
    end)
    local ended = wait_until("the end of prompt " .. index, 90000, function()
      return finished > before and chat.current_request == nil
    end)
    -- Let late updates land (after a stop the agent still sends the call's end and its answer).
    sleep(1500)
    say("prompt %d %s; chat status %s", index, ended and "ended" or "DID NOT END", tostring(chat.status))
  end
  write("chat.txt", vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false))
  write("chat-annotated.txt", annotated_lines(chat.bufnr))
  write("notifications.txt", notes)
  local rpc = chat.acp_connection and chat.acp_connection._rpc_log and chat.acp_connection._rpc_log.path
  sleep(500) -- CodeCompanion writes its RPC log asynchronously
  if rpc and vim.uv.fs_stat(rpc) then
    vim.uv.fs_copyfile(rpc, vim.fs.joinpath(out, "rpc.log"))
  end
  say("approvals answered: %d", approvals)
  write("driver.log", log)
end

vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    coroutine.wrap(function()
      local ok, err = pcall(run)
      if not ok then
        say("driver failed: %s", tostring(err))
        write("driver.log", log)
        vim.cmd("cquit 1")
      end
      vim.cmd("qall!")
    end)()
  end,
})
