"""Running a script before and after one fix, and what the rule's document lets differ.

:func:`run_script` runs a script with the real shell of its dialect in a sandbox
(harness/sandbox.py), with every program it names replaced by an argv-recording stub
(harness/stubs.py) and the layer openers (``ssh``, ``sh``, ``bash``, ``dash``) by recording
stand-ins (harness/layer_stubs.py) that, with ``deep``, also run what they were handed (ssh in
a "remote" directory). No real program runs, so what is compared is exactly what the script
starts and hands over.

:func:`difference` says whether the records, output and status of the fixed run differ from the
original's only as the "Fix safety" section of the rule's document says they must (None), or
how they differ otherwise; ``SKIP`` when this fix cannot be judged by running it.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.layer_stubs import WRAPPERS, install_layer_stubs, split_ssh
from harness.sandbox import sandboxed
from harness.shells import bash_words, resolve_shell
from harness.stubs import StubDir

from quotecheck.checker import CheckResult, check_source
from quotecheck.diagnostics import Diagnostic, Fix
from quotecheck.rules.crosslayer.text import text_index

SKIP = "skip"
LAYER_PROGRAMS = frozenset({"ssh", "sh", "bash", "dash"})
_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9_.+-]*\Z")
# Programs scripts often run that a check may not list (a substitution, a pipeline stage).
COMMON = ("awk", "cat", "cp", "curl", "date", "docker", "find", "git", "grep", "head",
          "hostname", "kill", "ls", "mkdir", "mv", "nohup", "pgrep", "pkill", "ps", "python3",
          "rec", "rm", "rsync", "scp", "sed", "sleep", "sort", "sudo", "tail", "tee",
          "timeout", "touch", "tr", "wc", "xargs", "systemctl", "env", "nc", "jq")


@dataclass
class Run:
    records: list[dict[str, Any]]
    stdout: str
    stderr: str
    status: int


def program_names(result: CheckResult) -> set[str]:
    """Every command name the check sees, in any layer."""
    names = set(COMMON)
    for layer in result.trace.layers:
        for view in layer.commands:
            if view.argv and not view.argv[0].dynamic:
                names.add(view.argv[0].value.rsplit("/", 1)[-1])
    return {n for n in names if _NAME.match(n) and n not in LAYER_PROGRAMS
            and n not in WRAPPERS}


def _normal(entry: dict[str, Any], base: Path) -> dict[str, Any]:
    def clean(s: str) -> str:
        return s.replace(str(base), "<W>")

    cwd = entry.get("cwd", "")
    out: dict[str, Any] = {"argv": [clean(a) for a in entry["argv"]],
                           "side": "remote" if cwd.startswith(str(base / "remote")) else "local"}
    if "stdin" in entry:
        out["stdin"] = clean(entry["stdin"])
    return out


def run_script(tmp: Path, text: str, shell: str, names: set[str], *, deep: bool,
               remote_shell: str = "bash", posix_shell: str = "dash") -> Run:
    base = Path(tempfile.mkdtemp(prefix="run-", dir=tmp))
    (base / "local").mkdir()
    (base / "remote").mkdir()
    # pgrep finds nothing: no old process is running. The stubs leave their input unread,
    # as most programs do (a heredoc for a wrapper or a shell is in the wrapper's record).
    stubs = StubDir(base, names=sorted(names), exit_codes={"pgrep": 1})
    install_layer_stubs(stubs, base / "remote", run_inner=deep, remote_shell=remote_shell,
                        posix_shell=posix_shell)
    script = base / "script.sh"  # outside the working directory: no glob matches it
    script.write_text(text, encoding="utf-8", errors="surrogateescape")
    env = {"PATH": str(stubs.path), "HOME": str(base / "local"), "USER": "qcuser",
           "LC_ALL": "C.UTF-8"}
    proc = subprocess.run(sandboxed([resolve_shell(shell), str(script)], base), env=env,
                          cwd=base / "local", capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL, start_new_session=True)
    # Numbers in the output (`$!`, `$$`) differ from run to run.
    out = proc.stdout.decode("utf-8", "surrogateescape").replace(str(base), "<W>")
    return Run([_normal(e, base) for e in stubs.entries()], re.sub(r"[0-9]+", "N", out),
               proc.stderr.decode("utf-8", "surrogateescape").replace(str(base), "<W>"),
               proc.returncode)


# -- what may differ, by rule ----------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    text: str  # the original
    fixed: str  # with this one fix
    finding: Diagnostic
    fix: Fix
    shell: str
    remote_shell: str


# Rules whose fixes are judged with the layers run (deep), the others with what each layer
# was handed (shallow).
DEEP = frozenset({"QC201", "QC205", "QC206", "QC207", "QC208", "QC209", "QC210", "QC301"})
MARKER = "QCMARK"


def marked(case: Case) -> str:
    """The original with the expansion the fix escapes replaced by a literal marker: what the
    inner layer receives from it is what it receives from the fixed text, with the marker
    where the fixed text hands over the expansion itself."""
    a, b = case.finding.span
    return case.text[:a] + MARKER + case.text[b:]


def _records_equal(a: list[dict[str, Any]], b: list[dict[str, Any]], text: str) -> bool:
    # The stages of a pipeline and background jobs reach their stubs in any order.
    return a == b or sorted(map(repr, a)) == sorted(map(repr, b))


def changed_pairs(before: list[dict[str, Any]], after: list[dict[str, Any]]
                  ) -> list[tuple[dict[str, Any], dict[str, Any]]] | None:
    """The records that differ, paired in order, ignoring the order of the others (pipeline
    stages); None when as many did not go as came."""
    left = list(after)
    gone = []
    for r in before:
        if r in left:
            left.remove(r)
        else:
            gone.append(r)
    if len(gone) != len(left):
        return None
    return list(zip(gone, left, strict=True))


def _without(records: list[dict[str, Any]], programs: set[str]) -> list[dict[str, Any]]:
    return [r for r in records if r["argv"][0] not in programs]


def _ssh_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["argv"][0] == "ssh"]


def _one_ssh_changed(before: Run, after: Run, text: str,
                     change: Callable[[list[str]], list[str]]) -> str | None:
    """Everything identical except one ssh argv, which is ``change(argv)``."""
    changed = changed_pairs(before.records, after.records)
    if changed is None:
        return f"a different number of commands ran:\n  {before.records}\n  {after.records}"
    if not changed:
        return SKIP  # the changed ssh did not run (a redirection that failed, a branch)
    wrong = [(b, a) for b, a in changed
             if b["argv"][0] != "ssh" or dict(b, argv=change(b["argv"])) != a]
    if wrong:
        return f"records differ beyond the ssh options: {wrong or changed}"
    if (before.stdout, before.status) != (after.stdout, after.status):
        return (f"output or status differ: {before.stdout!r} {before.status} -> "
                f"{after.stdout!r} {after.status}")
    return None


def _inserted_after_ssh(words: list[str]) -> Callable[[list[str]], list[str]]:
    def change(argv: list[str]) -> list[str]:
        return [argv[0], *words, *argv[1:]]
    return change


def opaque(run: Run) -> Run:
    """``run`` with what the layer openers were handed left out (with the layers run, what
    they do is in the records of the commands they ran): ssh keeps its options and
    destination, shells and wrappers only their name."""
    out = []
    for r in run.records:
        name = r["argv"][0]
        if name == "ssh":
            r = {"argv": split_ssh(r["argv"])[0], "side": r["side"]}
        elif name in LAYER_PROGRAMS or name in WRAPPERS:
            r = {"argv": [name], "side": r["side"]}
        out.append(r)
    return Run(out, run.stdout, run.stderr, run.status)


def difference(case: Case, tmp: Path, names: set[str]) -> str | None:
    code = case.finding.code
    deep = code in DEEP

    # QC207 asks what bash does with each form, in every layer.
    bash_only = code == "QC207"

    def run(text: str, shell: str = case.shell) -> Run:
        return run_script(tmp, text, shell, names, deep=deep,
                          remote_shell="bash" if bash_only else case.remote_shell,
                          posix_shell="bash" if bash_only else "dash")

    if code in ("QC101", "QC104", "QC105"):
        if expanded_inside(case):
            # An inner shell expands it: what it hands on is only seen with it running, and
            # then its own child runs too. The static properties cover it.
            return SKIP
        exp = case.text[case.finding.span[0]:case.finding.span[1]]
        before, after = run(marked(case)), run(case.fixed)
        if MARKER not in repr(before.records):
            return SKIP  # the marked place reaches no stub (a builtin, a branch not taken)
        swapped = [eval_swap(r, exp) for r in after.records]
        if not _records_equal(before.records, swapped, case.text):
            return (f"what the layers receive differs beyond the escaped {exp}:\n"
                    f"  marked original {before.records}\n  fixed           {after.records}")
        return None
    # QC207: the original is bash's (the POSIX form must mean the same in bash).
    shell = "bash" if code == "QC207" else case.shell
    before, after = run(case.text, shell), run(case.fixed, shell)
    if before == after or (deep and _handed_to_a_stub(after, case)):
        # The fixed place is not reached in this run (a branch, a function), or the changed
        # text went to a program that is only recorded here (`docker exec ... bash -c`).
        return SKIP
    if code == "QC201":
        return _qc201(before, after, case)
    if deep:
        before, after = opaque(before), opaque(after)
    if code == "QC102":
        return _qc102(before, after, case)
    if code == "QC209":
        return _qc209(before, after)
    if code == "QC208":
        words = bash_words(case.fix.edits[0].text)
        return _one_ssh_changed(before, after, case.text, _inserted_after_ssh(words))
    if code == "QC301":
        old = case.text[case.fix.edits[0].span[0]:case.fix.edits[0].span[1]]
        new = case.fix.edits[0].text
        return _one_ssh_changed(
            before, after, case.text,
            lambda argv: [re.sub(rf"(StrictHostKeyChecking[= ]){re.escape(old)}\b",
                                 rf"\g<1>{new}", a) for a in argv])
    if code == "QC207":
        # The document's promise: the POSIX form means exactly the same in bash.
        if not _records_equal(after.records, before.records, "") or (
                after.stdout, after.status) != (before.stdout, before.status):
            return (f"the POSIX form does not do in bash what the original did: "
                    f"{before.records} {before.stdout!r} {before.status} -> "
                    f"{after.records} {after.stdout!r} {after.status}")
        return None
    if code in ("QC205", "QC206"):
        return _stops_on_failure(before, after)
    if code == "QC210":
        return _qc210(before, after, case)
    if code == "QC109":
        return _qc109(before, after, case)
    if code == "QC112":
        return _qc112(before, after, case)
    if code == "QC107":
        return _qc107(before, after, case)
    return SKIP


def _handed_to_a_stub(run: Run, case: Case) -> bool:
    # The start of each inserted text, without the quoting the carrier added.
    keys = [e.text.replace("\\", "").strip()[:16] for e in case.fix.edits]
    keys = [k for k in keys if len(k) > 3]
    return any(r["argv"][0] not in LAYER_PROGRAMS and r["argv"][0] not in WRAPPERS
               and any(k in a.replace("\\", "") for k in keys for a in r["argv"][1:])
               for r in run.records)


def expanded_inside(case: Case) -> bool:
    """The escaped `$` is written inside an inner shell's script (`sh -c '... $x ...'`), so
    that shell, not the file's, expands it."""
    at = case.finding.span[0]
    trace = check_source(case.text).trace
    for layer in trace.layers:
        if layer.kind != "shell" or layer.parent is None or layer.origin is None:
            continue
        i = text_index(layer, at)
        # Inside a range known only at run time, the layer received the value, not the `$`.
        if i is not None and not any(a <= i < b for a, b in layer.dynamic_ranges):
            return True
    return False


