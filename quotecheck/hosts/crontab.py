"""A crontab as a host: each entry's command, as cron hands it to the shell.

What cron does (crontab(5) of cronie and of Debian's Vixie cron, quoted in
tests/hosts/test_crontab.py; there is no cron daemon on the test machines):

* an entry is five time fields (or ``@reboot``, ``@daily``...) and the command; in the
  system crontab (``/etc/crontab``) and in ``/etc/cron.d`` files a user name comes before it;
* ``NAME = value`` lines set the environment, ``SHELL`` the shell (default ``/bin/sh``), which
  runs the command as ``SHELL -c COMMAND``;
* "Percent-signs (%) in the command, unless escaped with backslash (\\\\), will be changed
  into newline characters, and all data after the first % will be sent to the command as
  standard input": the command ends at the first ``%``, and ``\\%`` is a ``%``.
"""

from __future__ import annotations

from pathlib import PurePath

from quotecheck.hosts.model import HostFile, HostReference, HostText, Launch
from quotecheck.lazy_regex import lazy_compile

_ENVIRONMENT = lazy_compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\Z")
_NICKNAMES = frozenset({"@reboot", "@yearly", "@annually", "@monthly", "@weekly", "@daily",
                        "@midnight", "@hourly"})
_TIME_FIELD = lazy_compile(r"[0-9*/,\-A-Za-z?LW#]+\Z")


def is_system_crontab(path: PurePath | None) -> bool:
    """/etc/crontab and the files of a cron.d directory name the user of each entry."""
    if path is None:
        return False
    return path.parent.name == "cron.d" or (path.name == "crontab" and path.parent.name == "etc")


def _fields(line: str, count: int) -> tuple[list[tuple[int, int]], int] | None:
    """The spans of the first ``count`` blank-separated fields and where the rest starts."""
    spans: list[tuple[int, int]] = []
    at = 0
    for _ in range(count):
        while at < len(line) and line[at] in " \t":
            at += 1
        start = at
        while at < len(line) and line[at] not in " \t":
            at += 1
        if start == at:
            return None
        spans.append((start, at))
    while at < len(line) and line[at] in " \t":
        at += 1
    return spans, at


def read_crontab(source: str, system: bool = False) -> HostFile:
    launches: list[Launch] = []
    percents: list[HostReference] = []
    shell = "/bin/sh"
    at = 0
    for line in source.split("\n"):
        start, at = at, at + len(line) + 1
        line = line.rstrip("\r")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        env = _ENVIRONMENT.match(line)
        if env is not None and not stripped.startswith(("@", "*")) and \
                not stripped[0].isdigit():
            if env.group(1) == "SHELL":
                shell = env.group(2).strip().strip("'\"") or shell
            continue
        n = 1 if stripped.split()[0] in _NICKNAMES else 5
        got = _fields(line, n + (1 if system else 0))
        if got is None or got[1] >= len(line):
            continue
        spans, command_at = got
        if n == 5 and not all(_TIME_FIELD.match(line[a:b]) for a, b in spans[:5]):
            continue  # not an entry this reader knows: left alone
        chars: list[str] = []
        offsets: list[int | None] = []
        k = command_at
        while k < len(line):
            ch = line[k]
            if ch == "\\" and k + 1 < len(line) and line[k + 1] == "%":
                chars.append("%")
                offsets.append(start + k + 1)
                k += 2
                continue
            if ch == "%":
                percents.append(HostReference((start + k, start + k + 1), "%", "%", False))
                break  # the rest is the command's standard input
            chars.append(ch)
            offsets.append(start + k)
            k += 1
        text = "".join(chars)
        if text.strip():
            launches.append(Launch("crontab entry", (start + command_at, start + len(line)),
                                   shell=(shell, "-c"), text=HostText(text, offsets)))
    return HostFile("crontab", tuple(launches), references=tuple(percents))
