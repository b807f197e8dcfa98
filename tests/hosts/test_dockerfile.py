"""The Dockerfile reader against the Dockerfile reference (docs.docker.com/reference/dockerfile/,
quoted in each test): there is no Docker daemon here, so the rules are the manual's."""

from __future__ import annotations

from quotecheck.checker import Options, check_source
from quotecheck.hosts.dockerfile import read_dockerfile
from quotecheck.hosts.model import Launch


def launches(source: str) -> list[Launch]:
    return list(read_dockerfile(source).launches)


def placed(source: str, launch: Launch) -> str:
    assert launch.text is not None
    return "".join(source[o] if o is not None else "~" for o in launch.text.offsets)


def test_continuation_lines_join_and_comment_lines_inside_are_dropped() -> None:
    # "the escape character ... escapes the newline ... allowing the Dockerfile instruction to
    # span multiple lines"; "comment lines are removed before the Dockerfile instructions are
    # executed".
    src = "FROM debian\nRUN apt-get update && \\\n    # why\n    apt-get install -y curl\n"
    [run] = launches(src)
    assert run.shell == ("/bin/sh", "-c")
    assert run.text is not None
    assert run.text.value == "apt-get update &&     apt-get install -y curl"
    assert placed(src, run) == run.text.value  # each character stands at itself


def test_the_escape_directive_names_the_backtick() -> None:
    # "# escape=`" ... "the escape character is used both to escape characters in a line,
    # and to escape a newline".
    src = "# escape=`\nFROM debian\nRUN echo a \\ b `\n    c\n"
    [run] = launches(src)
    assert run.text is not None and run.text.value == "echo a \\ b     c"


def test_exec_form_is_the_argv_and_shell_form_goes_to_the_shell() -> None:
    # "The exec form ... does not invoke a command shell ... CMD [ "echo", "$HOME" ] will not
    # do variable substitution on $HOME"; the shell form runs ["/bin/sh", "-c"] on Linux.
    src = 'FROM debian\nRUN ["echo", "$HOME"]\nRUN echo $HOME\n'
    exec_form, shell_form = launches(src)
    assert [a.value for a in exec_form.argv] == ["echo", "$HOME"] and exec_form.shell is None
    assert shell_form.shell == ("/bin/sh", "-c")


def test_shell_instruction_applies_until_the_next_from() -> None:
    # "The SHELL instruction allows the default shell used for the shell form of commands to
    # be overridden"; each FROM starts a new build stage.
    src = ('FROM debian\nSHELL ["/bin/bash", "-eo", "pipefail", "-c"]\nRUN a | b\n'
           "FROM debian\nRUN c\n")
    first, second = launches(src)
    assert first.shell == ("/bin/bash", "-eo", "pipefail", "-c")
    assert second.shell == ("/bin/sh", "-c")


def test_cmd_is_the_arguments_of_an_exec_form_entrypoint_in_any_order() -> None:
    # "If CMD is used to provide default arguments for the ENTRYPOINT instruction, both ...
    # should be specified in the JSON array format"; a shell-form CMD becomes
    # ["/bin/sh", "-c", "..."] appended to the ENTRYPOINT.
    src = 'FROM debian\nCMD run.sh --fast\nENTRYPOINT ["/tini", "--"]\n'
    combined = next(x for x in launches(src) if x.api == "CMD")
    assert [a.value for a in combined.argv] == ["/tini", "--", "/bin/sh", "-c", "run.sh --fast"]


def test_a_shell_form_entrypoint_ignores_cmd() -> None:
    # "The shell form of ENTRYPOINT prevents any CMD command line arguments from being used."
    src = "FROM debian\nENTRYPOINT ./server\nCMD --port 80\n"
    assert [x.api for x in launches(src)] == ["ENTRYPOINT"]


def test_run_options_and_healthcheck() -> None:
    src = ("FROM debian\nRUN --mount=type=cache,target=/root/.cache pip install x\n"
           "HEALTHCHECK --interval=5s CMD curl -f http://localhost/ || exit 1\n"
           "HEALTHCHECK NONE\n")
    run, health = launches(src)
    assert run.text is not None and run.text.value == "pip install x"
    assert health.text is not None and health.text.value == "curl -f http://localhost/ || exit 1"


