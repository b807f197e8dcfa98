"""Commands for the layer-model oracle (tests/test_oracle.py).

Each :class:`Case` is a command line (or script) that the oracle runs for real: a local bash or
dash, the throw-away sshd of :mod:`tests.harness.sshd` with a bash or dash login shell, the real
wrappers (env, nohup, timeout, xargs, find...), and argv-recording stubs for the leaf programs
(``rec``, ``awk``, ``python3``, ``kill``, ``sleep``; ``pargv`` also records its parent's argv).
The oracle then compares what really happened with ``quotecheck explain --format json``.

Nothing here states an expected result: the real programs are the expected result.

Conventions:

- ``ssh`` always reaches the test server (the harness wrapper overrides host, port, user and
  key), so commands are written as they would be for a real host (``ssh -p 10638 root@gpu ...``).
- Commands run in a fresh temporary directory holding :attr:`Case.files`.
- ``sudo`` is not installed here and is left out. ``su``/``runuser`` run as root to root (no
  privilege change). ``watch`` needs a terminal type: its cases set ``TERM``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CASES", "DFLASH_PROBE", "DFLASH_RESTART", "Case", "sq", "sqd"]


@dataclass(frozen=True)
class Case:
    """One command to run for real and to predict statically."""

    id: str
    command: str
    #: The local shell that runs ``command`` (and the dialect it is analysed as).
    shell: str = "bash"
    #: The remote login shell (the oracle passes it to the analysis as ``remote_shell``).
    login: str = "bash"
    #: Leaf programs replaced by recording stubs (``pargv`` and ``ssh`` are always there).
    stubs: tuple[str, ...] = ("rec",)
    #: What a stub prints, e.g. ``(("awk", "4242\\n"),)``.
    stub_stdout: tuple[tuple[str, str], ...] = ()
    #: Empty files created in the working directory first.
    files: tuple[str, ...] = ()
    #: Extra environment variables for the local shell.
    env: tuple[tuple[str, str], ...] = ()
    #: The local shell's standard input (``None``: ``/dev/null``).
    stdin: str | None = None
    #: The local shell's expected exit status (``None``: any), a sanity check of the set-up.
    rc: int | None = 0
    #: Stubs that also record the argv of their parent process (``pargv`` always does).
    parent_stubs: tuple[str, ...] = ()
    #: Every predicted command of a stub really runs (no untaken branch), so each predicted
    #: stub argv must be among the records too.
    all_run: bool = True


def sq(text: str) -> str:
    """Single-quote ``text`` for a POSIX shell with the ``'\\''`` idiom."""
    return "'" + text.replace("'", "'\\''") + "'"


def sqd(text: str) -> str:
    """Single-quote ``text`` with the ``'"'"'`` idiom (what ``shlex.quote`` emits)."""
    return shlex.quote(text)


_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "dflash"


def _seed(name: str) -> str:
    """The DFlash seed commands, byte for byte (``fixtures/dflash``)."""
    return (_FIXTURES / name).read_text(encoding="utf-8")


def _dflash_restart() -> str:
    text = _seed("restart.sh")
    # /workspace does not exist here: the redirection would fail and the trainer (a stub)
    # would never start. Everything else is the command exactly as it was run.
    return text.replace("/workspace/train.log", "/dev/null")


DFLASH_RESTART = _dflash_restart()
DFLASH_PROBE = _seed("probe.sh")

NL = "\n"
TAB = "\t"