def eval_swap(record: dict[str, Any], exp: str) -> dict[str, Any]:
    """``record`` with the escaped expansion's text put back as the marker."""
    out = dict(record, argv=[a.replace(exp, MARKER) for a in record["argv"]])
    if "stdin" in record:
        out["stdin"] = record["stdin"].replace(exp, MARKER)
    return out


def _qc102(before: Run, after: Run, case: Case) -> str | None:
    """The command ssh (or watch) sends reads, for the shell on the other side, as exactly
    the words the original gave it; nothing else changes."""
    pairs = changed_pairs(before.records, after.records)
    if pairs is None:
        return "a different number of commands ran"
    for b, a in pairs:
        i = 0
        while i < min(len(a["argv"]), len(b["argv"])) and a["argv"][i] == b["argv"][i]:
            i += 1
        reads = bash_words(" ".join(a["argv"][i:]))
        if reads != b["argv"][i:]:
            return f"the other side reads {reads}, the original gave {b['argv'][i:]}"
    return None if pairs else "nothing changed"


def _qc209(before: Run, after: Run) -> str | None:
    """ssh gets `-n` and so no input: the commands on the other side no longer receive the
    rest of the loop's input, and the loop runs on over it (the document's point); up to there
    everything runs as before."""
    def plain(records: list[dict[str, Any]], drop_n: bool) -> list[dict[str, Any]]:
        out = []
        for r in records:
            r = {k: v for k, v in r.items() if k != "stdin"}
            if drop_n and r["argv"][:2] == ["ssh", "-n"]:
                r["argv"] = ["ssh", *r["argv"][2:]]
            out.append(r)
        return out
    b, a = plain(before.records, False), plain(after.records, True)
    if a[:len(b)] != b:
        return f"the fixed run did something else:\n  {b}\n  {a}"
    if after.status != before.status and len(a) == len(b):
        return f"status {before.status} -> {after.status}"
    return None


