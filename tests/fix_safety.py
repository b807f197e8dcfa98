"""What "a fix never breaks a working script" means, as checks a test can run on any script.

For every fix quotecheck offers on a script (safe ones, and the unsafe ones `--unsafe-fixes`
applies), :func:`fix_problems` applies that fix alone and checks that

- the fixed text still parses: quotecheck's parser finds no new parse error (in any layer:
  a remote script, an `sh -c` string...), and the real shell of the file's dialect
  (`bash -n`, `dash -n`, with the `shopt`/`set -o` options the file sets) accepts the file and
  every inner shell script that the fix changed, wherever it accepted the original;
- the fix's edits lie inside the text, do not overlap and change something, and the bytes
  `quotecheck fix` writes differ from the original only on the lines those edits touch;
- checking the fixed text does not raise the fixed finding again at the same place;

and that applying all fixes (`fix`, then `fix --unsafe-fixes`) reaches a fixed point: fixing the
result again changes nothing, and the result parses as above.

Also here: the snippets and surrounding contexts the property tests combine, taken from the
rule documents' examples and the fixture scripts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from quotecheck.checker import CheckResult, Options, check_source
from quotecheck.diagnostics import Diagnostic, Edit, Fix
from quotecheck.files import is_shell_script, local_dialect
from quotecheck.fixed_bytes import decode_bytes, encode_fixed, split_byte_lines
from quotecheck.fixer import applicable, apply_edits, fix_source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
RULES_DIR = ROOT / "rules"
# The assembled precision corpus (benchmarks/precision/README.md); QC_PRECISION_CORPUS names
# another copy.
CORPUS = Path(os.environ.get("QC_PRECISION_CORPUS",
                             ROOT / "benchmarks" / "precision" / "corpus"))

_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# Which program checks the syntax of a dialect.
_CHECKERS = {"bash": "bash", "sh": "dash", "zsh": "zsh"}


@dataclass
class FixReport:
    """What :func:`fix_problems` tried and found for one script."""

    exercised: dict[str, int] = field(default_factory=dict)  # fixes applied, per rule
    problems: list[str] = field(default_factory=list)

    def add(self, other: FixReport) -> None:
        for code, n in other.exercised.items():
            self.exercised[code] = self.exercised.get(code, 0) + n
        self.problems.extend(other.problems)


# -- real shells ----------------------------------------------------------------------------------


def shell_options(text: str) -> list[str]:
    """The parse-relevant options a bash script turns on for itself (`shopt -s extglob`)."""
    return ["-O", "extglob"] if re.search(r"shopt\s+-s\s+(\w+\s+)*extglob\b", text) else []


def syntax_error(dialect: str, text: str, options: list[str] | None = None) -> str | None:
    """The real shell's complaint about ``text`` (``SHELL -n``), None when it parses or when
    no shell checks this dialect here."""
    program = shutil.which(_CHECKERS.get(dialect, ""), path=_SYSTEM_PATH)
    if program is None:
        return None
    fd, name = tempfile.mkstemp(suffix=".sh", prefix="qc-fixsafety-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        extra = (options or []) if dialect == "bash" else []
        run = subprocess.run([program, *extra, "-n", name], capture_output=True, text=True,
                             timeout=30, stdin=subprocess.DEVNULL)
    finally:
        os.unlink(name)
    if run.returncode == 0:
        return None
    return run.stderr.replace(name, "FILE").strip()[:300] or f"status {run.returncode}"


def _shell_layers(result: CheckResult, dynamic: bool = False) -> list[tuple[str, str]]:
    """(dialect, text) of every inner shell script the check knows the whole text of (with
    ``dynamic``, also those with parts known only at run time, as the check has them)."""
    out = []
    for layer in result.trace.layers[1:]:
        if layer.kind == "shell" and layer.text is not None and (
                dynamic or not layer.dynamic_text) and layer.dialect in _CHECKERS:
            out.append((layer.dialect, layer.text))
    return out


# -- one fix --------------------------------------------------------------------------------------


def offered(result: CheckResult) -> Iterator[tuple[Diagnostic, Fix]]:
    """Every fix `fix --unsafe-fixes` may apply (display-only ones never are)."""
    for d in result.diagnostics:
        for f in d.fixes:
            if applicable(f, True) and f.edits:
                yield d, f


def moved(edits: tuple[Edit, ...], offset: int) -> int:
    """Where ``offset`` of the original text is after ``edits``."""
    delta = 0
    for e in edits:
        if e.span[1] <= offset and e.span != (offset, offset):
            delta += len(e.text) - (e.span[1] - e.span[0])
    return offset + delta


def _changed_lines(old: bytes, new: bytes) -> tuple[int, int]:
    """Lines [first, last_from_end) in which ``old`` and ``new`` differ: the common head and
    tail line counts."""
    a, b = split_byte_lines(old), split_byte_lines(new)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


def _edit_lines(text: str, edits: tuple[Edit, ...]) -> tuple[int, int]:
    """The first line an edit touches, and the number of lines after the last one touched."""
    first = min(text.count("\n", 0, e.span[0]) for e in edits)
    last = max(text.count("\n", 0, e.span[1]) for e in edits)
    return first, len(split_byte_lines(text.encode("utf-8", "surrogateescape"))) - last - 1


def one_fix_problems(text: str, options: Options, path: str | None, d: Diagnostic, fix: Fix,
                     original: CheckResult, parses: bool, shell_ok: bool,
                     layer_texts: set[tuple[str, str]]) -> list[str]:
    where = f"{d.code} at {d.span} ({fix.applicability}: {fix.title})"
    problems: list[str] = []
    spans = sorted(e.span for e in fix.edits)
    if any(not 0 <= a <= b <= len(text) for a, b in spans):
        return [f"{where}: an edit lies outside the text"]
    if any(spans[i][1] > spans[i + 1][0] for i in range(len(spans) - 1)):
        return [f"{where}: the fix's edits overlap"]
    new = apply_edits(text, list(fix.edits))
    if new == text:
        problems.append(f"{where}: the fix changes nothing")
        return problems
    # The bytes `fix` writes: only the lines the edits touch may differ.
    source = decode_bytes(text.encode("utf-8", "surrogateescape"))
    written = encode_fixed(source, new)
    head, tail = _changed_lines(source.data, written)
    first, after = _edit_lines(text, fix.edits)
    if head < first or tail < after:
        problems.append(f"{where}: lines outside the edits changed")
    result = check_source(new, options, path)
    if parses and any(x.code == "QC001" for x in result.diagnostics):
        err = next(x for x in result.diagnostics if x.code == "QC001")
        problems.append(f"{where}: quotecheck no longer parses the fixed text: {err.text}")
    if shell_ok:
        err2 = syntax_error(options.dialect, new, shell_options(new))
        if err2 is not None:
            problems.append(f"{where}: {options.dialect} -n rejects the fixed file: {err2}")
    for dialect, inner in _shell_layers(result):
        if (dialect, inner) in layer_texts:
            continue
        # An inner script the fix changed: it must parse wherever its original did.
        err3 = syntax_error(dialect, inner)
        if err3 is not None and _original_inner_parses(original, dialect):
            problems.append(f"{where}: the fixed inner {dialect} script does not parse: {err3}"
                            f" ({inner[:80]!r})")
    at = moved(fix.edits, d.span[0])
    again = [x for x in result.diagnostics if x.code == d.code and x.span[0] == at]
    if again:
        problems.append(f"{where}: the fixed text raises it again: {again[0].text[:120]}")
    return problems


def _original_inner_parses(original: CheckResult, dialect: str) -> bool:
    """Whether every inner script of the original in ``dialect`` parses (so a failure of the
    fixed one is the fix's doing, not a script that was broken already)."""
    return all(syntax_error(d, t) is None
               for d, t in _shell_layers(original, dynamic=True) if d == dialect)


# -- a whole script -------------------------------------------------------------------------------


def options_for(text: str, path: str | None = None, dialect: str | None = None,
                remote_shell: str | None = None) -> Options:
    return Options(dialect=dialect or local_dialect(text, Path(path) if path else None),
                   remote_shell=remote_shell)


def fix_problems(text: str, options: Options, path: str | None = None) -> FixReport:
    """Every offered fix of ``text``, applied alone, then all of them: see the module doc."""
    report = FixReport()
    original = check_source(text, options, path)
    fixes = list(offered(original))
    if not fixes:
        return report
    parses = not any(d.code == "QC001" for d in original.diagnostics)
    shell_ok = syntax_error(options.dialect, text, shell_options(text)) is None
    layer_texts = set(_shell_layers(original))
    for d, fix in fixes:
        report.exercised[d.code] = report.exercised.get(d.code, 0) + 1
        report.problems.extend(one_fix_problems(text, options, path, d, fix, original, parses,
                                                shell_ok, layer_texts))
    for unsafe in (False, True):
        mode = "fix --unsafe-fixes" if unsafe else "fix"
        done = fix_source(text, options, unsafe=unsafe, path=path)
        again = fix_source(done.text, options, unsafe=unsafe, path=path)
        if again.text != done.text:
            report.problems.append(f"{mode}: fixing the result again changes it")
        if done.text == text:
            continue
        if parses and any(x.code == "QC001" for x in check_source(done.text, options,
                                                                  path).diagnostics):
            report.problems.append(f"{mode}: quotecheck no longer parses the result")
        if shell_ok:
            err = syntax_error(options.dialect, done.text, shell_options(done.text))
            if err is not None:
                report.problems.append(f"{mode}: {options.dialect} -n rejects the result: {err}")
    return report


# -- what the tests combine -----------------------------------------------------------------------


_BLOCK = re.compile(r"^```sh (bad|good)([^\n]*)\n(.*?)^```\s*$", re.M | re.S)


@dataclass(frozen=True)
class Snippet:
    label: str
    text: str
    dialect: str | None = None  # None: what the text itself says (#!, directive)
    remote_shell: str | None = None
    path: str | None = None

    def options(self, text: str | None = None) -> Options:
        return options_for(text if text is not None else self.text, self.path, self.dialect,
                           self.remote_shell)


def doc_examples(kinds: tuple[str, ...] = ("bad", "good")) -> list[Snippet]:
    """The rule documents' examples, with the options their fences set."""
    out = []
    for doc in sorted(RULES_DIR.glob("QC*.md")):
        for n, m in enumerate(_BLOCK.finditer(doc.read_text(encoding="utf-8"))):
            if m.group(1) not in kinds:
                continue
            opts = dict(t.split("=", 1) for t in m.group(2).split() if "=" in t)
            out.append(Snippet(f"{doc.stem}-{m.group(1)}-{n}", m.group(3),
                               opts.get("shell", "bash"), opts.get("remote-shell"),
                               opts.get("path")))
    return out


def fixture_scripts() -> list[Snippet]:
    return [Snippet(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"), None, None, str(p))
            for p in sorted(FIXTURES.rglob("*.sh"))]


def corpus_files() -> list[Path]:
    """The real-world precision corpus, when it has been assembled (never in CI)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*")
                  if p.is_file() and not p.is_symlink() and is_shell_script(p))


def _indent(text: str, by: str = "  ") -> str:
    if "<<" in text:
        return text  # a heredoc's closing line must stay as it is
    return "".join(by + line if line.strip() else line for line in text.splitlines(True))


def _one_line(text: str) -> bool:
    return "\n" not in text.rstrip("\n") and "<<" not in text


def _continue_last_blank(text: str) -> str:
    line = text.rstrip("\n")
    at = line.rfind(" ")
    return text if at < 0 else line[:at] + " \\\n  " + line[at + 1:] + "\n"


# Surroundings a script line meets in real scripts. Each takes the text and gives it back in
# that context (or unchanged where the context would not make sense).
CONTEXTS: dict[str, Callable[[str], str]] = {
    "assignments": lambda t: "APP=shopfront\nHOST=web1\nDATA_DIR=/data/x\n" + t,
    "multiline string": lambda t: 'MSG="first line\nsecond $APP line"\n' + t,
    "heredoc before": lambda t: "cat <<EOF\nheredoc $HOME `date`\nEOF\n" + t,
    "quoted heredoc after": lambda t: t + "cat <<'EOF'\nafter 'x' \"y\" $z\nEOF\n",
    "function": lambda t: "main() {\n" + _indent(t) + "}\nmain \"$@\"\n",
    "if": lambda t: "if [ -n \"$1\" ]; then\n" + _indent(t) + "fi\n",
    "for": lambda t: "for h in a b; do\n" + _indent(t) + "done\n",
    "while read": lambda t: "while read -r line; do\n" + _indent(t) + "done < hosts.txt\n",
    "subshell": lambda t: "(\n" + t + ")\n",
    "group into pipeline": lambda t: "{\n" + t + "} | tee log.txt\n",
    "set -e": lambda t: "set -eu\n" + t,
    "and then": lambda t: t.rstrip("\n") + " && echo done\n" if _one_line(t) else t,
    "pipeline": lambda t: t.rstrip("\n") + " | cat\n" if _one_line(t) else t,
    "comment": lambda t: t.rstrip("\n") + " # trailing comment\n" if _one_line(t) else t,
    "background": lambda t: t.rstrip("\n") + " &\nwait\n" if _one_line(t) else t,
    "substitution": lambda t: "out=$(\n" + t + ")\n",
    "case": lambda t: "case $1 in\n  start)\n" + _indent(t, "    ") + "    ;;\nesac\n",
    "shebang sh": lambda t: t if t.startswith("#!") else "#!/bin/sh\n" + t,
    "no final newline": lambda t: t.rstrip("\n"),
    "continuation": lambda t: t.replace(" ", " \\\n  ", 1) if _one_line(t) else t,
    "blank lines": lambda t: t.replace("\n", "\n\n"),
    "after": lambda t: t + "echo end\n",
    "trap": lambda t: "trap 'echo bye' EXIT\n" + t,
    "negated": lambda t: "! " + t if _one_line(t) else t,
    "ssh options": lambda t: t.replace("ssh ", "ssh -q -p 2222 ", 1),
    "test and": lambda t: '[ -n "$X" ] && ' + t if _one_line(t) else t,
    "tab": lambda t: t.replace(" ", "\t", 1),
    "local values": lambda t: "f() {\n  local n=3\n" + _indent(t) + "}\n",
    "then more": lambda t: t.rstrip("\n") + "; echo next\n" if _one_line(t) else t,
    "redirected": lambda t: t.rstrip("\n") + " > out.log 2>&1\n" if _one_line(t) else t,
    "stdin redirected": lambda t: t.rstrip("\n") + " < /dev/null\n" if _one_line(t) else t,
    "last blank continued": lambda t: _continue_last_blank(t) if _one_line(t) else t,
    "CRLF": lambda t: t.replace("\n", "\r\n"),
    "condition": lambda t: "if " + t.rstrip("\n") + "; then echo ok; fi\n" if _one_line(t)
    else t,
    "and before": lambda t: "cd /srv && " + t if _one_line(t) else t,
    "sudo": lambda t: t.replace("ssh ", "sudo ssh ", 1),
    "ssh -t": lambda t: t.replace("ssh ", "ssh -t ", 1),
    "inside sh -c": lambda t: "sh -c '" + t.replace("'", "'\\''") + "'\n",
    "inside sh -c, double quotes": lambda t: 'sh -c "' + re.sub(r'([\\$`"])', r"\\\1", t)
    + '"\n',
    "inside ssh": lambda t: "ssh -n jump '" + t.replace("'", "'\\''") + "'\n",
    "non-ASCII": lambda t: "# déploiement — ünïcode\n" + t.replace("echo ", "echo é ", 1),
    "tab heredoc": lambda t: t.replace("<<EOF", "<<-EOF", 1).replace("\nEOF", "\n\tEOF", 1),
}


def seeds() -> list[Snippet]:
    """What generated scripts are built from: the examples and fixtures with a finding to fix."""
    return [s for s in doc_examples(("bad",)) + fixture_scripts()
            if "/fixes/" in (s.path or "") or s.path is None]


SEEDS = seeds()


@st.composite
def scripts_in_context(draw: st.DrawFn) -> tuple[str, Snippet]:
    seed = draw(st.sampled_from(SEEDS))
    text = seed.text
    if draw(st.booleans()):
        other = draw(st.sampled_from(SEEDS))
        text = text + other.text if draw(st.booleans()) else other.text + text
    for name in draw(st.lists(st.sampled_from(sorted(CONTEXTS)), max_size=3)):
        text = CONTEXTS[name](text)
    return text, seed


