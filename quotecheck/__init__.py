"""quotecheck: a shell-escaping linter that models every layer a command passes through."""

__version__ = "0.1.0"