def _stops_on_failure(before: Run, after: Run) -> str | None:
    """The same run, except that where a step failed, the script it is in (the file, or the
    inner script a layer runs) stops there with status 1 and says which step failed; what
    the outer script does after that layer runs as before."""
    if _records_equal(after.records, before.records, "") and (
            after.stdout, after.status) == (before.stdout, before.status):
        return None
    left = list(before.records)
    for r in after.records:
        if r not in left:
            return (f"the fixed run did something the original did not: {r}\n"
                    f"  {before.records}\n  {after.records}")
        left.remove(r)
    said = "FAILED" in after.stderr or "FAILED" in after.stdout
    printed = [line for line in after.stdout.splitlines()
               if line not in before.stdout.splitlines()]
    if said and not printed:
        return None
    # A last step that only reports a failure now ends the script with status 1 too.
    if after.status == 1 and after.stdout == before.stdout and not left:
        return None
    return (f"it did not stop as the document says: status {before.status} -> {after.status}, "
            f"stdout {before.stdout!r} -> {after.stdout!r}, stderr {after.stderr!r}")


def _qc201(before: Run, after: Run, case: Case) -> str | None:
    """The same commands run on the remote side; the script now travels on ssh's stdin."""
    keep = {"ssh", "bash", "sh", "dash", "zsh"}
    rb = [r for r in before.records if r["side"] == "remote" and r["argv"][0] not in keep]
    ra = [r for r in after.records if r["side"] == "remote" and r["argv"][0] not in keep]
    if not _records_equal(rb, ra, case.text):
        return f"the remote side ran something else:\n  {rb}\n  {ra}"
    lb = [r for r in before.records if r["side"] == "local" and r["argv"][0] not in keep]
    la = [r for r in after.records if r["side"] == "local" and r["argv"][0] not in keep]
    if lb != la:
        return f"the local side ran something else:\n  {lb}\n  {la}"
    sb, sa = _ssh_records(before.records), _ssh_records(after.records)
    if len(sa) != len(sb):
        return "ssh ran a different number of times"
    for b, a in zip(sb, sa, strict=True):
        if a == b:
            continue  # another ssh of the script
        _, cmd_b = split_ssh(b["argv"])
        _, cmd_a = split_ssh(a["argv"])
        sent = a.get("stdin", "").replace(" < /dev/null", "")
        script = " ".join(cmd_b).replace(" < /dev/null", "")
        if len(cmd_a) != 2 or cmd_a[1] != "-s" or sent.strip("\n") != script.strip("\n"):
            return f"ssh got {cmd_a} and stdin {a.get('stdin')!r} for {cmd_b}"
    if (before.stdout, before.status) != (after.stdout, after.status):
        return f"output or status differ: {before.stdout!r} -> {after.stdout!r}"
    return None


