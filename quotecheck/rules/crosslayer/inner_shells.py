"""The inner shell layers an expansion can land in: how each is run (`sh -c`, ssh, eval,
a wrapper), how messages name it, and whether its environment is this shell's."""

from __future__ import annotations

from quotecheck.layers import handoff_types as ho
from quotecheck.layers.model import Layer, Trace
from quotecheck.programs import ENVIRONMENT_CHANGERS, WORD_PRINTERS
from quotecheck.rules.api import CheckContext
from quotecheck.rules.crosslayer.text import basename

# Variables that usually differ between this machine (or user) and the inner layer's.
ENVIRONMENT_NAMES = frozenset({
    "HOME", "USER", "LOGNAME", "USERNAME", "PATH", "PWD", "OLDPWD", "HOSTNAME", "HOST",
    "SHELL", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM",
    "DISPLAY", "MAIL", "UID", "EUID", "GROUPS", "PPID", "RANDOM", "SECONDS", "LINENO",
    "BASHPID", "BASH", "BASH_VERSION", "SHLVL", "HOSTTYPE", "MACHTYPE", "OSTYPE", "HISTFILE",
    "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY", "SSH_AUTH_SOCK", "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "VIRTUAL_ENV", "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV", "LD_LIBRARY_PATH", "PYTHONPATH", "JAVA_HOME", "GOPATH", "EDITOR",
    "PAGER", "PS1", "PS2", "PS4",
})


def is_eval(trace: Trace, layer: Layer) -> bool:
    parent = trace.layers[layer.parent] if layer.parent is not None else None
    return parent is not None and parent.kind == "join" and parent.via == "eval"


def eval_prints(trace: Trace, layer: Layer) -> str | None:
    """`eval echo ...`/`eval printf ...` as written: the script evals the text to have its
    words expanded, and names the printer it runs."""
    if not is_eval(trace, layer) or layer.parent is None:
        return None
    view = trace.layers[layer.parent].opened_by
    argv = view.argv if view is not None else []
    if len(argv) > 1 and not argv[1].dynamic and argv[1].value in WORD_PRINTERS:
        return argv[1].value
    return None


def is_ssh_shell(trace: Trace, layer: Layer) -> bool:
    parent = trace.layers[layer.parent] if layer.parent is not None else None
    return parent is not None and parent.kind == "ssh"


def has_own_arguments(layer: Layer) -> bool:
    """The inner shell got words after its script: `sh -c STR a0 a1`, `bash -s a b`."""
    return len(layer.positional) >= 2


def program_of(layer: Layer) -> str:
    if layer.process:
        name = basename(layer.process[0]).lstrip("-")
        if name and not name.startswith("<"):
            return name
    return layer.dialect if layer.dialect in ("bash", "sh", "zsh") else "sh"


def _wrapper_of(layer: Layer) -> str | None:
    """`su`, `sudo -s`, `tmux`, `flock`... when they (not argv) choose the shell program."""
    if not layer.process or not layer.process[0].startswith(("<", "-<")):
        return None
    view = layer.opened_by
    if view is None or not view.argv or view.argv[0].dynamic:
        return None
    name = basename(view.argv[0].value)
    return None if name == "ssh" else name


def runs_shell_program(layer: Layer) -> bool:
    """The layer is `SHELL -c SCRIPT ...` run by name (sh, bash...), not picked by a wrapper."""
    return bool(layer.process and len(layer.process) > 1 and layer.process[1] == "-c"
                and not layer.process[0].startswith(("<", "-<")))


def describe(trace: Trace, layer: Layer) -> str:
    """`the remote shell on h`, `the \\`sh -c\\` shell`, `eval`..."""
    host = layer.where.partition(":")[2]
    host = "" if host == "?" else host  # (not named in the file)
    if is_ssh_shell(trace, layer):
        dest = host or "the remote host"
        if layer.stdin_script:
            return f"the remote login shell on {dest} (reading stdin)"
        return f"the remote shell on {dest}"
    if is_eval(trace, layer):
        return "eval (the same shell parses the text again)"
    prog = program_of(layer)
    where = " on " + host if layer.where.startswith("remote:") and host else ""
    wrapper = _wrapper_of(layer)
    if wrapper is not None:
        return f"the shell started by `{wrapper}`{where}"
    if layer.stdin_script:
        return f"the `{prog}` reading stdin{where}"
    if layer.process and len(layer.process) > 1 and layer.process[1] == "-c":
        return f"the `{prog} -c` shell{where}"
    return f"the inner {prog}{where}"


def environment_differs(trace: Trace, outer: Layer, inner: Layer) -> bool:
    """Between ``outer`` and ``inner`` the environment changes: another machine, user or
    container (ssh, sudo, su, docker exec...)."""
    chain = inner.chain(trace.layers)
    try:
        at = next(i for i, x in enumerate(chain) if x.id == outer.id)
    except StopIteration:
        return False
    for layer in chain[at + 1:]:
        if layer.kind == "ssh" or layer.where != outer.where:
            return True
        if layer.kind == "exec" and (layer.via or "") in ENVIRONMENT_CHANGERS:
            return True
        view = layer.opened_by
        if (view is not None and view.argv and not view.argv[0].dynamic
                and basename(view.argv[0].value) in ENVIRONMENT_CHANGERS):
            return True
    return False


def sudo_escaped(ctx: CheckContext, layer: Layer) -> bool:
    """``layer`` is the shell ``sudo -s CMD`` / ``sudo -i CMD`` starts: its text is sudo's
    escaped join of the words (`programs.SUDO_SHELL_KEPT`), so a `$` in them always expands
    there and no backslash written in the words can stop it (sudo escapes the backslash)."""
    view = layer.opened_by
    if layer.kind != "shell" or view is None:
        return False
    return any(isinstance(h, ho.ShellHandoff) and h.script_words for h in view.handoffs)
