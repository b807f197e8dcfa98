"""``quotecheck lsp``: the language server for editors (the server itself is quotecheck.lsp)."""

from __future__ import annotations


def run_server(*, stdio: bool) -> int:
    """Serve LSP over standard input and output until the client exits (``--stdio`` is the
    only transport; it is accepted because editors pass it)."""
    from quotecheck.lsp.server import serve  # pygls is imported by this command only

    return serve()
