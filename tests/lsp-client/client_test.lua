-- Drives `ast-outline lsp` with Neovim's built-in LSP client (Neovim 0.7 or
-- later, headless). Run by cli/tests/lsp_neovim.rs:
--
--   AST_OUTLINE_BIN=... PROJECT=... nvim --headless -u NONE -i NONE -n \
--     -c "luafile tests/lsp-client/client_test.lua"
--
-- PROJECT is the Python project the test writes (pkg/shapes.py with class
-- Shape and function area; app.py importing and calling area). The script
-- starts the client on it, opens pkg/shapes.py and app.py in buffers (Neovim
-- sends didOpen), then with synchronous requests asks: documentSymbol of
-- pkg/shapes.py, definition at the call of area in app.py, references of area;
-- then inserts a line calling area into the app.py buffer through Neovim's API
-- (Neovim sends didChange; the file is not saved) and asks references again,
-- at the new call; then workspace/symbol. It prints one JSON object with the
-- raw results (and the server's exit code after shutdown) on stdout, or to
-- the file RESULT names if set, and quits with 0. On a timeout or an error answer it prints
-- "client_test.lua: FAILED: ..." on stderr and quits with 1.

-- Each request's timeout, and the wait for initialization, in milliseconds.
local TIMEOUT_MS = 20000

local function fail(message)
  io.stderr:write("client_test.lua: FAILED: " .. message .. "\n")
  io.stderr:flush()
  vim.cmd("cquit 1")
end

local function getenv(name)
  local value = os.getenv(name)
  if value == nil or value == "" then
    error("the environment variable " .. name .. " is not set")
  end
  return value
end

local function main()
  local bin = getenv("AST_OUTLINE_BIN")
  local project = getenv("PROJECT")
  local result_path = os.getenv("RESULT")

  local exit_code = nil
  local client_id = vim.lsp.start_client({
    name = "ast-outline",
    cmd = { bin, "lsp" },
    root_dir = project,
    on_exit = function(code, _signal, _id)
      exit_code = code
    end,
  })
  if client_id == nil then
    error("vim.lsp.start_client did not start " .. bin)
  end

  -- Open both files in buffers and attach the client: it sends didOpen
  -- for each once initialized.
  local function open(relative)
    vim.cmd("edit " .. vim.fn.fnameescape(project .. "/" .. relative))
    local buf = vim.api.nvim_get_current_buf()
    if not vim.lsp.buf_attach_client(buf, client_id) then
      error("could not attach the client to " .. relative)
    end
    return buf
  end
  local shapes = open("pkg/shapes.py")
  local app = open("app.py")

  local client = vim.lsp.get_client_by_id(client_id)
  local ready = vim.wait(TIMEOUT_MS, function()
    return client.initialized == true or exit_code ~= nil
  end, 10)
  if exit_code ~= nil then
    error("the server exited with code " .. exit_code .. " before initializing")
  end
  if not ready then
    error("the server did not answer initialize in " .. TIMEOUT_MS .. " ms")
  end

  -- One request, synchronously; its result (an error answer or a timeout
  -- fails the test).
  local function request(method, params, buf)
    local answer, err = client.request_sync(method, params, TIMEOUT_MS, buf)
    if answer == nil then
      error(method .. ": no answer (" .. tostring(err or "request not sent") .. ")")
    end
    if answer.err ~= nil then
      error(method .. ": error answer: " .. vim.inspect(answer.err))
    end
    if answer.result == nil then
      return vim.NIL
    end
    return answer.result
  end

  local shapes_uri = vim.uri_from_bufnr(shapes)
  local app_uri = vim.uri_from_bufnr(app)

  local out = {}
  out.server_name = client.name
  out.position_encoding = client.server_capabilities.positionEncoding
  out.offset_encoding = client.offset_encoding

  out.document_symbols = request("textDocument/documentSymbol", {
    textDocument = { uri = shapes_uri },
  }, shapes)

  -- app.py line 5 is `    label = "𝄞"; total = area(3.0, 2.0)`: the
  -- clef is 2 UTF-16 code units, so `area` starts at UTF-16 column 26
  -- (character 25); ask inside the name, between "ar" and "ea".
  out.definition = request("textDocument/definition", {
    textDocument = { uri = app_uri },
    position = { line = 5, character = 28 },
  }, app)

  -- References of area, asked at its name in pkg/shapes.py (line 11,
  -- `def area(`).
  local references_params = {
    textDocument = { uri = shapes_uri },
    position = { line = 11, character = 5 },
    context = { includeDeclaration = true },
  }
  out.references_before = request("textDocument/references", references_params, shapes)

  -- Edit the app.py buffer (not the file): a new call of area before line
  -- 5. Neovim sends the change (incremental) before the next request made
  -- for that buffer (it debounces changes, and a request flushes only its
  -- own buffer's), so references are asked again from app.py, at the new
  -- call (`    small = area(0.5)`, inside `area`).
  vim.api.nvim_buf_set_lines(app, 5, 5, false, { "    small = area(0.5)" })
  out.app_modified = vim.api.nvim_buf_get_option(app, "modified")
  out.app_lines = vim.api.nvim_buf_get_lines(app, 0, -1, false)
  out.references_after = request("textDocument/references", {
    textDocument = { uri = app_uri },
    position = { line = 5, character = 14 },
    context = { includeDeclaration = true },
  }, app)

  out.workspace_symbols = request("workspace/symbol", { query = "scale" }, shapes)

  -- Shut the server down (shutdown, then exit) and wait for it to end.
  client.stop()
  local stopped = vim.wait(TIMEOUT_MS, function()
    return exit_code ~= nil
  end, 10)
  if not stopped then
    error("the server did not exit after shutdown in " .. TIMEOUT_MS .. " ms")
  end
  out.server_exit_code = exit_code

  local json = vim.fn.json_encode(out)
  if result_path ~= nil and result_path ~= "" then
    local file = assert(io.open(result_path, "w"))
    file:write(json, "\n")
    file:close()
  else
    io.stdout:write(json, "\n")
    io.stdout:flush()
  end
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail(tostring(err))
else
  vim.cmd("qa!")
end