def test_here_documents() -> None:
    # BuildKit: "RUN <<EOF ... EOF": alone, the document is the script; after a command it is
    # that command's standard input, in the text the shell reads.
    src = "FROM debian\nRUN <<EOF\nset -e\necho hi\nEOF\nRUN python3 <<EOT\nprint(1)\nEOT\n"
    script, feed = launches(src)
    assert script.text is not None and script.text.value == "set -e\necho hi\n"
    assert placed(src, script) == "set -e\necho hi\n"
    assert feed.text is not None and feed.text.value == "python3 <<EOT\nprint(1)\nEOT"


def test_a_file_named_dockerfile_is_read_as_one_and_positions_are_the_files() -> None:
    src = "FROM python:3.11\nCMD python3 train.py\n"
    result = check_source(src, Options(host="dockerfile"), "Dockerfile")
    [shell] = [x for x in result.trace.layers if x.kind == "shell"]
    assert shell.process == ["/bin/sh", "-c", "python3 train.py"] and shell.via == "CMD"
    [view] = shell.commands
    assert view.source_span == (src.index("python3"), len(src) - 1)


def test_the_base_image_decides_what_is_known_of_the_shell() -> None:
    """Only the official Debian and Ubuntu images (and those built on them) are known to
    have dash as /bin/sh; any other image may set a SHELL of its own."""
    def qc207(image: str) -> list[str]:
        src = f"FROM {image}\nRUN source /etc/profile\n"
        return [d.severity for d in check_source(src, Options(host="dockerfile")).diagnostics
                if d.code == "QC207"]

    assert qc207("python:3.12-slim") == ["error"]
    assert qc207("ubuntu:24.04") == ["error"]
    assert qc207("registry.example/team/base:ubuntu22.04") == ["info"]
    assert qc207("alpine:3.20") == ["info"]


def test_a_stage_built_on_an_earlier_one_keeps_its_shell_entrypoint_and_cmd() -> None:
    # "FROM ... AS name ... The name can be used in subsequent FROM <name> ... to refer to the
    # image built in this stage": that image's SHELL, ENTRYPOINT and CMD hold there. "If CMD
    # is defined from the base image, setting ENTRYPOINT will reset CMD to an empty value."
    src = ('FROM debian:12 AS base\nSHELL ["/bin/bash", "-c"]\nENTRYPOINT ["/entry"]\n'
           "FROM base AS app\nRUN a | b\nCMD gunicorn app:wsgi\n"
           "FROM base AS other\nRUN c\n")
    entry, run, cmd, run2 = launches(src)
    assert [a.value for a in entry.argv] == ["/entry"]
    assert run.shell == run2.shell == ("/bin/bash", "-c")
    assert cmd.api == "CMD" and [a.value for a in cmd.argv] == [
        "/entry", "/bin/bash", "-c", "gunicorn app:wsgi"]
    # a stage that sets nothing runs what it inherits, read once with the stage that set it
    assert [x.api for x in launches("FROM debian AS a\nCMD ./run\nFROM a\nRUN x\n")] == [
        "CMD", "RUN"]
    # an ENTRYPOINT of the new stage drops the inherited CMD
    src = 'FROM debian AS a\nCMD ["--fast"]\nFROM a\nENTRYPOINT ["./server"]\n'
    assert [[a.value for a in x.argv] for x in launches(src)] == [["--fast"], ["./server"]]


def test_the_shell_of_a_stage_built_on_an_earlier_one_is_that_stages_image() -> None:
    def qc207(src: str) -> list[str]:
        return [d.severity for d in check_source(src, Options(host="dockerfile")).diagnostics
                if d.code == "QC207"]

    assert qc207("FROM ubuntu:24.04 AS base\nFROM base\nRUN source /etc/profile\n") == ["error"]
    assert qc207('FROM ubuntu:24.04 AS base\nSHELL ["/bin/bash", "-c"]\n'
                 "FROM base\nRUN source /etc/profile\n") == []
