"""A Dockerfile as a host: what RUN, CMD, ENTRYPOINT and HEALTHCHECK start.

What Docker does with them (the Dockerfile reference, docs.docker.com/reference/dockerfile/;
there is no Docker on the test machines, so tests/hosts/test_dockerfile.py holds this reader to
the rules quoted from it):

* a line that ends with the escape character (``\\``, or the one ``# escape=`` names) goes on
  on the next line: both characters go and the lines are joined as they are; comment lines
  inside a continued instruction are dropped;
* the *exec form*, a JSON array of strings (``CMD ["python3", "train.py"]``), is the argv: no
  shell runs, nothing expands ``$VAR``;
* the *shell form* is run as ``SHELL`` + [text]: ``["/bin/sh", "-c", text]`` until a ``SHELL``
  instruction of the stage changes it (each ``FROM`` starts again);
* with an exec-form ``ENTRYPOINT``, ``CMD`` is only its arguments (a shell-form ``CMD`` is added
  as ``/bin/sh -c TEXT``); a shell-form ``ENTRYPOINT`` ignores ``CMD``;
* ``RUN <<EOF`` (BuildKit's here-documents): alone on the line, the document is the script the
  shell runs; after a command, it is part of the text the shell reads;
* ``FROM NAME`` where an earlier stage is ``AS NAME`` builds on the image that stage made: its
  base image, its ``SHELL``, its ``ENTRYPOINT`` and its ``CMD`` hold in the new stage
  ("If CMD is defined from the base image, setting ENTRYPOINT will reset CMD to an empty
  value"; a ``CMD`` of the new stage alone keeps the inherited ``ENTRYPOINT``).
"""

from __future__ import annotations

import json

from quotecheck.hosts.model import HostFile, HostText, Launch
from quotecheck.lazy_regex import lazy_compile

DEFAULT_SHELL = ("/bin/sh", "-c")
# Instructions whose argument is a command, and the options that may come before it.
COMMAND_INSTRUCTIONS = frozenset({"RUN", "CMD", "ENTRYPOINT", "HEALTHCHECK"})
_DIRECTIVE = lazy_compile(r"#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*\Z")
_OPTION = lazy_compile(r"--[a-z-]+(?:=(?:\"[^\"]*\"|\S*))?\s+")
# Images whose /bin/sh is busybox's ash (Alpine, busybox, the `bash` image built on Alpine).
BUSYBOX_IMAGES = lazy_compile(r"(?:^|/)(?:alpine|busybox|bash)(?::|@|$)|-alpine|alpine[0-9.]*$")
# Images whose /bin/sh is dash and that set no SHELL of their own: Debian's and Ubuntu's
# official images and the official images built on them (the repository name, on Docker Hub;
# their `alpine` tags are busybox). Any other image may set a SHELL or bring another /bin/sh.
DASH_IMAGES = lazy_compile(
    r"(?:docker\.io/)?(?:library/)?(?:debian|ubuntu|python|node|ruby|golang|perl|php|openjdk|"
    r"eclipse-temurin|rust|gcc|buildpack-deps|nginx|httpd|postgres|redis|mysql|nvidia/cuda|"
    r"pytorch/pytorch)(?:[:@][^/]*)?\Z")
_HEREDOC = lazy_compile(r"<<(-?)\s*([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2")


class Instruction:
    __slots__ = ("args", "keyword", "offsets", "span")

    def __init__(self, keyword: str, args: str, offsets: list[int], span: tuple[int, int]):
        self.keyword = keyword
        self.args = args  # after the keyword, continuation lines joined
        self.offsets = offsets  # source offset of each character of ``args``
        self.span = span


def _escape_char(lines: list[str]) -> str:
    """The escape character: a parser directive at the top may name the backtick."""
    for line in lines:
        m = _DIRECTIVE.match(line.strip())
        if m is None:
            break
        if m.group(1).lower() == "escape" and m.group(2) in ("\\", "`"):
            return m.group(2)
    return "\\"


