-- Headless Neovim against the real roo-context binary: starts the client, checks access, folding
-- ranges, document symbols, the folded view, mentions (when advertised) and a reload notification.
-- Exits non-zero on the first failure. Run through test/run.sh.

local script = debug.getinfo(1, "S").source:sub(2)
local plugin_dir = vim.fn.fnamemodify(script, ":p:h:h")
vim.opt.runtimepath:prepend(plugin_dir)

local failures = 0
-- Every deprecated API the client calls (0.11 reports field-call client methods, start_client,
-- symbols_to_items without an encoding, ...): the last case asserts there are none.
local deprecated = {}
local original_deprecate = vim.deprecate
vim.deprecate = function(name, ...)
  table.insert(deprecated, name)
  return original_deprecate(name, ...)
end
local function log(text)
  io.stdout:write(text .. "\n")
end
local function case(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    log("ok   " .. name)
  else
    failures = failures + 1
    log("FAIL " .. name .. "\n" .. tostring(err))
  end
end
local function skip(name, why)
  log("skip " .. name .. ": " .. why)
end
local function eq(actual, expected, what)
  if not vim.deep_equal(actual, expected) then
    error(string.format("%s: expected %s, got %s", what, vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

local binary = os.getenv("ROO_CONTEXT_BIN") or vim.fn.fnamemodify(plugin_dir .. "/../../target/debug/roo-context", ":p")
if vim.fn.executable(binary) ~= 1 then
  io.stderr:write("roo-context binary not found at " .. binary .. " (cargo build -p roo-context or set ROO_CONTEXT_BIN)\n")
  vim.cmd("cquit 2")
end

local root = vim.fn.resolve(vim.fn.tempname())
local function write(relative, lines)
  local path = root .. "/" .. relative
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  vim.fn.writefile(lines, path)
end
write(".rooignore", { "secret/", "*.env" })
write("secret/key.txt", { "hunter2" })
write("src/app.ts", {
  'import { readFileSync } from "node:fs";',
  "",
  "export class Greeter {",
  "  constructor(private readonly name: string) {}",
  "",
  "  greet(): string {",
  '    const text = readFileSync("greeting.txt", "utf8");',
  "    return text + this.name;",
  "  }",
  "}",
  "",
  "export function shout(words: string): string {",
  "  const upper = words.toUpperCase();",
  '  return upper + "!";',
  "}",
})

local roo = require("roo_context")
vim.env.ROO_CONTEXT_PATH = nil
roo.setup({ cmd = { binary }, settings = { logLevel = "warn" } })
vim.cmd("edit " .. vim.fn.fnameescape(root .. "/src/app.ts"))

log("neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. " using "
  .. (vim.lsp.start and "vim.lsp.start" or "vim.lsp.start_client")
  .. (roo.has_lsp_config() and ", vim.lsp.config/vim.lsp.enable" or ""))

case("client starts, initializes and advertises custom methods", function()
  local client = roo.client(0)
  eq(client.name, "roo-context", "client name")
  assert(roo.supports("roo/ignore/validateAccess", 0), "validateAccess advertised: " .. vim.inspect(roo.methods(0)))
  eq(roo.root_dir(vim.api.nvim_buf_get_name(0)), root, "workspace folder found by .rooignore")
end)

case("access check allows source and blocks ignored paths with the rule", function()
  local results = roo.check({ "src/app.ts", "secret/key.txt", "prod.env" }, 0)
  eq(vim.tbl_map(function(r) return r.allowed end, results), { true, false, false }, "allowed flags")
  eq(results[2].blockedBy.pattern, "secret/", "blocking pattern")
  assert(results[2].toolError:find("secret/key.txt", 1, true), "tool error names the path")
end)

case("command vetting has three verdicts", function()
  local allowed = roo.vet_command("cat src/app.ts", 0)
  eq(allowed.verdict, "allowed", "plain read")
  local blocked = roo.vet_command("while true; do cat secret/key.txt; done", 0)
  eq(blocked.verdict, "blocked", "reader inside a loop")
  eq(blocked.blockedPath, "secret/key.txt", "argument as typed")
  local unknown = roo.vet_command("cat $(echo secret/key.txt)", 0)
  eq(unknown.verdict, "undecidable", "substitution in an operand")
  eq(unknown.construct, "commandSubstitution", "construct named")
  local text = roo.describe_verdict("x", unknown)
  assert(text:find("undecidable", 1, true) and text:find("ask", 1, true), text)
  vim.cmd("RooVet cat secret/key.txt")
end)

case(":RooCheck runs", function()
  vim.cmd("RooCheck secret/key.txt")
end)

if roo.client(0).server_capabilities.foldingRangeProvider then
  case("folding ranges from the server become folds", function()
    local ranges = roo.folding_ranges(0)
    assert(#ranges >= 2, "ranges: " .. vim.inspect(ranges))
    local starts = vim.tbl_map(function(r) return r.startLine end, ranges)
    assert(vim.tbl_contains(starts, 2), "class Greeter folds from line 3: " .. vim.inspect(starts))
    local count = roo.apply_folds(0)
    eq(count, #ranges, "folds created")
    assert(vim.fn.foldlevel(4) >= 1, "line 4 is inside a fold")
    assert(vim.fn.foldlevel(1) == 0, "the import line is not folded")
  end)
else
  skip("folding ranges", "server advertises no foldingRangeProvider")
end

if roo.client(0).server_capabilities.documentSymbolProvider then
  case("document symbols list the definitions", function()
    local symbols = roo.document_symbols(0)
    eq(vim.tbl_map(function(s) return s.name end, symbols), { "Greeter", "shout" }, "top-level symbols")
    local children = vim.tbl_map(function(s) return s.name end, symbols[1].children or {})
    assert(vim.tbl_contains(children, "greet"), "Greeter.greet: " .. vim.inspect(children))
  end)
else
  skip("document symbols", "server advertises no documentSymbolProvider")
end

if roo.supports("roo/fold/context", 0) then
  case("folded context of the current file (:RooFold)", function()
    local folded = roo.folded_context(0)
    eq(folded.filesProcessed, 1, "files processed")
    assert(folded.content:find("class Greeter", 1, true), folded.content)
    assert(not folded.content:find("toUpperCase", 1, true), "bodies are folded away")
    vim.cmd("RooFold")
    local shown = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    assert(shown:find("function shout", 1, true), shown)
    vim.cmd("close")
  end)
else
  skip("folded context", "server does not advertise roo/fold/context")
end

if roo.supports("roo/mentions/parse", 0) then
  case("mentions of the current line (:RooMentions)", function()
    vim.api.nvim_buf_set_lines(0, 0, 1, false, { "// see @/src/app.ts and @problems" })
    local parsed = roo.parse_mentions(vim.api.nvim_get_current_line(), 0)
    local text = vim.inspect(parsed)
    assert(text:find("src/app.ts", 1, true), text)
    vim.cmd("RooMentions")
    vim.cmd("close")
    vim.cmd("silent! undo")
  end)
else
  skip("mentions", "server does not advertise roo/mentions/parse")
end

if roo.supports("roo/files/ackNotice", 0) then
  case("a user edit comes back as a diff and is acknowledged once delivered", function()
    local storage = vim.fn.resolve(vim.fn.tempname())
    vim.fn.mkdir(storage, "p")
    write("src/diffed.ts", { "one", "two", "three" })
    roo.request("roo/files/track", { taskId = "nv", storageDir = storage, path = "src/diffed.ts", source = "read_tool" }, 0)
    local before = #roo.notifications
    write("src/diffed.ts", { "one", "TWO", "three" })
    local change
    local arrived = vim.wait(20000, function()
      for i = before + 1, #roo.notifications do
        local n = roo.notifications[i]
        if n.method == "roo/files/didChange" and n.params.path == "src/diffed.ts" then
          change = n
          return true
        end
      end
      return false
    end, 20)
    assert(arrived, "no roo/files/didChange: " .. vim.inspect(roo.notifications))
    -- The notification carries the stat against what the agent read, and shows it.
    eq(change.params.diffStat, { added = 1, removed = 1, hunks = 1 }, "didChange diffStat")
    eq(roo.describe_notification(change.method, change.params),
      "src/diffed.ts was modified (+1 -1, 1 hunk) outside the agent (task nv)", "described")
    -- A delivery that fails is not acknowledged: the next call repeats the notice.
    local patient = { timeoutMs = 10000 } -- no test depends on time
    local failed = pcall(roo.user_diffs, "nv", function() error("condensed away") end, 0, patient)
    eq(failed, false, "the failed delivery raised")
    local delivered = {}
    local notice = roo.user_diffs("nv", function(text) table.insert(delivered, text) end, 0, patient)
    eq(notice.changes[1].diff, "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n", "the diff")
    -- No (+1 -1) after the path: the hunk header carries the counts.
    assert(delivered[1]:find("\n## src/diffed.ts\n```diff\n@@ -1,3 +1,3 @@\n", 1, true), vim.inspect(delivered))
    eq(roo.user_diffs("nv", function() error("nothing to deliver") end, 0, patient).paths, {}, "acknowledged")
    -- A partial read (a line range) of a file the agent has not seen whole passes through: its
    -- next change is flagged partial. (A partial read of a file with a baseline keeps that
    -- baseline, the agent's last whole view, and is not flagged.)
    write("src/part.ts", { "a", "b", "c" })
    roo.request("roo/files/track", { taskId = "nv", storageDir = storage, path = "src/part.ts",
      source = "read_tool", partial = true }, 0)
    before = #roo.notifications
    write("src/part.ts", { "a", "b", "C" })
    assert(vim.wait(20000, function()
      for i = before + 1, #roo.notifications do
        local n = roo.notifications[i]
        if n.method == "roo/files/didChange" and n.params.path == "src/part.ts" then
          return true
        end
      end
      return false
    end, 20), "no roo/files/didChange for src/part.ts")
    local partial = roo.user_diffs("nv", function() end, 0, patient)
    eq(partial.changes[1].path, "src/part.ts", "the partial file's change")
    eq(partial.changes[1].partial, true, "partial flag")
    roo.request("roo/files/disposeTask", { taskId = "nv" }, 0)
    vim.fn.delete(storage, "rf")
  end)
else
  skip("user diffs", "server does not advertise roo/files/ackNotice")
end

case("the folder watch arrives as roo/workspace/didWatch", function()
  local arrived = vim.wait(20000, function()
    for _, n in ipairs(roo.notifications) do
      if n.method == "roo/workspace/didWatch" then
        return n
      end
    end
    return false
  end, 20)
  assert(arrived, "no roo/workspace/didWatch: " .. vim.inspect(roo.notifications))
  local watching
  for _, n in ipairs(roo.notifications) do
    if n.method == "roo/workspace/didWatch" then watching = n end
  end
  eq(watching.params.folders[1].recursive, true, "watched recursively")
  local text, level = roo.describe_notification(watching.method, watching.params)
  eq(level, vim.log.levels.DEBUG, "quiet when watched")
  assert(text:find("watching", 1, true), text)
  local _, warn = roo.describe_notification("roo/workspace/didWatch",
    { folders = { { folder = "/big", recursive = false } } })
  eq(warn, vim.log.levels.WARN, "loud when not watched")
end)

case("a changed .rooignore arrives as roo/ignore/didReload", function()
  local before = #roo.notifications
  write(".rooignore", { "secret/", "*.env", "src/" })
  local arrived = vim.wait(20000, function()
    for i = before + 1, #roo.notifications do
      local n = roo.notifications[i]
      if n.method == "roo/ignore/didReload" and n.params.ruleCount and n.params.ruleCount > 0 then
        return true
      end
    end
    return false
  end, 20)
  assert(arrived, "no roo/ignore/didReload: " .. vim.inspect(roo.notifications))
  eq(roo.check({ "src/app.ts" }, 0)[1].allowed, false, "new rule in force")
end)

case("a summary that lost an edited file gets a verification warning and an addendum", function()
  local history = {
    { role = "user", content = "<task>Add a Circle shape. Never change the public API.</task>" },
    { role = "assistant", content = { { type = "tool_use", id = "t1", name = "write_to_file", input = { path = "src/shapes.ts" } } } },
    { role = "user", content = { { type = "tool_result", tool_use_id = "t1", content = "ok" } } },
  }
  local result = roo.verify_summary("Added a Circle shape. Never change the public API.", history, { verify = { checks = { "files", "constraints" } } }, 0)
  assert(result, "server advertises roo/context/verifySummary")
  eq(result.verification.passed, false, "verification fails")
  local text = roo.describe_verification(result.verification)
  eq(text, "summary verification warning: files: 1 missing (restored by a " .. result.verification.addendumTokens .. "-token addendum)", "warning")
  assert(result.addendum:find("- src/shapes.ts (edited by you)", 1, true), result.addendum)
  local ok = roo.verify_summary("Added src/shapes.ts. Never change the public API.", history, { verify = { checks = { "files", "constraints" } } }, 0)
  eq(roo.describe_verification(ok.verification), nil, "passes")
end)

case("host requests get a clear not-available answer", function()
  local client = roo.client(0)
  local result, err = client.handlers["roo/host/summarize"](nil, {}, { method = "roo/host/summarize" })
  eq(result, nil, "no result")
  assert(err.message:find("not available in Neovim", 1, true), vim.inspect(err))
end)

-- A second file, opened with `enable` set: the client attaches without M.start being called,
-- through vim.lsp.enable on 0.11+ and the FileType autocommand before.
case("enable attaches new buffers (" .. (roo.has_lsp_config() and "vim.lsp.enable" or "FileType autocommand") .. ")", function()
  write("src/other.ts", { "export function other(): number {", "  const a = 1;", "  const b = 2;", "  return a + b;", "}" })
  vim.cmd("filetype on")
  roo.setup({ cmd = { binary }, settings = { logLevel = "warn" }, enable = true })
  local started = roo.start
  local calls = 0
  roo.start = function(...)
    calls = calls + 1
    return started(...)
  end
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/src/other.ts"))
  local buf = vim.api.nvim_get_current_buf()
  local attached = vim.wait(10000, function()
    local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.tbl_values(vim.lsp.buf_get_clients(buf))
    for _, c in ipairs(clients) do
      if c.name == roo.name then
        return true
      end
    end
    return false
  end, 20)
  roo.start = started
  assert(attached, "no roo-context client attached to src/other.ts")
  if roo.has_lsp_config() then
    eq(calls, 0, "vim.lsp.enable started it, not M.start")
    local resolved = vim.lsp.config[roo.name]
    eq(resolved.cmd, { binary }, "vim.lsp.config entry has the setup's cmd")
    local file = vim.api.nvim_get_runtime_file("lsp/" .. roo.name .. ".lua", false)
    eq(#file, 1, "lsp/roo-context.lua on the runtimepath")
    eq(type(dofile(file[1]).root_dir), "function", "lsp/roo-context.lua returns the config")
  else
    assert(calls >= 1, "the FileType autocommand called M.start")
  end
  eq(roo.check({ "src/other.ts", "secret/key.txt" }, buf)[2].allowed, false, "the attached client answers")
end)

case("no deprecated Neovim API was used", function()
  eq(deprecated, {}, "vim.deprecate calls")
end)

for _, c in ipairs(vim.lsp.get_clients and vim.lsp.get_clients({ name = roo.name }) or vim.lsp.get_active_clients()) do
  if vim.fn.has("nvim-0.11") == 1 then
    c:stop()
  else
    c.stop()
  end
end
vim.wait(5000, function()
  return #(vim.lsp.get_clients and vim.lsp.get_clients({ name = roo.name }) or vim.lsp.get_active_clients()) == 0
end, 20)
vim.fn.delete(root, "rf")
log(failures == 0 and "all neovim tests passed" or (failures .. " neovim test(s) failed"))
vim.cmd(failures == 0 and "qall!" or "cquit 1")
