"""`python -m quotecheck` runs the command-line interface."""

import sys

from quotecheck.cli import main

sys.exit(main())
