"""quotecheck/rules/crosslayer/sed_text.py: where a sed script stands at each character,
checked against GNU sed on the same scripts."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from quotecheck.rules.crosslayer.sed_text import at_address, reads_as_command, states

SCRIPTS = ["$d", "${p}", "$!N", "$PFLOGSUMM_RECIPIENT", "${PFLOGSUMM_RECIPIENT}", "$dx", "$q5",
           "$a end", "1,$s/a/b/", "$x;$G", "$s|}|x|", "$y/ab/cd/", "$=", "$ p", "$l 5",
           "${x:-d}", "$N;P;D", "$Pq", "/a/,$ d", "# note\n$d", "s/a/b/g;$d"]


@pytest.mark.skipif(shutil.which("sed") is None, reason="needs sed")
@pytest.mark.parametrize("script", SCRIPTS)
def test_reads_as_command_agrees_with_sed(script: str) -> None:
    accepted = subprocess.run(["sed", "-n", script], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=10).returncode == 0
    assert reads_as_command(script, 0, len(script)) == accepted
    assert len(states(script)) == len(script) + 1


@pytest.mark.parametrize(("script", "where", "address"), [
    ("$d", 0, True),
    ("1,$p", 2, True),
    ("s/a/b/;$d", 7, True),
    ("/x/,$ d\n$a end", 8, True),
    # docker-mailserver/docker-mailserver c9b015ddc869b277c16dd20ef4a70e595c72d022
    # target/scripts/startup/setup.d/log.sh:52: a `}` in an `s|...|` pattern is no block.
    ("s|}|  x\\n    run ${H} ${P}\\n|", 22, False),
    ("s,%USER%,$USER,g", 9, False),
    ("/^$/d", 2, False),
    ("a text $x", 7, False),
])
def test_at_address(script: str, where: int, address: bool) -> None:
    assert script[where] == "$"
    assert at_address(script, where) == address


def test_after_a_value_nothing_is_known_up_to_the_end_of_the_command() -> None:
    # `${x}` may be an address (`1,`) or a command: what `$d` is then is not shown.
    script = "${x}$d"
    assert not at_address(script, 4, opaque=set(range(4)))
    assert at_address("${x};$d", 5, opaque=set(range(4)))
