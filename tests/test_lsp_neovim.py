"""A real editor: headless Neovim's built-in LSP client attached to ``quotecheck lsp``.

Neovim opens the seed script, starts the server (``vim.lsp.start``; Neovim 0.7, Debian 12's,
has ``vim.lsp.start_client`` and ``buf_attach_client`` instead), waits for the diagnostics
(``vim.diagnostic.get``), asks for a hover on ``ssh`` and the code actions of QC208, and writes
what it got to a file this test reads. Every wait is bounded; the processes started (Neovim,
and the server, whose pid a wrapper writes down) are stopped by pid if they outlive the test.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness.lsp_client import REPO, server_env

SEED = REPO / "fixtures" / "dflash" / "restart.sh"
NVIM = shutil.which("nvim")

INIT_LUA = r"""
local lines = {}
local function add(line) table.insert(lines, line) end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(vim.env.QC_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  local config = {
    name = "quotecheck",
    cmd = vim.fn.json_decode(vim.env.QC_CMD),
    root_dir = vim.env.QC_ROOT,
  }
  if vim.lsp.start then
    vim.lsp.start(config)
  else
    local id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, id)
  end
  local got = vim.wait(60000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  add("waited " .. tostring(got))
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    add(string.format("diagnostic %s %d:%d %s", tostring(d.code), d.lnum, d.col,
                      tostring(d.source)))
  end
  local uri = vim.uri_from_bufnr(bufnr)
  local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = uri }, position = { line = 0, character = 1 } }, 30000)
  for _, reply in pairs(hover or {}) do
    if reply.result then
      for _, l in ipairs(vim.split(reply.result.contents.value, "\n")) do add("hover " .. l) end
    end
  end
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == "QC208" then
      local lsp = d.user_data and d.user_data.lsp or {}
      local range = { start = { line = d.lnum, character = d.col },
                      ["end"] = { line = d.end_lnum, character = d.end_col } }
      local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
        textDocument = { uri = uri }, range = range,
        context = { diagnostics = { { range = range, message = d.message, code = d.code,
                                      severity = d.severity, source = d.source,
                                      data = lsp.data } } } }, 30000)
      for _, reply in pairs(replies or {}) do
        if reply.err then add("error " .. vim.inspect(reply.err)) end
        for _, action in ipairs(reply.result or {}) do
          add("action " .. action.title .. " edit=" .. tostring(action.edit ~= nil))
        end
      end
    end
  end
end

local ok, err = pcall(main)
if not ok then add("error " .. tostring(err)) end
vim.fn.writefile(lines, vim.env.QC_OUT)
vim.cmd("qa!")
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _stop(pid: int, timeout: float = 10.0) -> None:
    """Let the process ``pid`` (started by this test) end, or kill it."""
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(NVIM is None, reason="needs Neovim (Debian's neovim; .ci/run installs it)")
def test_neovim_shows_the_seed_diagnostics_hover_and_fixes(tmp_path: Path) -> None:
    assert NVIM is not None
    init = tmp_path / "init.lua"
    init.write_text(INIT_LUA)
    out = tmp_path / "out.txt"
    pidfile = tmp_path / "server.pid"
    script = tmp_path / "restart.sh"
    script.write_text(SEED.read_text())
    # A wrapper that writes the server's pid down, so the test can stop it by pid.
    wrapper = ["sh", "-c", 'echo $$ > "$0"; exec "$@"', str(pidfile),
               sys.executable, "-m", "quotecheck", "lsp"]
    env = server_env()
    env.update(QC_FILE=str(script), QC_OUT=str(out), QC_ROOT=str(tmp_path),
               QC_CMD=json.dumps(wrapper), HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    nvim = subprocess.Popen([NVIM, "--headless", "--clean", "-i", "NONE", "-u", str(init)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    try:
        try:
            _, err = nvim.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            nvim.kill()
            _, err = nvim.communicate(timeout=30)
            pytest.fail("Neovim did not finish within 180 s")
    finally:
        if nvim.poll() is None:
            nvim.kill()
            nvim.wait(30)
        if pidfile.exists():
            _stop(int(pidfile.read_text().split()[0]))
    assert out.exists(), err.decode("utf-8", "replace")
    lines = out.read_text().splitlines()
    assert "waited true" in lines, lines
    assert not [x for x in lines if x.startswith("error ")], lines
    diagnostics = [x.split()[1:] for x in lines if x.startswith("diagnostic ")]
    assert ["QC201", "1:14", "quotecheck"] in diagnostics
    assert ["QC208", "0:0", "quotecheck"] in diagnostics
    hover = "\n".join(x[len("hover "):] for x in lines if x.startswith("hover "))
    for command in ("`ps`", "`grep`", "`awk`", "`xargs`", "`nohup`"):
        assert command in hover
    actions = [x for x in lines if x.startswith("action ")]
    assert any("BatchMode=yes" in a and a.endswith("edit=true") for a in actions), actions