def instructions(source: str) -> list[Instruction]:
    """The instructions of a Dockerfile, continuations joined, with their positions."""
    lines = source.split("\n")
    escape = _escape_char(lines)
    starts: list[int] = []
    at = 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    out: list[Instruction] = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        lead = len(line) - len(stripped)
        chars: list[str] = []
        offsets: list[int] = []
        first, k = i, i
        piece, base = stripped, starts[i] + lead
        heredocs: list[tuple[str, bool]] = []
        while True:
            # (blanks after the escape character are allowed: BuildKit's continuation is the
            # escape, optional blanks and the end of the line)
            cont = piece.rstrip(" \t").endswith(escape)
            body = piece.rstrip(" \t")[:-1] if cont else piece
            chars.extend(body)
            offsets.extend(range(base, base + len(body)))
            heredocs.extend((m.group(3), m.group(1) == "-") for m in _HEREDOC.finditer(body))
            if not cont or k + 1 >= len(lines):
                break
            k += 1
            while k < len(lines) and lines[k].lstrip().startswith("#"):
                k += 1  # a comment line inside a continued instruction is dropped
            if k >= len(lines):
                break
            piece, base = lines[k].rstrip("\r"), starts[k]
        # BuildKit here-documents: the lines after the instruction up to each delimiter.
        for delimiter, strip_tabs in heredocs:
            k += 1
            while k < len(lines):
                text = lines[k].rstrip("\r")
                chars.append("\n")
                offsets.append(starts[k] - 1)
                chars.extend(text)
                offsets.extend(range(starts[k], starts[k] + len(text)))
                if (text.lstrip("\t") if strip_tabs else text) == delimiter:
                    break
                k += 1
        text = "".join(chars)
        keyword, _, rest = text.partition(" ") if " " in text else (text, "", "")
        if "\t" in keyword:
            keyword, _, tail = keyword.partition("\t")
            rest = tail + (" " + rest if rest else "")
        skip = len(text) - len(rest)
        skip += len(rest) - len(rest.lstrip(" \t"))
        out.append(Instruction(keyword.upper(), text[skip:], offsets[skip:],
                               (starts[first] + lead, offsets[-1] + 1 if offsets else
                                starts[first] + lead)))
        i = k + 1
    return out


def _exec_form(args: str, offsets: list[int]) -> list[HostText] | None:
    """The argv of a JSON array, each string placed at its characters (None: no array)."""
    text = args.strip()
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    # Place each item: find its quoted spelling in order (JSON escapes keep the item's start).
    out: list[HostText] = []
    at = args.find("[")
    for item in value:
        q = args.find('"', at)
        if q < 0:
            out.append(HostText(item, [None] * len(item)))
            continue
        end = q + 1
        while end < len(args) and args[end] != '"':
            end += 2 if args[end] == "\\" else 1
        spelled = args[q + 1:end]
        places = offsets[q + 1:end]
        if spelled == item:
            out.append(HostText(item, places))
        else:
            out.append(HostText(item, [offsets[q + 1] if places else None] * len(item)))
        at = end + 1
    return out


def _shell_text(args: str, offsets: list[int]) -> tuple[str, list[int]]:
    """The text a shell-form instruction hands the shell; a lone here-document is the script."""
    first_line, _, rest = args.partition("\n")
    m = _HEREDOC.fullmatch(first_line.strip())
    if m is not None and rest:
        body_start = len(first_line) + 1
        lines = rest.split("\n")
        body = "\n".join(lines[:-1]) + "\n" if len(lines) > 1 else ""
        return body, offsets[body_start:body_start + len(body)] + [offsets[-1]] * max(
            0, len(body) - len(offsets[body_start:body_start + len(body)]))
    return args, offsets


def image_shell(image: str) -> str | None:
    """The shell that runs the shell form on ``image``: None where the argv says it (the
    official Debian and Ubuntu images: `/bin/sh` is dash), else `unknown`. A base image may
    set a SHELL of its own, and its /bin/sh is dash, busybox's ash or bash: the Dockerfile
    shows only the image's name."""
    if DASH_IMAGES.match(image) and not BUSYBOX_IMAGES.search(image):
        return None
    return "unknown"


