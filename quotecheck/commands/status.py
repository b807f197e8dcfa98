"""How a command ends: its exit status, or a UsageProblem (reported on stderr, status 2)."""

EXIT_OK = 0  # nothing reported
EXIT_FINDINGS = 1  # findings at or above the chosen severity
EXIT_ERROR = 2  # a usage, configuration or input error


class UsageProblem(Exception):
    """A mistake in how quotecheck was called: reported on stderr, exit status 2."""