def _qc210(before: Run, after: Run, case: Case) -> str | None:
    """Apart from the kill statement (and the sleep after it), which become the stop-and-wait
    block, everything runs as before."""
    replaced = "".join(case.text[e.span[0]:e.span[1]] for e in case.fix.edits)
    gone = {w for w in re.findall(r"[A-Za-z0-9_.+-]+", replaced)} | {"pgrep", "sleep"}
    if not _records_equal(_without(before.records, gone), _without(after.records, gone), ""):
        return f"other commands changed:\n  {before.records}\n  {after.records}"
    if before.status != after.status:
        return f"status {before.status} -> {after.status}"
    extra = [line for line in after.stdout.splitlines() if line not in before.stdout.splitlines()
             and not re.fullmatch(r"No .* running: nothing to stop", line)]
    return f"unexpected output {extra}" if extra else None


def _qc109(before: Run, after: Run, case: Case) -> str | None:
    """The quoted word reaches ssh as written; nothing else changes."""
    word = bash_words(case.fix.edits[0].text)
    changed = changed_pairs(before.records, after.records)
    if len(word) != 1 or changed is None:
        return SKIP if len(word) != 1 else "a different number of commands ran"
    for b, a in changed:
        if b["argv"][0] != "ssh" or word[0] not in a["argv"]:
            return f"{b['argv']} -> {a['argv']}: not {word[0]!r} handed over as written"
        i = a["argv"].index(word[0])
        tail = len(a["argv"]) - i - 1
        if a["argv"][:i] != b["argv"][:i] or a["argv"][i + 1:] != b["argv"][
                len(b["argv"]) - tail:]:
            return f"ssh's other words changed: {b['argv']} -> {a['argv']}"
    return None if len(changed) == 1 else f"{len(changed)} commands changed"


