"""The Compose reader against the Compose file reference (docs.docker.com; quoted in each
test): no Docker runs here. A string command is split as Python's shlex splits a POSIX
command line, which the test uses as the reference for quotes and escapes."""

from __future__ import annotations

import shlex
from pathlib import PurePath

from hypothesis import given, settings
from hypothesis import strategies as st

from quotecheck.hosts.compose import read_compose, split_words
from quotecheck.hosts.kinds import host_format
from quotecheck.hosts.model import HostText


def service(body: str) -> str:
    return f"services:\n  app:\n    image: x\n{body}"


def argv(body: str) -> list[str]:
    [launch] = read_compose(service(body)).launches
    return [a.value for a in launch.argv]


def test_command_forms() -> None:
    # "command overrides the default command declared by the container image ... can also be
    # a list"; "entrypoint ... When entrypoint is set, Compose ignores any default command
    # from the image" and the service's command becomes its arguments.
    assert argv("    command: bundle exec thin -p 3000\n") == ["bundle", "exec", "thin", "-p",
                                                               "3000"]
    assert argv('    command: ["bundle", "exec", "thin -p"]\n') == ["bundle", "exec", "thin -p"]
    assert argv('    entrypoint: ["/tini", "--"]\n    command: run.sh\n') == ["/tini", "--",
                                                                              "run.sh"]


def test_interpolation() -> None:
    # "Both $VARIABLE and ${VARIABLE} syntax are supported ... use a $$ (double-dollar sign)
    # when your configuration needs a literal dollar sign".
    [launch] = read_compose(service('    command: echo $HOME ${TAG:-dev} $$PATH\n')).launches
    assert [(a.value, a.dynamic) for a in launch.argv] == [
        ("echo", False), ("{HOME}", True), ("{TAG}", True), ("$PATH", False)]


def test_healthcheck_forms() -> None:
    # "test ... NONE, CMD or CMD-SHELL"; "a string is equivalent to specifying CMD-SHELL".
    shell = read_compose(service('    healthcheck:\n      test: ["CMD-SHELL", "curl -f x"]\n'))
    [launch] = shell.launches
    assert launch.shell == ("/bin/sh", "-c") and launch.text is not None
    assert launch.text.value == "curl -f x"
    [plain] = read_compose(service("    healthcheck:\n      test: curl -f x || exit 1\n")
                           ).launches
    assert plain.shell == ("/bin/sh", "-c")
    [exec_form] = read_compose(service('    healthcheck:\n      test: ["CMD", "curl", "x"]\n')
                               ).launches
    assert [a.value for a in exec_form.argv] == ["curl", "x"]


def test_file_names() -> None:
    for name in ("compose.yaml", "docker-compose.yml", "docker-compose.override.yml",
                 "compose.gpu.yaml"):
        assert host_format(PurePath(name), "") == "compose"


_WORDS = st.lists(st.text(alphabet=st.sampled_from(list("ab -'\"\\")), min_size=1, max_size=6),
                  min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(words=_WORDS)
def test_string_commands_split_as_a_posix_command_line(words: list[str]) -> None:
    line = " ".join(shlex.quote(w) for w in words)
    got = split_words(HostText(line, tuple(range(len(line)))))
    assert [w.value for w in got] == shlex.split(line) == words


def test_the_services_own_variables_are_marked() -> None:
    # "environment defines environment variables set in the container"; a variable given
    # without a value ("- VAR", "VAR:") takes its value from where Compose runs, as does one
    # whose value is Compose's interpolation of the same name.
    source = ("services:\n  a:\n    image: x\n    environment:\n      A: /x\n      B:\n"
              "      C: ${C:-1}\n      D: ${OTHER}\n      E: 5\n"
              "    command: echo $A $B $C $D $E\n"
              "  b:\n    image: x\n    environment:\n      - F=1\n      - G\n"
              "    command: echo $F $G $A\n")
    marks = [(r.name, r.container_sets) for r in read_compose(source).references]
    assert marks == [("A", True), ("B", False), ("C", False), ("D", True), ("E", True),
                     ("F", True), ("G", False), ("A", False)]