class _Stage:
    """What one build stage ends with: its last ENTRYPOINT and CMD (Docker combines the two
    whatever their order in the file), and those it inherits from an earlier stage it is
    built on."""

    def __init__(self, image: str = "", shell: tuple[str, ...] = DEFAULT_SHELL,
                 base: _Stage | None = None) -> None:
        self.image = image  # the base image, an earlier stage's followed to its own
        self.shell = shell
        self.entrypoint: Launch | None = None
        self.cmd: Launch | None = None
        self.inherited: tuple[Launch | None, Launch | None] = (
            (base.final_entrypoint, base.final_cmd) if base is not None else (None, None))

    @property
    def final_entrypoint(self) -> Launch | None:
        return self.entrypoint or self.inherited[0]

    @property
    def final_cmd(self) -> Launch | None:
        if self.cmd is not None or self.entrypoint is not None:
            return self.cmd  # an ENTRYPOINT of this stage resets the inherited CMD
        return self.inherited[1]

    def launches(self) -> list[Launch]:
        if self.entrypoint is None and self.cmd is None:
            return []  # what it inherits was read with the stage that set it
        entry, cmd = self.final_entrypoint, self.final_cmd
        own_entry = self.entrypoint is not None
        if entry is not None and entry.argv:
            out = [entry] if own_entry else []
            if cmd is not None:
                # the exec-form ENTRYPOINT gets CMD as its arguments: the exec form's items,
                # or `/bin/sh -c TEXT` for the shell form
                tail = list(cmd.argv) if cmd.text is None else [
                    *(HostText(w, [None] * len(w)) for w in cmd.shell or ()), cmd.text]
                out.append(Launch(cmd.api, cmd.span, argv=(*entry.argv, *tail)))
            return out
        if entry is not None:
            return [entry] if own_entry else []  # a shell-form ENTRYPOINT: CMD is ignored
        return [cmd] if cmd is not None else []


def _from(args: str, stages: dict[str, _Stage]) -> tuple[str, str | None, _Stage | None]:
    """A FROM line's image, the stage name it gives (`AS NAME`), and the earlier stage it
    builds on, if it names one."""
    words = [w for w in args.split() if not w.startswith("--")]
    image = words[0] if words else ""
    name = words[2].lower() if len(words) > 2 and words[1].lower() == "as" else None
    base = stages.get(image.lower())
    return (base.image if base is not None else image), name, base


def stage_images(source: str) -> list[tuple[int, str]]:
    """Where each build stage starts in ``source`` and its base image, an earlier stage's
    (`FROM build`) followed to the image that stage is built on."""
    out: list[tuple[int, str]] = []
    stages: dict[str, _Stage] = {}
    for ins in instructions(source):
        if ins.keyword == "FROM":
            image, name, _ = _from(ins.args, stages)
            out.append((ins.span[0], image))
            if name:
                stages[name] = _Stage(image)
    return out


def read_dockerfile(source: str) -> HostFile:
    launches: list[Launch] = []
    stage = _Stage()
    stages: dict[str, _Stage] = {}
    for ins in instructions(source):
        keyword, args, offsets = ins.keyword, ins.args, ins.offsets
        if keyword == "FROM":
            launches.extend(stage.launches())
            image, name, base = _from(args, stages)
            stage = _Stage(image, base.shell if base is not None else DEFAULT_SHELL, base)
            if name:
                stages[name] = stage
            continue
        shell, image = stage.shell, stage.image
        if keyword == "SHELL":
            got = _exec_form(args, offsets)
            if got:
                stage.shell = tuple(t.value for t in got)
            continue
        if keyword not in COMMAND_INSTRUCTIONS:
            continue
        while True:  # options: `RUN --mount=type=cache,target=/root/.cache pip install ...`
            m = _OPTION.match(args)
            if m is None:
                break
            args, offsets = args[m.end():], offsets[m.end():]
        if keyword == "HEALTHCHECK":
            if not args.upper().startswith("CMD"):
                continue
            cut = 3 + len(args[3:]) - len(args[3:].lstrip())
            args, offsets = args[cut:], offsets[cut:]
        api = keyword if keyword != "HEALTHCHECK" else "HEALTHCHECK CMD"
        argv = _exec_form(args, offsets)
        launch: Launch | None = None
        if argv is not None:
            launch = Launch(api, ins.span, argv=tuple(argv))
        else:
            text, places = _shell_text(args, offsets)
            if text.strip():
                shell_name = None if shell != DEFAULT_SHELL else image_shell(image)
                launch = Launch(api, ins.span, shell=shell, text=HostText(text, places),
                                shell_name=shell_name)
        if keyword == "CMD":
            stage.cmd = launch
        elif keyword == "ENTRYPOINT":
            stage.entrypoint = launch
        elif launch is not None and (launch.argv or launch.text is not None):
            launches.append(launch)
    launches.extend(stage.launches())
    return HostFile("dockerfile", tuple(sorted(launches, key=lambda x: x.span)))
