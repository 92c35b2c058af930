-- roo-context for Neovim: starts the sidecar as an LSP client (vim.lsp.start on 0.8+,
-- vim.lsp.start_client on 0.7; on 0.11+ also a `vim.lsp.config` entry that `vim.lsp.enable` starts),
-- applies its folding ranges, lists its document symbols, and exposes commands for the custom
-- methods the server advertises (capabilities.experimental.rooContext.methods). Newer APIs are
-- chosen by feature detection, so one file serves Debian's 0.7 and current releases.

local M = {}

M.config = {
  -- Command to run; ROO_CONTEXT_PATH wins, then this, then `roo-context` on PATH.
  cmd = nil,
  -- Settings sent as initializationOptions and workspace/didChangeConfiguration.
  settings = {},
  -- Folder markers; the first parent containing one is the workspace folder (else the cwd).
  root_markers = { ".rooignore", ".zooignore", ".git" },
  -- Milliseconds a synchronous request may take.
  timeout_ms = 10000,
  -- Start the client for every buffer with a file type: `vim.lsp.enable` on 0.11+, an autocommand
  -- on older versions.
  enable = false,
}

--- The client's name, and on 0.11+ the `vim.lsp.config` name (`lsp/roo-context.lua`).
M.name = "roo-context"

local uv = vim.uv or vim.loop

-- 0.11 turned client functions into methods (`client:request_sync(...)`) and deprecated the
-- field-call form; 0.7-0.10 have only the field-call form.
local client_methods = vim.fn.has("nvim-0.11") == 1

--- Calls `client.<name>` the way this Neovim expects.
local function call(client, name, ...)
  if client_methods then
    return client[name](client, ...)
  end
  return client[name](...)
end

--- Whether this Neovim has `vim.lsp.config` and `vim.lsp.enable` (0.11+).
function M.has_lsp_config()
  return vim.lsp.config ~= nil and type(vim.lsp.enable) == "function"
end

local function server_cmd()
  local from_env = os.getenv("ROO_CONTEXT_PATH")
  if from_env and from_env ~= "" then
    return { from_env }
  end
  if M.config.cmd then
    return type(M.config.cmd) == "table" and M.config.cmd or { M.config.cmd }
  end
  return { "roo-context" }
end

--- The workspace folder of a file: nearest parent with a root marker, else the cwd.
function M.root_dir(path)
  local dir = vim.fn.fnamemodify(path ~= "" and path or vim.fn.getcwd(), ":p:h")
  while dir and dir ~= "" do
    for _, marker in ipairs(M.config.root_markers) do
      if uv.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.fn.getcwd()
end

local function notify(message, level)
  vim.notify("roo-context: " .. message, level or vim.log.levels.INFO)
end

--- Describes a server notification for the user (user edits and reload errors stand out).
function M.describe_notification(method, params)
  params = params or {}
  if method == "roo/files/didChange" then
    local moved = params.newPath and (" to " .. params.newPath) or ""
    -- How much differs from what the agent last saw (issue 19); absent for blocked, binary or
    -- oversized files.
    local stat = ""
    local s = params.diffStat
    if type(s) == "table" and type(s.added) == "number" and type(s.removed) == "number" and type(s.hunks) == "number" then
      stat = string.format(" (+%d -%d, %d hunk%s)", s.added, s.removed, s.hunks, s.hunks == 1 and "" or "s")
    end
    return string.format("%s was %s%s%s outside the agent (task %s)", tostring(params.path),
      tostring(params.kind or "changed"), moved, stat, tostring(params.taskId)), vim.log.levels.WARN
  end
  if method == "roo/ignore/didReload" then
    local err = (params.error and params.error ~= vim.NIL) and (" (error: " .. params.error .. ")") or ""
    local file = (params.activeIgnoreFile and params.activeIgnoreFile ~= vim.NIL) and params.activeIgnoreFile or "no ignore file"
    return string.format("%s: %s, %s rules%s", tostring(params.folder), file, tostring(params.ruleCount), err),
      err ~= "" and vim.log.levels.WARN or vim.log.levels.DEBUG
  end
  if method == "roo/workspace/didWatch" then
    local watched, unwatched = {}, {}
    for _, f in ipairs(params.folders or {}) do
      table.insert(f.recursive == true and watched or unwatched, tostring(f.folder))
    end
    if #unwatched > 0 then
      return "changes below " .. table.concat(unwatched, ", ")
        .. " are not seen (the folder could not be watched; the system's watch limit?)", vim.log.levels.WARN
    end
    return "watching " .. table.concat(watched, ", "), vim.log.levels.DEBUG
  end
  return method .. " " .. vim.fn.json_encode(params), vim.log.levels.INFO
end