def _qc112(before: Run, after: Run, case: Case) -> str | None:
    """One word more, the name for $0, where the fix put it; nothing else changes."""
    name = case.fix.edits[0].text.strip()
    pairs = changed_pairs(before.records, after.records)
    if pairs is None:
        return "a different number of commands ran"
    for b, a in pairs:
        ok = any(a["argv"][:i] + a["argv"][i + 1:] == b["argv"] and a["argv"][i] == name
                 for i in range(len(a["argv"])))
        if not ok:
            return f"{b['argv']} -> {a['argv']}: not just `{name}` inserted"
    return None if len(pairs) == 1 else f"{len(pairs)} commands changed"


def _qc107(before: Run, after: Run, case: Case) -> str | None:
    """The layer now receives the quotes that were meant (the same text with the two inner
    quote characters kept); nothing else changes."""
    changed = changed_pairs(before.records, after.records)
    if changed is None or len(changed) != 1:
        return "a different number of commands ran" if changed is None else \
            f"{len(changed)} commands changed"
    b, a = changed[0]
    i = 0
    while i < min(len(a["argv"]), len(b["argv"])) and a["argv"][i] == b["argv"][i]:
        i += 1
    got, had = " ".join(a["argv"][i:]), " ".join(b["argv"][i:])
    quote = case.fix.edits[0].text[-1]
    squeeze = lambda t: " ".join(t.split())  # noqa: E731
    if b["argv"][0] not in LAYER_PROGRAMS | set(WRAPPERS):
        # The layer is `eval` (it ran here): the quoted words now hold together.
        got, had = got.replace(quote, ""), had.replace(quote, "")
        if squeeze(got) == squeeze(had) and len(a["argv"]) < len(b["argv"]):
            return None
    if got.count(quote) - had.count(quote) != 2 or squeeze(got.replace(quote, "")) != squeeze(
            had.replace(quote, "")):
        return f"{b['argv']} -> {a['argv']}: not the same text with its quotes kept"
    return None
