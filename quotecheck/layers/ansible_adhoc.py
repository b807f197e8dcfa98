"""An ad-hoc `ansible` command that hands its hosts a command line for their shell.

Facts (ansible(1) and the `shell` and `raw` modules of ansible-core 2.16; docs.ansible.com):
- `ansible PATTERN [options]`; `-a`/`--args` gives the module its arguments, `-m`/
  `--module-name` the module (`command` when none is named); module names may carry the
  `ansible.builtin.` or `ansible.legacy.` prefix;
- the `shell` module runs its arguments with `/bin/sh -c` on each host (its `executable`
  option, given inside the text, can choose another shell); `raw` sends them through the
  connection (ssh) to the host's login shell;
- the `command` module splits its arguments shell-style but runs no shell: no layer is opened
  for it here.

The local shell has done its expansions on the `-a` text before ansible starts, so a `$2`
written for the hosts' awk in double quotes is this shell's (empty).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from quotecheck.layers.argv_options import Grammar, scan
from quotecheck.layers.handoff_types import Handler, Handoff, ShellHandoff

ANSIBLE_GRAMMAR = Grammar(
    short_flags="bkKCDovh",
    short_values="aeifmlMcuTBPt",
    long_flags=frozenset({
        "become", "ask-become-pass", "ask-pass", "check", "diff", "one-line", "list-hosts",
        "syntax-check", "version", "help", "ask-vault-password", "ask-vault-pass", "verbose"}),
    long_values=frozenset({
        "args", "extra-vars", "inventory", "inventory-file", "forks", "module-name", "limit",
        "module-path", "connection", "user", "timeout", "background", "poll", "tree",
        "become-user", "become-method", "private-key", "key-file", "vault-id",
        "vault-password-file", "ssh-common-args", "ssh-extra-args", "scp-extra-args",
        "sftp-extra-args", "playbook-dir", "task-timeout", "connection-password-file",
        "become-password-file"}),
    permute=True,
)
_PREFIXES = ("ansible.builtin.", "ansible.legacy.")
# The shell each module's text reaches, and how messages say where that comes from.
_MODULE_SHELLS = {
    "shell": ("sh", "ansible's shell module: /bin/sh -c on each host"),
    "raw": ("unknown", "ansible's raw module: the login shell of each host"),
}


def parse_ansible(
    argv: tuple[str, ...], dynamic: AbstractSet[int], start: int, end: int
) -> Handoff | None:
    sc = scan(argv, ANSIBLE_GRAMMAR, start + 1, end, dynamic)
    args = sc.last("-a", "--args")
    module_opt = sc.last("-m", "--module-name")
    if args is None or args.value_index is None:
        return None
    module = "command"
    if module_opt is not None:
        if module_opt.value is None or module_opt.value_index in dynamic:
            return None
        module = module_opt.value
        for prefix in _PREFIXES:
            module = module.removeprefix(prefix)
    if module not in _MODULE_SHELLS:
        return None
    shell, source = _MODULE_SHELLS[module]
    at = args.value_index
    # `-aTEXT` / `--args=TEXT`: the text starts after the option in the same word
    offset = 0 if at != args.index else len(argv[at]) - len(args.value or "")
    return ShellHandoff(
        argv=argv, shell=shell, mode="c", script=at, script_offset=offset, wrapper="ansible",
        shell_source=source, elsewhere="the hosts of ansible", options=sc.options,
        uncertain=sc.uncertain,
    )


HANDLERS: dict[str, Handler] = {"ansible": parse_ansible}