-- Every `roo/*` message from the server reaches these handlers: notifications are shown, requests
-- for host services (a summarizer, terminal output) are answered "not available" with a reason.
local handlers = setmetatable({}, {
  __index = function(_, method)
    if type(method) ~= "string" or not method:match("^roo/") then
      return nil
    end
    if method:match("^roo/host/") then
      return function()
        return nil, vim.lsp.rpc_response_error(-32001,
          method .. " is not available in Neovim (this client has no language model or terminal access)")
      end
    end
    return function(_, result)
      local text, level = M.describe_notification(method, result)
      table.insert(M.notifications, { method = method, params = result })
      if level >= vim.log.levels.INFO then
        notify(text, level)
      end
    end
  end,
})

--- Every `roo/*` notification received, oldest first (`{method, params}`).
M.notifications = {}

local clients_by_root = {}

local function on_init(client)
  call(client, "notify", "workspace/didChangeConfiguration", { settings = { rooContext = M.config.settings } })
end

local function client_config(root)
  return {
    name = M.name,
    cmd = server_cmd(),
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ":t") } },
    init_options = M.config.settings,
    handlers = handlers,
    on_init = on_init,
  }
end

--- The configuration in the shape of `vim.lsp.config` (0.11+): the workspace folder is found per
--- buffer by `M.root_dir`; `lsp/roo-context.lua` returns this, and `setup` registers it.
function M.lsp_config()
  return {
    cmd = server_cmd(),
    root_dir = function(bufnr, on_dir)
      on_dir(M.root_dir(vim.api.nvim_buf_get_name(bufnr)))
    end,
    init_options = M.config.settings,
    handlers = handlers,
    on_init = on_init,
  }
end

local function is_stopped(client)
  return call(client, "is_stopped")
end

--- A running roo-context client attached to the buffer (e.g. one `vim.lsp.enable` started), or nil.
local function attached_client(bufnr)
  local clients
  if vim.lsp.get_clients then
    clients = vim.lsp.get_clients({ bufnr = bufnr, name = M.name })
  else
    clients = vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  end
  for _, client in ipairs(clients) do
    if client.name == M.name and not is_stopped(client) then
      return client
    end
  end
  return nil
end