_LOCAL_BASH: list[Case] = [
    Case("local-bash/quotes", "rec 'a b' \"c d\" e\\ f '' \"\" g''h"),
    Case("local-bash/ansi-c", "rec $'a\\tb' $'it\\'s' $'\\u00e9\\x41' $'nl\\n'"),
    Case("local-bash/locale-string", 'rec $"plain" x'),
    Case("local-bash/brace-expansion", "rec {a,b}c x{1..3} '{q,r}'"),
    Case("local-bash/unicode", "rec 'ünïcødé' \"日本 ✓\" ✓ é\\ è"),
    Case("local-bash/backslashes", "rec \"a\\\\b\" 'c\\\\d' e\\\\f \"\\$g\" \"\\`h\\`\" \"i\\j\""),
    Case("local-bash/newline-in-quotes", "rec 'line1\nline2' \"dq1\ndq2\" a\\\nb"),
    Case(
        "local-bash/globs-in-quotes", "rec '*' \"*.txt\" \\*.txt '[ab]'", files=("a.txt", "b.txt")
    ),
    Case("local-bash/glob-unquoted", "rec *.txt [ab].txt", files=("a.txt", "b.txt")),
    Case("local-bash/empty-args", "rec '' \"\" $'' \"$empty\" a", rc=0),
    Case("local-bash/variable-split", "x='a  b'; rec $x \"$x\" \"${x}z\" ${x:+set}"),
    Case("local-bash/command-substitution", "rec \"$(printf '%s' 'x y')\" `printf z` tail"),
    Case("local-bash/arithmetic", "rec $((2 * 3)) \"$((1 + 1))\""),
    Case("local-bash/tilde", "rec '~' \"~/x\" ~ x=~"),
    Case("local-bash/comment-and-redirect", "rec a >/dev/null 2>&1 b # c d"),
    Case("local-bash/list-and-pipeline", "rec a | rec b && rec c; rec d || rec e", all_run=False),
    Case("local-bash/assignment-prefix", "A='x y' rec \"a=b\" --opt=v -- -x"),
    Case("local-bash/function-args", "f() { rec \"$@\" \"$#\"; }; f a 'b c' ''"),
    Case("local-bash/subshell-group", "(rec sub 'a b'); { rec grp; }; if true; then rec then; fi"),
    Case(
        "local-bash/case-and-loop",
        "for w in 'a b' c; do rec \"$w\"; done; case x in x) rec matched;; esac",
    ),
    Case("local-bash/tilde-after-equals", "rec --prefix=~/x PATH=a:~/b y:~"),
    Case("local-bash/no-history-expansion", "rec \"!x\" !y 'a!b'"),
    Case("local-bash/hash-inside-word", "rec a#b 'c' #d e"),
    Case("local-bash/concatenation", "rec a\\ b'c'\"d\"e $'f'g ''\"\"h"),
    Case("local-bash/dq-line-continuation", "rec \"a\\\nb\" 'c\\\nd'"),
    Case("local-bash/no-aliases", "alias rec='rec aliased'\nrec x"),
    Case("local-bash/escaped-dollars", "rec \\$HOME '\\$HOME' \"\\\\$HOME\" \"\\$HOME\""),
    Case("local-bash/command-builtin", "command rec c; command -- rec d"),
    Case("local-bash/exec-last", "rec first; exec rec 'last one'"),
]

_LOCAL_DASH: list[Case] = [
    Case("local-dash/quotes", "rec 'a b' \"c\\\"d\" e\\ f '' \"\"", shell="dash"),
    Case("local-dash/ansi-c-is-literal", "rec $'a\\tb' x", shell="dash"),
    Case("local-dash/no-brace-expansion", "rec {a,b} x{1..2}", shell="dash"),
    Case("local-dash/backslash-in-dq", "rec \"a\\b\" \"a\\\\b\" \"\\$x\" 'c\\d'", shell="dash"),
    Case("local-dash/unicode-newline", "rec 'é\nü' \"✓ x\"", shell="dash"),
    Case("local-dash/arith-and-split", "x='p  q'; rec $((3 + 4)) $x \"$x\"", shell="dash"),
    Case("local-dash/locale-string-is-literal", 'rec $"plain" x', shell="dash"),
    Case("local-dash/aliases-expand", "alias rec='rec aliased'\nrec x", shell="dash"),
    Case("local-dash/no-tilde-after-equals", "rec x=~ PATH=a:~/b", shell="dash"),
    Case("local-dash/escaped-dollars", "rec \\$HOME '\\$HOME' \"\\$HOME\"", shell="dash"),
]

