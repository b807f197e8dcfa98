"""The commands, one module each, independent of how the command line is read.

``explain``, ``check``, ``fix``, ``quote``, ``rules`` (``rules`` and ``rule``) and ``version``
each offer the function the command line calls, with one keyword argument per option (see
``cli_options.py``); it writes to the standard streams and returns the exit status, or raises
``status.UsageProblem``. ``check`` and ``fix`` share ``request.py`` (what was asked),
``inputs.py`` (what to read) and ``settings.py`` (the configuration and ``Options`` per input).
"""
