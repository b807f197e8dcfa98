"""``quotecheck --version``."""

import sys

from quotecheck import __version__
from quotecheck.commands.status import EXIT_OK


def run() -> int:
    sys.stdout.write(f"quotecheck {__version__}\n")
    sys.stdout.flush()
    return EXIT_OK