_SSH: list[Case] = [
    Case("ssh/words-joined-with-spaces", 'ssh h rec "my file" b'),
    Case("ssh/single-quoted-command", "ssh -p 10638 root@gpu-box 'rec \"a b\" c'"),
    Case(
        "ssh/options-with-values",
        "ssh -p 22 -l someone -o StrictHostKeyChecking=no -i /nonexistent/id_x "
        "-c aes128-ctr -m hmac-sha2-256 -e none h rec x 'y z'",
    ),
    Case("ssh/options-after-destination", "ssh h -p 2222 -l u rec hi 'a  b'"),
    Case("ssh/attached-option-values", "ssh -p10638 -lroot -4 -q -C -oBatchMode=yes h rec a"),
    Case("ssh/o-forms", "ssh -o 'ConnectTimeout 5' -o User=x -oPort=1 h 'rec o-forms'"),
    Case("ssh/dashdash-before-destination", "ssh -p 1 -- h rec -p 1"),
    Case("ssh/dashdash-after-destination", "ssh h -- rec -l x -- y"),
    Case("ssh/flags-n-T", "ssh -n -T h rec nT"),
    Case("ssh/combined-flags-nT", "ssh -nTx h 'rec combined'"),
    Case("ssh/t-without-tty", "ssh -t h rec t 'a b'"),
    Case("ssh/tt-forced-pty", "ssh -tt h 'rec tt \"a b\"'"),
    Case("ssh/f-background", "ssh -f h 'rec bg \"x y\"'"),
    Case("ssh/two-connections", "ssh h rec 1; ssh -p 10638 root@gpu 'rec 2'"),
    Case("ssh/quoted-destination-glob", "ssh -o StrictHostKeyChecking=no root@[REDACTED_IP] rec q"),
    Case(
        "ssh/no-command-heredoc-login-bash",
        "ssh h <<'EOF'\nrec \"a b\" '$0'\nrec \"$0\"\nEOF",
    ),
    Case(
        "ssh/no-command-heredoc-login-dash",
        "ssh h <<'EOF'\nrec \"a b\" '$0'\nrec \"$0\"\nEOF",
        login="dash",
    ),
    Case("ssh/no-command-herestring", "ssh h <<< 'rec here \"x y\"'"),
    Case("ssh/empty-command-is-login-shell", "ssh h '' <<< 'rec empty-command'"),
    Case("ssh/no-command-heredoc-unquoted", "v='l v'\nssh h <<EOF\nrec \"$v\" \\$0\nEOF"),
    Case("ssh/empty-command-string-heredoc", "ssh h '' <<'EOF'\nrec empty-heredoc\nEOF"),
    Case("ssh/options-after-command-words", "ssh h rec -p 1 -- -x"),
    Case("ssh/dollar-stays-for-remote", "ssh h rec '$0' '\"$0\"' '~'"),
    Case("ssh/more-options-with-values", "ssh -E /dev/null -b 127.0.0.1 -F /dev/null h rec E b F"),
    Case("ssh/uri-destination", "ssh ssh://root@gpu-box:2222 rec uri 'a b'"),
    Case("ssh/bash-s-behind-sh-c", "ssh h sh -c \"'bash -s'\" <<'EOF'\nrec behind \"$0\"\nEOF"),
    Case("ssh/timeout-sh-s", "ssh h timeout 5 sh -s <<'EOF'\nrec timed 'a b'\nEOF"),
    Case("ssh/n-keeps-heredoc-for-next", "ssh -n h rec n <<'EOF'\nrec never\nEOF\nssh h rec after"),
]

_REMOTE: list[Case] = [
    Case("remote-bash/ansi-c", "ssh h \"rec \\$'a\\\\tb' x\""),
    Case("remote-dash/ansi-c-is-literal", "ssh h \"rec \\$'a\\\\tb' x\"", login="dash"),
    Case("remote-dash/locale-string-is-literal", "ssh h 'rec $\"plain\" x'", login="dash"),
    Case("remote-bash/brace-expansion", "ssh h 'rec {a,b} x{1..2}'"),
    Case("remote-dash/no-brace-expansion", "ssh h 'rec {a,b} x{1..2}'", login="dash"),
    Case("remote-bash/variables", "ssh h 'rec \"$HOME\" $0 \"${#HOME}\"'"),
    Case(
        "remote-bash/double-quoted-escaped-dollar",
        "ssh h \"rec \\$0 \\\"\\$HOME\\\" \\\\\\$lit 'a b' \\\"q\\\\\\\"q\\\"\"",
    ),
    Case(
        "remote-dash/double-quoted-escaped-dollar",
        "ssh h \"rec \\$0 \\\"\\$HOME\\\" \\\\\\$lit 'a b'\"",
        login="dash",
    ),
    Case("remote-bash/backslashes", "ssh h 'rec a\\\\b \"c\\\\d\" \"e\\f\" g\\h'"),
    Case("remote-dash/backslashes", "ssh h 'rec a\\\\b \"c\\\\d\" \"e\\f\" g\\h'", login="dash"),
    Case("remote-bash/newline-in-quotes", "ssh h 'rec \"a\nb\" x'"),
    Case("remote-dash/multiline-script", "ssh h '\nrec 1\nrec \"2 2\"\n'", login="dash"),
    Case("remote-bash/unicode", "ssh h rec \"'日本 ✓'\" ü"),
    Case("remote-bash/empty-args", "ssh h rec \"''\" '\"\"' a"),
    Case("remote-dash/globs-in-quotes", "ssh h 'rec \"*\" '\\''*.x'\\'' *.none'", login="dash"),
    Case("remote-bash/sq-idiom-backslash", "ssh h " + sq("rec 'a b' " + sq("it's"))),
    Case("remote-dash/sq-idiom-dq", "ssh h 'rec '\"'\"'a b'\"'\"' x'", login="dash"),
    Case("remote-bash/printf-q-style", "ssh h \"rec it\\\\'s\\\\ a\\\\ b \\$'c\\\\nd'\""),
    Case(
        "remote-dash/printf-q-style",
        "ssh h \"rec it\\\\'s\\\\ a\\\\ b \\$'c\\\\nd'\"",
        login="dash",
    ),
    Case("remote-bash/wrappers", "ssh h 'timeout 5 env X=1 rec \"a b\"; nice -n 2 rec n'"),
    Case("remote-dash/semicolon-and-pipe", "ssh h 'rec a; rec b | rec c && rec d'", login="dash"),
]

