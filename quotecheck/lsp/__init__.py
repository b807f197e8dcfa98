"""``quotecheck lsp``: the language server for editors.

Only ``server.py`` imports pygls (about half a second of start-up); the other modules here are
plain Python over the checker, so the CLI and the tests can use them without it. Every use of
the rest of quotecheck goes through ``engine.py``.
"""