--- Starts (or reuses) the client for the buffer's workspace and attaches the buffer; returns the client id.
function M.start(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local attached = attached_client(bufnr)
  if attached then
    return attached.id
  end
  local root = M.root_dir(vim.api.nvim_buf_get_name(bufnr))
  local id = clients_by_root[root]
  if id and vim.lsp.get_client_by_id(id) and not is_stopped(vim.lsp.get_client_by_id(id)) then
    vim.lsp.buf_attach_client(bufnr, id)
    return id
  end
  local config = client_config(root)
  if vim.lsp.start then
    id = vim.lsp.start(config, { bufnr = bufnr, reuse_client = function() return false end })
  else
    id = vim.lsp.start_client(config)
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if not id then
    error("roo-context: could not start " .. table.concat(config.cmd, " "))
  end
  clients_by_root[root] = id
  return id
end

--- The running client of a buffer, waiting (up to the timeout) for `initialize` to finish.
function M.client(bufnr)
  local id = M.start(bufnr)
  local client = vim.lsp.get_client_by_id(id)
  local ready = vim.wait(M.config.timeout_ms, function()
    return client.initialized == true and client.server_capabilities ~= nil
  end, 10)
  if not ready then
    error("roo-context: server did not initialize within " .. M.config.timeout_ms .. " ms")
  end
  return client
end

--- The custom requests the server advertises.
function M.methods(bufnr)
  local caps = M.client(bufnr).server_capabilities
  local experimental = caps.experimental
  local rc = type(experimental) == "table" and experimental.rooContext or nil
  return (type(rc) == "table" and rc.methods) or {}
end

--- Whether the server answers `method` (a custom request).
function M.supports(method, bufnr)
  return vim.tbl_contains(M.methods(bufnr), method)
end

--- Synchronous request; returns the result or raises with the server's error message.
function M.request(method, params, bufnr)
  local client = M.client(bufnr)
  local response, err = call(client, "request_sync", method, params, M.config.timeout_ms, bufnr or 0)
  if not response then
    error(string.format("roo-context: %s failed: %s", method, tostring(err or "client stopped")))
  end
  if response.err then
    error(string.format("roo-context: %s: %s", method, response.err.message or vim.inspect(response.err)))
  end
  return response.result
end

local function text_document(bufnr)
  return { uri = vim.uri_from_bufnr(bufnr) }
end

--- `textDocument/foldingRange` of a buffer (nil when the server has no folding provider).
function M.folding_ranges(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.client(bufnr).server_capabilities.foldingRangeProvider then
    return nil
  end
  return M.request("textDocument/foldingRange", { textDocument = text_document(bufnr) }, bufnr) or {}
end

--- Creates manual folds in the current window from the server's folding ranges; returns how many.
function M.apply_folds(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local ranges = M.folding_ranges(bufnr)
  if not ranges then
    notify("the server offers no folding ranges", vim.log.levels.WARN)
    return 0
  end
  vim.wo.foldmethod = "manual"
  vim.cmd("normal! zE")
  -- Inner folds first would be swallowed; create outer ranges first (they come sorted by start).
  for _, range in ipairs(ranges) do
    vim.cmd(string.format("%d,%dfold", range.startLine + 1, range.endLine + 1))
  end
  vim.cmd("normal! zR")
  return #ranges
end

--- `textDocument/documentSymbol` of a buffer (nil when the server has no symbol provider).
function M.document_symbols(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.client(bufnr).server_capabilities.documentSymbolProvider then
    return nil
  end
  return M.request("textDocument/documentSymbol", { textDocument = text_document(bufnr) }, bufnr) or {}
end

local function cwd_of(bufnr)
  return M.root_dir(vim.api.nvim_buf_get_name(bufnr))
end

--- `roo/ignore/validateAccess` for paths (relative to the workspace folder or absolute).
function M.check(paths, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return M.request("roo/ignore/validateAccess", { paths = paths, cwd = cwd_of(bufnr) }, bufnr).results
end

--- `roo/ignore/validateCommand` for a shell command line run in the buffer's workspace folder.
--- The result's `verdict` is "allowed", "blocked" (see `blockedPath`) or "undecidable" (see
--- `construct`, `snippet`, `reason`): only "allowed" may run without asking the user.
function M.vet_command(command, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local result = M.request("roo/ignore/validateCommand", { command = command, cwd = cwd_of(bufnr) }, bufnr)
  if result and result.verdict == nil then
    -- an older server: two answers only
    result.verdict = (result.blockedPath ~= nil and result.blockedPath ~= vim.NIL) and "blocked" or "allowed"
  end
  return result
end

--- A one-line description of a validateCommand result and the log level to show it with.
function M.describe_verdict(command, result)
  if result.verdict == "allowed" then
    return command .. ": allowed", vim.log.levels.INFO
  elseif result.verdict == "blocked" then
    local by = type(result.blockedBy) == "table" and result.blockedBy or {}
    return string.format("%s: blocked, %s names a blocked path (%s)", command, tostring(result.blockedPath),
      tostring(by.pattern or by.kind or "?")), vim.log.levels.WARN
  end
  return string.format("%s: undecidable (%s at %s): %s; ask before running it", command, tostring(result.construct),
    tostring(result.snippet), tostring(result.reason)), vim.log.levels.WARN
end

--- `roo/fold/context` of the current file: its folded (definitions only) view, or nil when unsupported.
function M.folded_context(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.supports("roo/fold/context", bufnr) then
    return nil
  end
  return M.request("roo/fold/context", { paths = { vim.api.nvim_buf_get_name(bufnr) }, cwd = cwd_of(bufnr) }, bufnr)
end

--- `roo/mentions/parse` of a line of text, or nil when unsupported.
function M.parse_mentions(text, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.supports("roo/mentions/parse", bufnr) then
    return nil
  end
  return M.request("roo/mentions/parse", { text = text, cwd = cwd_of(bufnr) }, bufnr)
end

--- The user's edits of a task's tracked files as diffs (`roo/files/takeRecentlyModified` with
--- `withDiffs`): calls `deliver(text)` when there is something to tell the model and acknowledges
--- the notice (`roo/files/ackNotice`) only when `deliver` returns without error, so an undelivered
--- notice is repeated by the next call. `limits` (optional) are the take's `limits`. Returns the
--- take's result, or nil when unsupported.
function M.user_diffs(task_id, deliver, bufnr, limits)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.supports("roo/files/ackNotice", bufnr) then
    return nil
  end
  local notice = M.request("roo/files/takeRecentlyModified", { taskId = task_id, withDiffs = true, limits = limits }, bufnr)
  if type(notice.noticeId) == "string" and type(notice.text) == "string" and notice.text ~= "" then
    deliver(notice.text)
    M.request("roo/files/ackNotice", { taskId = task_id, noticeId = notice.noticeId }, bufnr)
  end
  return notice
end

--- Describes a summary verification (issue 19): nil when it passed, else the warning text and
--- level (which checks failed, how many items were missing, whether an addendum restored them).
function M.describe_verification(verification)
  if type(verification) ~= "table" or verification.passed ~= false then
    return nil
  end
  local failed = {}
  for _, check in ipairs(verification.checks or {}) do
    if check.passed == false and (check.skipped == nil or check.skipped == vim.NIL) then
      local count = check.missingCount or 0
      table.insert(failed, count > 0 and string.format("%s: %d missing", check.id, count) or check.id)
    end
  end
  local repair = verification.repaired and string.format("restored by a %d-token addendum", verification.addendumTokens or 0)
    or "not restored"
  return string.format("summary verification warning: %s (%s)", table.concat(failed, "; "), repair), vim.log.levels.WARN
end

--- `roo/context/verifySummary`: checks `summary` against `messages` (the history it replaces);
--- returns the result (`verification`, `addendum`, `refused`), or nil when unsupported.
function M.verify_summary(summary, messages, options, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.supports("roo/context/verifySummary", bufnr) then
    return nil
  end
  local params = vim.tbl_extend("force", { summary = summary, messages = messages, cwd = cwd_of(bufnr) }, options or {})
  local result = M.request("roo/context/verifySummary", params, bufnr)
  local text, level = M.describe_verification(result.verification)
  if text then
    notify(text, level)
  end
  return result
end

local function show_scratch(title, text)
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_name(buf, title)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, "\n", { plain = true }))
  vim.bo[buf].modifiable = false
end

--- Defines the user commands (:RooStart, :RooCheck, :RooVet, :RooFold, :RooFolds, :RooSymbols, :RooMentions,
--- :RooVerifySummary {history.json} (checks the current buffer as a summary), :RooStatus).
--- On 0.11+ also registers `vim.lsp.config["roo-context"]`; with `enable`, starts the client for
--- every buffer with a file type (`vim.lsp.enable` on 0.11+, a FileType autocommand before).
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
  if M.has_lsp_config() then
    vim.lsp.config(M.name, M.lsp_config())
    if M.config.enable then
      vim.lsp.enable(M.name)
    end
  elseif M.config.enable then
    vim.api.nvim_create_autocmd("FileType", {
      group = vim.api.nvim_create_augroup("roo_context_enable", { clear = true }),
      callback = function(args)
        if vim.bo[args.buf].buftype == "" then
          M.start(args.buf)
        end
      end,
    })
  end
  local command = vim.api.nvim_create_user_command
  command("RooStart", function()
    M.start(0)
  end, {})
  command("RooCheck", function(args)
    local path = args.args ~= "" and args.args or vim.api.nvim_buf_get_name(0)
    for _, r in ipairs(M.check({ path }, 0)) do
      if r.allowed then
        notify(r.path .. ": allowed")
      else
        local by = r.blockedBy or {}
        notify(string.format("%s: blocked by %s (%s)", r.path, tostring(by.pattern or by.kind), tostring(by.file or "implicit")),
          vim.log.levels.WARN)
      end
    end
  end, { nargs = "?", complete = "file" })
  command("RooVet", function(args)
    local result = M.vet_command(args.args, 0)
    notify(M.describe_verdict(args.args, result))
  end, { nargs = "+" })
  command("RooFold", function()
    local folded = M.folded_context(0)
    if not folded then
      return notify("this server has no roo/fold/context", vim.log.levels.WARN)
    end
    show_scratch("roo-context://folded/" .. vim.fn.expand("%:t"), folded.content ~= "" and folded.content or "(no definitions)")
  end, {})
  command("RooFolds", function()
    notify(M.apply_folds(0) .. " folds")
  end, {})
  command("RooSymbols", function()
    local symbols = M.document_symbols(0)
    if not symbols then
      return notify("this server has no document symbols", vim.log.levels.WARN)
    end
    -- The encoding argument is required from 0.11 on and ignored before.
    vim.fn.setloclist(0, vim.lsp.util.symbols_to_items(symbols, 0, M.client(0).offset_encoding))
    vim.cmd("lopen")
  end, {})
  command("RooMentions", function()
    local parsed = M.parse_mentions(vim.api.nvim_get_current_line(), 0)
    if not parsed then
      return notify("this server has no roo/mentions/parse", vim.log.levels.WARN)
    end
    show_scratch("roo-context://mentions", vim.inspect(parsed))
  end, {})
  command("RooVerifySummary", function(args)
    local history = vim.fn.json_decode(table.concat(vim.fn.readfile(args.args), "\n"))
    local summary = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    local result = M.verify_summary(summary, history, {}, 0)
    if not result then
      return notify("this server has no roo/context/verifySummary", vim.log.levels.WARN)
    end
    local addendum = result.addendum ~= nil and result.addendum ~= vim.NIL and result.addendum or "(no addendum needed)"
    show_scratch("roo-context://verification", vim.inspect(result.verification) .. "\n\n" .. addendum)
  end, { nargs = 1, complete = "file" })
  command("RooStatus", function()
    show_scratch("roo-context://status", vim.inspect(M.request("roo/workspace/status", {}, 0)))
  end, {})
end

return M