_SHELL_C: list[Case] = [
    Case("sh-c/positional", "sh -c 'rec \"$0\" \"$1\" \"$#\"' zero 'one two'"),
    Case("bash-c/at-and-empty", "bash -c 'rec \"$@\"' name a 'b c' ''"),
    Case("dash-c/unquoted-split", "dash -c 'rec $1' x 'a  b'"),
    Case("sh-c/only-first-word-is-script", "sh -c 'rec a' 'rec b'"),
    Case("sh-c/option-after-c", "sh -c -e 'rec \"$0\" after' z", shell="dash"),
    Case("bash-c/option-after-c", "bash -c -e 'rec \"$0\" after' z"),
    Case("sh-c/dashdash", "sh -c -- 'rec \"$0\"'"),
    Case("sh-c/combined-flags-ce", "sh -ce 'rec \"$0\" ce' z"),
    Case("bash-c/long-options", "bash --noprofile --norc -o errexit -c 'rec \"$0\"' zero"),
    Case("bash-c/no-args-dollar0", "bash -c 'rec \"$0\" \"$#\"'"),
    Case("bash-c/double-quoted-script", "bash -c \"rec \\$0 '\\$1' \\\"\\$1\\\"\" z 'o n'"),
    Case("dash-c/from-dash", "dash -c 'rec \"$0\" $1' a b", shell="dash"),
    Case("sh-c/over-ssh-loses-quoting", "ssh h sh -c 'rec a b'"),
    Case("sh-c/over-ssh-quoted", "ssh h \"sh -c 'rec \\\"\\$1\\\"' sh 'x y'\""),
    Case(
        "bash-c/inside-sh-c",
        "sh -c " + sq("bash -c " + sqd('rec "$0" "$@"') + " a b 'c d'"),
    ),
    Case(
        "bash-c/inside-sh-c-dash-login",
        "ssh h " + sq("sh -c " + sq('bash -c "rec \\"\\$0\\"" zero')),
        login="dash",
    ),
    Case("bash-s/heredoc-quoted", "ssh h bash -s <<'EOF'\nrec \"$0\" \"$1\" 'a b'\nEOF"),
    Case(
        "bash-s/args-over-ssh",
        "ssh h bash -s x \"'y z'\" <<'EOF'\nrec \"$1\" \"$2\" \"$#\"\nEOF",
    ),
    Case(
        "bash-s/heredoc-unquoted",
        "v='l v'\nssh h bash -s <<EOF\nrec \"$v\" \"\\$0\" \\\\\\$HOME\nEOF",
    ),
    Case(
        "sh-s/heredoc-tabs",
        f"ssh h sh -s <<-'EOF'\n{TAB}rec tabbed \"a b\"\n{TAB}{TAB}rec two\n{TAB}EOF",
    ),
    Case("sh-s/herestring-over-ssh", "ssh h sh -s <<< 'rec here \"a b\"'"),
    Case("bash-s/dashdash-args", "bash -s -- -x 'y z' <<'EOF'\nrec \"$@\"\nEOF"),
    Case("bash/no-args-reads-stdin", "bash <<'EOF'\nrec plain-bash \"$0\"\nEOF"),
    Case("sh/no-args-over-ssh", "ssh h sh <<'EOF'\nrec plain-sh\nEOF", login="dash"),
    Case("bash-s/partly-quoted-delimiter", "x=1\nbash -s <<E\"O\"F\nrec '$x' \"$0\"\nEOF"),
    Case("bash-s/backslash-delimiter", "x=1\nbash -s <<\\EOF\nrec \"$x\" z\nEOF"),
    Case(
        "bash-s/unquoted-heredoc-command-substitution",
        "ssh h bash -s <<EOF\nrec $(printf local) \\$(printf remote)\nEOF",
    ),
    Case("timeout/bash-s-heredoc", "timeout 5 bash -s x <<'EOF'\nrec \"$1\" timed\nEOF"),
    Case("bash-s/local-args", "bash -s a 'b c' <<'EOF'\nrec \"$@\" \"$0\"\nEOF"),
    Case("sh-s/local-herestring", "sh -s <<< 'rec \"x y\" z'"),
    Case("dash-s/local-from-dash", "dash -s x <<'EOF'\nrec \"$1\" 'q r'\nEOF", shell="dash"),
    Case(
        "bash-s/unquoted-heredoc-local",
        "w='p q'\nbash -s <<EOF\nrec \"$w\" '\\$w' \"\\$0\"\nEOF",
    ),
    Case(
        "sh-s/heredoc-dash-login",
        "ssh h sh -s <<'EOF'\nrec dash-login \"$0\"\nEOF",
        login="dash",
    ),
]

_EVAL: list[Case] = [
    Case("eval/single-quoted", "eval 'rec \"a b\" c'"),
    Case("eval/joins-words", "x='p q'; eval \"rec \\$x\" \"'r s'\""),
    Case("eval/quoted-spaces", "eval rec \"'a  b'\" '\"c  d\"'"),
    Case("eval/dash", "eval 'rec $((1 + 2)) \"x y\"'", shell="dash"),
    Case("eval/dashdash", "eval -- 'rec ev \"a b\"'"),
    Case("eval/semicolon-in-words", "eval 'rec a;' rec b"),
    Case("eval/at-Q", "x=\"it's\"; ssh h \"rec ${x@Q}\""),
    Case("eval/remote", "ssh h \"eval 'rec \\\"a b\\\"'\""),
    Case("eval/in-sh-c", "sh -c 'eval \"rec \\\"\\$1\\\" z\"' sh 'o n'"),
]

_EXEC: list[Case] = [
    Case("env/assignments", "env A=1 'B=x y' rec a \"b c\""),
    Case("env/i-and-path", "env -i PATH=\"$PATH\" rec a"),
    Case("env/u-and-dashdash", "env -u HOME -- rec --x"),
    Case("env/S-splits-string", "env -S 'rec \"a b\" c'"),
    Case("env/C-chdir", "env -C / rec chdir"),
    Case("env/long-options", "env --ignore-environment --unset=X PATH=\"$PATH\" rec long"),
    Case("env/dashdash-then-assignment", "env -- A=1 rec dd"),
    Case("nohup/plain", "nohup rec a 'b c' 2>/dev/null"),
    Case("timeout/plain", "timeout 5 rec x"),
    Case("timeout/options", "timeout -s KILL -k 1 5s rec y"),
    Case("timeout/long-options", "timeout --preserve-status --signal=TERM 5 rec z"),
    Case("timeout/foreground", "timeout --foreground 5 rec fg"),
    Case("timeout/kill-after-verbose", "timeout -v --kill-after=1 5 rec v"),
    Case("nice/n", "nice -n 5 rec a"),
    Case("nice/plain", "nice rec b"),
    Case("nice/obsolete-adjustment", "nice -5 rec c"),
    Case("nice/long-and-attached", "nice --adjustment=3 rec d; nice -n3 rec e"),
    Case("setsid/plain", "setsid rec a"),
    Case("setsid/wait", "setsid -w rec b 'c d'"),
    Case("setsid/fork", "setsid --fork --wait rec f"),
    Case("stdbuf/attached", "stdbuf -oL -e0 rec a"),
    Case("stdbuf/separate", "stdbuf -o L rec b"),
    Case("stdbuf/long", "stdbuf --output=L --error=0 rec c"),
    Case("time/bash-keyword", "time rec a 2>/dev/null"),
    Case("time/usr-bin-time", "/usr/bin/time -p rec b 2>/dev/null"),
    Case("time/bash-keyword-p", "time -p rec p 2>/dev/null"),
    Case("time/usr-bin-time-options", "/usr/bin/time -f '%e s' -o /dev/null rec f"),
    Case("time/dash-program", "time -p rec c 2>/dev/null", shell="dash"),
    Case("flock/plain", "flock lk rec a", files=("lk",)),
    Case("flock/wait", "flock -w 5 lk rec b", files=("lk",)),
    Case("flock/options", "flock -x -E 3 --timeout 5 lk rec o", files=("lk",)),
    Case("flock/nonblock-close", "flock -n -o lk rec n", files=("lk",)),
    Case("flock/c", "flock lk -c 'rec \"c d\" e'", files=("lk",)),
    Case("xargs/append", "printf '%s\\n' a b | xargs rec x"),
    Case("xargs/null", "printf 'a b\\0c\\0' | xargs -0 rec"),
    Case("xargs/I-placeholder", "printf '%s\\n' a b | xargs -I{} rec pre-{} {}"),
    Case("xargs/n1", "printf 'a\\nb\\n' | xargs -n1 rec"),
    Case("xargs/i-deprecated", "printf '%s\\n' a b | xargs -i rec '<{}>'"),
    Case("xargs/replace-long", "printf '%s\\n' a | xargs --replace=@ rec @ x@"),
    Case("xargs/delimiter-and-L", "printf 'a b,c' | xargs -d , -L 1 rec"),
    Case("xargs/arg-file", "printf 'a\\nb\\n' > in.txt; xargs -a in.txt rec f"),
    Case("xargs/parallel", "printf '%s\\n' a b | xargs -P 2 -n 1 rec"),
    Case("xargs/long-options", "printf 'a b' | xargs --max-args=1 --no-run-if-empty rec"),
    Case(
        "xargs/null-I-sh-c",
        "printf 'a b\\0' | xargs -0 -I{} sh -c 'rec \"$1\"' _ {}",
    ),
    Case("xargs/r-dashdash", "echo a | xargs -r -- rec"),
    Case("xargs/sh-c", "printf 'a\\n' | xargs sh -c 'rec \"$@\" \"$0\"' sh"),
    Case("find/exec-semicolon", "find . -name '*.txt' -exec rec {} \\;", files=("a.txt", "b.txt")),
    Case("find/exec-plus", "find . -name '*.txt' -exec rec x {} +", files=("a.txt", "b.txt")),
    Case("find/execdir", "find . -name 'a.txt' -execdir rec x{} \\;", files=("a.txt",)),
    Case(
        "find/two-exec-clauses",
        "find . -name a.txt -exec rec one {} \\; -exec rec two '{}' \\;",
        files=("a.txt",),
    ),
    Case(
        "find/placeholder-inside-word",
        "find . -name a.txt -exec rec '{}x' {} ';'",
        files=("a.txt",),
    ),
    Case(
        "find/options-before-path",
        "find -L . -maxdepth 1 -name a.txt -exec rec L {} \\;",
        files=("a.txt",),
    ),
    Case("find/execdir-plus", "find . -name '*.txt' -execdir rec {} +", files=("a.txt",)),
    Case(
        "find/exec-sh-c",
        "find . -name a.txt -exec sh -c 'rec \"$1\"' sh {} \\;",
        files=("a.txt",),
    ),
    Case("chain/nested-wrappers", "nohup timeout 5 nice -n 1 env A=1 rec deep 2>/dev/null"),
    Case("chain/setsid-stdbuf-timeout", "setsid stdbuf -oL timeout 5 rec 'x y'"),
    Case(
        "chain/stub-in-the-middle",
        "nohup timeout 5 nice -n 1 env A=1 rec deep 2>/dev/null",
        stubs=("rec", "nice"),
        all_run=False,  # the stub `nice` runs instead of the rest of the chain
    ),
    Case("nohup/sh-c", "nohup sh -c 'rec \"$1\"' sh 'x y' 2>/dev/null"),
    Case("ionice/class", "ionice -c 3 rec io"),
    Case("taskset/cpu-list", "taskset -c 0 rec ts"),
    Case("prlimit/nofile", "prlimit --nofile=512 rec pl"),
    Case("chrt/other", "chrt -o 0 rec ch"),
    Case("chroot/root", "chroot / rec chroot 'a b'"),
    Case("script/c", "script -qc 'rec \"a b\" c' /dev/null"),
    Case("su/c-and-args", "su root -c 'rec \"$0\" \"$1\" \"a b\"' x y"),
    Case("su/c-before-user", "su -c 'rec before-user' root"),
    Case("su/long-command", "su --command='rec \"long c\"' root"),
    Case("runuser/c", "runuser root -c 'rec \"r u\"'"),
    Case("su/s-dash", "su -s /bin/dash root -c 'rec $0'"),
    Case("runuser/u-dashdash", "runuser -u root -- rec 'a b'"),
    Case(
        "watch/x-exec",
        "watch -x -g -n 0.1 sh -c 'rec \"$1\"; date +%N' sh 'a b'",
        env=(("TERM", "xterm"),),
    ),
    Case(
        "watch/joins-words",
        "watch -n 0.1 -g rec w \"'a b'\" '; date +%N'",
        env=(("TERM", "xterm"),),
    ),
]

_AWK: list[Case] = [
    Case("awk/local-single-quoted", "printf 'a b\\n' | awk '{print $2}'", stubs=("awk",)),
    Case("awk/options", "awk -F: -v 'x=a\\tb' -- 'BEGIN{print x}'", stubs=("awk",)),
    Case("awk/double-quoted", "awk \"{print \\$1}\" /dev/null", stubs=("awk",)),
    Case("awk/attached-v", "awk -vFS=, -F ';' 'NR==1' /dev/null", stubs=("awk",)),
    Case("awk/remote-bash", "ssh h \"awk '{print \\$2}' /dev/null\"", stubs=("awk",)),
    Case(
        "awk/remote-dash-dq",
        "ssh h 'echo x | awk \"{print \\$2}\"'",
        stubs=("awk",),
        login="dash",
    ),
    Case("awk/long-options", "awk --posix -v x=1 '{print x}' /dev/null", stubs=("awk",)),
    Case(
        "awk/tab-separator-remote",
        "ssh h \"awk -F'\\t' '{print \\$1}' /dev/null\"",
        stubs=("awk",),
    ),
    Case(
        "awk/unquoted-heredoc-over-ssh",
        "ssh h bash -s <<EOF\nawk '{print $1}' /dev/null\nawk '{print \\$2}' /dev/null\nEOF",
        stubs=("awk",),
    ),
    Case("awk/assignment-operand", "awk -v a=1 '{print a}' b=2 /dev/null", stubs=("awk",)),
    Case("awk/in-sh-c", "sh -c \"awk '{print \\$NF}' /dev/null\"", stubs=("awk",)),
]

_NESTING: list[Case] = [
    Case(
        "nest/ssh-in-sh-c-in-ssh",
        "ssh h \"sh -c 'ssh h2 rec nested \\\"a b\\\"'\"",
    ),
    Case(
        "nest/ssh-in-sh-c-in-ssh-dash",
        "ssh -p 10638 root@gpu " + sq("sh -c " + sq("ssh h2 " + sq("rec " + sq("it's")))),
        login="dash",
    ),
    Case(
        "nest/sq-idiom-twice",
        "ssh h " + sq("sh -c " + sq("rec " + sq("it's") + ' "$0"') + " z"),
    ),
    Case(
        "nest/shlex-quote-twice",
        "ssh h " + sqd("bash -c " + sqd("rec " + sqd("a 'b' \"c\"") + ' "$1"') + " 0 one"),
        login="dash",
    ),
    Case(
        "nest/eval-in-ssh-in-bash-c",
        "bash -c " + sq("ssh h " + sq("eval " + sq("rec " + sq("e v")))),
    ),
    Case(
        "nest/timeout-sh-c-over-ssh",
        "ssh h " + sq("timeout 5 sh -c " + sq('rec "$1"') + " sh " + sq("x y")),
        login="dash",
    ),
    Case(
        "nest/xargs-in-ssh",
        "ssh h " + sq("printf '%s\\n' a b | xargs -I{} rec {} end"),
    ),
    Case(
        "nest/heredoc-into-ssh-into-sh-c",
        "ssh h sh -s <<'EOF'\nsh -c 'rec \"$0\" \"$1\"' a 'b c'\nEOF",
        login="dash",
    ),
    Case(
        "nest/backslash-newline-unicode-deep",
        "ssh h " + sq("sh -c " + sq("rec " + sqd("ü\\n" + NL + "x") + " '' \"\\\\\"")),
    ),
    Case(
        "dflash/restart-login-bash",
        DFLASH_RESTART,
        stubs=("awk", "kill", "python3"),
        stub_stdout=(("awk", "4242\n"),),
        # `sleep 3` shows which process runs the script: the remote shell, as `ps` sees it.
        parent_stubs=("sleep",),
        all_run=False,  # `kill -0` is the shell builtin, never the stub
    ),
    Case(
        "dflash/restart-login-dash",
        DFLASH_RESTART,
        login="dash",
        stubs=("awk", "kill", "python3"),
        stub_stdout=(("awk", "4242\n"),),
        parent_stubs=("sleep",),
        all_run=False,
    ),
    Case("dflash/probe", DFLASH_PROBE, stubs=("awk",)),
]

# A value only known when the outer layer runs, handed on inside the next layer's text.
_DYNAMIC: list[Case] = [
    Case("dynamic/local-value-split-remotely", "x='a b'; ssh h \"rec $x end\""),
    Case("dynamic/local-value-in-remote-single-quotes", "x='a b'; ssh h \"rec '$x' end\""),
    Case("dynamic/local-value-in-sh-c-single-quotes", "v='p q'; sh -c \"rec '$v' end\""),
    Case("dynamic/local-value-in-eval-single-quotes", "v='p q'; eval \"rec '$v' end\""),
    Case(
        "dynamic/unquoted-heredoc-single-quotes",
        "v='l v'\nssh h bash -s <<EOF\nrec '$v' end\nEOF",
    ),
    Case(
        "dynamic/awk-program-from-variable",
        "p='{print $1}'; awk \"$p\" /dev/null",
        stubs=("awk",),
    ),
]

# Values the script sets itself, command variables and arrays, wrapper functions: the trace
# puts in what it knows, so the predicted argv and `sends` are exact there; `sends_dynamic`
# marks what only the run time knows.
_KNOWN: list[Case] = [
    Case("known/value-split-and-quoted", "X='a b'; ssh h rec '=%s=' $X \"$X\" '$X'"),
    # The issue's own example: the remote shell takes `<%s>` for redirections and fails, but
    # what sshd receives is the point.
    Case("known/issue-printf", "X='a b'; ssh h printf '<%s>' $X \"$X\" '$X'", stubs=(),
         rc=None, all_run=False),
    Case("known/command-variable", "SSH='ssh -o BatchMode=yes'; $SSH h rec \"a b\" c"),
    Case("known/command-array", "SSH=(ssh -o BatchMode=yes); \"${SSH[@]}\" h 'rec arr'"),
    Case("known/options-array", "o=(-o BatchMode=yes -p 10638); ssh \"${o[@]}\" h 'rec opts'"),
    Case("known/run-variable", "RUN='rec run'; $RUN 'x y' z"),
    Case("known/quoted-value-in-remote-text", "APP=shop; ssh h \"rec restart $APP 'x y'\""),
    Case("known/heredoc-value", "d='/tmp/a b'\nssh h bash -s <<EOF\nrec \"$d\" \\$0\nEOF"),
    Case("known/default-value", "ssh h rec \"${UNSET_HERE:-fallback}\" x"),
    Case("wrapper/ssh-positional", "remote() { ssh \"$1\" \"$2\"; }; remote h 'rec \"w x\" y'"),
    Case(
        "wrapper/local-and-shift",
        "run_on() { local host=$1; shift; ssh \"$host\" \"$@\"; }; run_on h rec a 'b c'",
    ),
    Case("wrapper/sh-c", "as_app() { sh -c \"$1\"; }; as_app 'rec \"s t\" u'"),
    Case("wrapper/unquoted-split", "r() { ssh h $1; }; r 'rec p  q'"),
    Case("wrapper/star-joined", "r() { ssh h \"$*\"; }; r rec 'm  n' o"),
    Case(
        "dynamic/sends-dynamic-ranges",
        "ssh h rec ~/x *.txt \"$(printf 's t')\" \"$HOME\" x{1,2} '~'",
        files=("a.txt", "b.txt"),
    ),
]

# Commands whose stub records what their parent process (the shell running them) was given:
# the oracle compares that with the shell layer's `process`.
_PROCESS: list[Case] = [
    Case("process/remote-bash-c", "ssh h 'pargv a \"b c\"; :'"),
    Case("process/remote-dash-c", "ssh h 'pargv a \"b c\"'", login="dash"),
    Case("process/login-shell", "ssh h <<'EOF'\npargv login\nEOF"),
    Case("process/bash-s-over-ssh", "ssh h bash -s x <<'EOF'\npargv s\nEOF"),
    Case("process/local-sh-c", "sh -c 'pargv \"$0\"; :' zero 'one two'"),
    Case("process/local-bash-c-in-dash", "bash -c 'pargv; :'", shell="dash"),
    Case("process/eval-in-bash-c", "bash -c 'eval \"pargv e\"; :' arg0"),
    Case("process/flock-c", "flock lk -c 'pargv f; :'", files=("lk",)),
    Case("process/su-c", "su root -c 'pargv su; :'"),
    Case("process/remote-sh-c", "ssh h \"sh -c 'pargv \\\"\\$1\\\"' sh 'x y'\""),
    Case(
        "process/remote-bash-c-args",
        "ssh h " + sq("bash -c " + sq('pargv "$0"; :') + " zero " + sq("o n")),
        login="dash",
    ),
    Case(
        "process/sh-c-in-heredoc-over-ssh",
        "ssh h sh -s <<'EOF'\nsh -c 'pargv \"$0\"' a 'b c'\nEOF",
        login="dash",
    ),
    Case("process/timeout-sh-c", "timeout 5 sh -c 'pargv \"$1\"' sh 'x y'"),
    Case("process/env-bash-c", "env -u X bash -c 'pargv e; :'"),
    Case("process/remote-eval", "ssh h 'eval \"pargv ev\"; :'"),
    Case(
        "process/watch",
        "watch -n 0.1 -g 'pargv w; date +%N'",
        env=(("TERM", "xterm"),),
    ),
    Case(
        "process/nested-ssh",
        "ssh h " + sq("sh -c " + sq("ssh h2 " + sq("pargv deep; :"))),
    ),
    Case("process/script-c", "script -qc 'pargv sc; :' /dev/null"),
]

CASES: list[Case] = [
    *_LOCAL_BASH,
    *_LOCAL_DASH,
    *_SSH,
    *_REMOTE,
    *_SHELL_C,
    *_EVAL,
    *_EXEC,
    *_AWK,
    *_NESTING,
    *_DYNAMIC,
    *_KNOWN,
    *_PROCESS,
]
