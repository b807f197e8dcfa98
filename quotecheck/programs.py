"""Facts about shells and programs, defined here and nowhere else.

Which programs are shells and in which dialect their text is read, which shells exec the last
command of a ``-c`` string in place, which builtins run their arguments as a command, which
programs run a command in a container, as another user or on another machine, which steps
fail often and unseen (a kill, a package install, a download), and the one ``basename`` of a
program word. Every module that needs one of these facts imports it from here;
no other module may define a set of these names (``tests/test_programs.py`` greps the package
for copies).

How each argv wrapper (sudo, env, timeout, nice, xargs, docker exec...) reads its options is a
grammar, not a name, and lives with the parsers in ``layers/``; the sets below are the classes
of wrappers the trace and the rules tell apart. Some names here have no argv parser yet
(nerdctl, nsenter, machinectl, lxc-attach, incus, lxc, pkexec): no layer is opened through
them, so their membership starts to matter when a parser is added (the tests list them).

Pure data and three small functions: this module imports nothing of quotecheck and nothing that
is slow to import, so that every layer of the package, down to ``parsing/``, and the command
line's fast start-up path can import it.
"""

from __future__ import annotations

from typing import Final, Literal

Dialect = Literal["bash", "sh", "zsh", "unknown"]
"""How a shell layer's text is parsed and judged. ``unknown`` (a login shell nobody named) is
parsed as bash, the superset, and judged as possibly any POSIX sh."""

# -- shells -------------------------------------------------------------------------------------

SHELL_DIALECTS: Final[dict[str, Dialect]] = {
    # POSIX sh, and the shells quotecheck reads as one (no `$'...'`, no `[[`, no arrays).
    "sh": "sh",  # dash on Debian and Ubuntu, bash (in POSIX mode) elsewhere
    "dash": "sh",
    "ash": "sh",
    "busybox": "sh",  # its `sh` applet: `busybox sh`, and a process that shows as busybox
    "busybox-sh": "sh",
    "posh": "sh",
    # bash, and the Korn shells, which quotecheck reads as bash (`$'...'`, `[[`, arrays).
    "bash": "bash",
    "rbash": "bash",
    "ksh": "bash",
    "ksh93": "bash",
    "mksh": "bash",
    "lksh": "bash",
    "pdksh": "bash",  # Debian's pdksh is mksh
    "zsh": "zsh",
    # Has `$'...'` and extensions of its own: a dialect quotecheck does not model.
    "yash": "unknown",
}
"""Each shell program and the dialect its text is read in."""

SHELL_PROGRAMS: Final[tuple[str, ...]] = tuple(n for n in SHELL_DIALECTS if n != "busybox")
"""Program words that start a shell by their own name (``layers/shells.py`` reads their
options); busybox is a multi-call program, whose applet word names the program."""

SHELL_OPTION_VALUES: Final[tuple[str, ...]] = ("bash", "sh", "dash", "zsh")
"""The shells ``--shell``, ``--remote-shell``, the ``remote-shell`` setting and the
``# quotecheck: remote-shell=`` directive accept."""

SCRIPT_SHEBANG_SHELLS: Final[tuple[str, ...]] = ("sh", "bash", "dash", "ksh", "mksh", "ash", "zsh")
"""A file without an extension is a shell script to check when its ``#!`` line names one of
these (``files.py``)."""

MAKE_POSIX_SHELLS: Final[frozenset[str]] = frozenset(
    {"sh", "bash", "dash", "ksh", "rksh", "zsh", "ash"})
"""The SHELL names GNU make treats as POSIX shells (it then removes recipe prefixes from every
line of a ``.ONESHELL`` recipe, not only the first: ``hosts/make.py``)."""

POSIX_SHELLS: Final[frozenset[str]] = frozenset(
    n for n, d in SHELL_DIALECTS.items() if d == "sh")
"""Shells that are a POSIX sh, or may be one: ``sh`` is dash on Debian, bash elsewhere."""

NEVER_BASH: Final[frozenset[str]] = POSIX_SHELLS - {"sh"}
"""POSIX shells that are never bash, whatever the system."""

ASH_FAMILY: Final[frozenset[str]] = frozenset({"dash", "ash", "busybox", "busybox-sh"})
"""dash and busybox's sh descend from ash; they share how they fork and keep descriptors."""

EXEC_LAST_COMMAND: Final[frozenset[str]] = frozenset({"bash", "rbash", "zsh"})
"""Shells that exec the last simple command of a ``-c`` string in place (the shell process is
replaced: verified with bash 5.2, rbash and zsh 5.9; ``tests/test_programs.py`` runs them)."""

FORK_LAST_COMMAND: Final[frozenset[str]] = ASH_FAMILY | {"posh"}
"""Shells that never exec the last command of a ``-c`` string: it runs as their child
(verified with dash 0.5.12). Any other shell: it depends."""

QUOTE_SHELLS: Final[tuple[str, ...]] = ("sh", "bash", "dash", "zsh", "tcsh", "csh", "fish")
"""The shells ``quotecheck quote`` quotes for (its ``--shell`` values)."""

POSIX_QUOTING: Final[frozenset[str]] = frozenset({"sh", "bash", "dash", "zsh"})
"""Quote targets that read POSIX single quotes (and ``'"'"'``) back exactly."""

# -- builtins -----------------------------------------------------------------------------------

IN_PLACE_BUILTINS: Final[frozenset[str]] = frozenset(
    {"exec", "command", "builtin", "noglob", "nocorrect"})
"""Builtins and zsh precommand modifiers that run their arguments as a command of the same
shell, opening no layer: ``exec prog`` (the shell is replaced), ``command prog``..."""

SAME_SHELL_PREFIXES: Final[frozenset[str]] = IN_PLACE_BUILTINS - {"exec"}
"""Those that run the builtin named after them in this very shell (``builtin source F``,
``command read X``); ``exec`` runs a program of that name instead."""

DECLARATION_BUILTINS: Final[frozenset[str]] = frozenset(
    {"export", "local", "declare", "typeset", "readonly"})
"""Builtins whose ``NAME=value`` arguments assign variables."""

NO_PROCESS_BUILTINS: Final[frozenset[str]] = frozenset(
    {"echo", "printf", "test", "[", "read", "set", "unset", "cd", "exit", "return", "shift",
     "trap", ":", "true", "false"}) | DECLARATION_BUILTINS
"""Builtins of every shell quotecheck models (bash, dash, zsh, busybox ash): the shell runs
them itself, so their arguments are on no process's command line."""

SCRIPT_SOURCERS: Final[frozenset[str]] = frozenset({"source", "."})
"""Builtins that run another file's commands in this shell: any variable may change."""

NUMBER_VARIABLES: Final[frozenset[str]] = frozenset(
    {"LINENO", "RANDOM", "SECONDS", "BASHPID", "PPID", "UID", "EUID", "SRANDOM",
     "EPOCHSECONDS", "OPTIND", "SHLVL"})
"""Shell variables whose value is always a number while the script does not assign them."""

NUMBER_SPECIALS: Final[frozenset[str]] = frozenset({"$", "#", "?", "!"})
"""Special parameters that always expand to a number (or nothing)."""

PLAIN_OUTPUT_COMMANDS: Final[dict[tuple[str, ...], str]] = {
    ("whoami",): "word", ("hostname",): "word", ("hostname", "-s"): "word",
    ("hostname", "-f"): "word", ("hostname", "--fqdn"): "word", ("uname",): "word",
    ("uname", "-s"): "word", ("uname", "-m"): "word", ("uname", "-r"): "word",
    ("uname", "-n"): "word", ("arch",): "word", ("id", "-un"): "word", ("id", "-gn"): "word",
    ("git", "rev-parse", "HEAD"): "word", ("git", "rev-parse", "--short", "HEAD"): "word",
    ("nproc",): "number", ("id", "-u"): "number", ("id", "-g"): "number",
    ("date", "+%s"): "number",
}
"""Commands whose whole output is one plain word (a user or host name, a kernel release, a
commit id) or a number: pasted into code, it cannot be split or run (a host name cannot hold
a blank or a shell metacharacter)."""

DATE_PLAIN_DIRECTIVES: Final[frozenset[str]] = frozenset("YmdHMSsjuVGgyCINFTDz")
"""``date +FORMAT`` directives that give digits, `-`, `:` or `/` only (``%e``, ``%k``, ``%l``
pad with a blank and are left out)."""

# -- programs that run a command somewhere else -------------------------------------------------

CONTAINER_RUNNERS: Final[frozenset[str]] = frozenset({"docker", "podman", "kubectl", "nerdctl"})
"""``exec``/``run`` run the command inside a container: its own files, environment, users and
processes (the trace marks the layer ``container:NAME``)."""

USER_SWITCHERS: Final[frozenset[str]] = frozenset(
    {"sudo", "doas", "su", "runuser", "gosu", "su-exec", "setuser", "pkexec"})
"""Run the command as another user: another environment and other permissions, the same
machine and the same processes."""

SUDO_SHELL_KEPT: Final[frozenset[str]] = frozenset("_-$")
"""``sudo -s CMD...`` and ``sudo -i CMD...`` run the shell with ``-c`` and one string: the words
joined with single spaces, each byte that is not an ASCII letter or digit and not one of these
characters preceded by a backslash (sudo's src/parse_args.c; verified with sudo 1.9.13p3). So
the shell reads every character of the words as a literal, a value from the outer shell too:
nothing in them is parsed as code, splits or globs. The exceptions: a ``$`` stays, so ``$name``,
``$1``, ``$$`` in the words expand there (``${...}`` and ``$(...)`` do not: their ``{`` or
``(`` is escaped), an escaped newline is a line continuation the shell deletes, and an empty
word vanishes."""


def sudo_shell_escapes(ch: str) -> bool:
    """Whether sudo -s/-i puts a backslash before ``ch`` (one per UTF-8 byte of it)."""
    return not ((ch.isascii() and ch.isalnum()) or ch in SUDO_SHELL_KEPT)


NAMESPACE_ENTERERS: Final[frozenset[str]] = frozenset(
    {"nsenter", "machinectl", "lxc-attach", "incus", "lxc"})
"""Run the command inside another container or machine's namespaces."""

ENVIRONMENT_CHANGERS: Final[frozenset[str]] = (
    CONTAINER_RUNNERS | USER_SWITCHERS | NAMESPACE_ENTERERS | {"chroot"})
"""The command's environment is not this shell's: another user, container or root. (ssh is a
layer of its own; srun passes the environment on by default.)"""

MPI_LAUNCHERS: Final[frozenset[str]] = frozenset({"mpirun", "mpiexec", "orterun"})
"""Start a program as the processes of an MPI job, on the hosts they are given."""

PROCESS_BOUNDARIES: Final[frozenset[str]] = (
    CONTAINER_RUNNERS | NAMESPACE_ENTERERS | {"srun", "ssh"})
"""The command runs on another machine (ssh; srun, on a cluster node) or in another pid
namespace: the processes it sees (``pkill``, ``ps``) are not this shell's. A user switcher or
chroot keeps the processes in view."""

TASK_LAUNCHERS: Final[frozenset[str]] = CONTAINER_RUNNERS | MPI_LAUNCHERS | {"srun"}
"""Start the command as tasks (a cluster job step) or in a container whose environment each
task or container sets for itself (``TASK_VARIABLES``)."""

TASK_VARIABLES: Final[frozenset[str]] = frozenset({
    # Slurm, per task of a step (srun(1) OUTPUT ENVIRONMENT VARIABLES)
    "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_TASK_PID", "SLURMD_NODENAME",
    # Open MPI, MPICH/PMI, PMIx, MVAPICH: a process's own rank
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_NODE_RANK",
    "PMI_RANK", "PMIX_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_RANK",
    "MV2_COMM_WORLD_LOCAL_RANK",
    # torchrun and the launchers that imitate it
    "RANK", "LOCAL_RANK", "GROUP_RANK",
    # a Kubernetes indexed Job's pod
    "JOB_COMPLETION_INDEX"})
"""Variables each task, process or pod gets a value of its own for: expanded by the shell that
launches them, every task gets the launcher's value (usually empty)."""

HANGUP_DETACHERS: Final[frozenset[str]] = frozenset({"nohup", "setsid"})
"""Run the command out of reach of the terminal's hangup (SIGHUP)."""

AWK_PROGRAMS: Final[tuple[str, ...]] = ("awk", "gawk", "mawk", "nawk", "original-awk", "bwk-awk")
"""The awk implementations (``layers/awk.py`` reads their argv; Debian's awk and nawk are mawk or
gawk, original-awk and bwk-awk the one true awk)."""

GREP_PROGRAMS: Final[tuple[str, ...]] = ("grep", "egrep", "fgrep")
"""GNU grep and its two fixed-syntax names (``egrep`` is ``grep -E``, ``fgrep`` is ``grep -F``)."""

MACHINE_FACTS: Final[frozenset[str]] = frozenset({
    "uname", "hostname", "whoami", "id", "arch", "nproc", "hostid", "lsb_release", "logname",
    "getconf", "sw_vers", "hostnamectl"})
"""Print a fact about the machine (or user) that runs them: its system, name, user, cores.
Run on one machine to decide what another does, they answer for the wrong one."""

WORD_PRINTERS: Final[frozenset[str]] = frozenset({"echo", "printf"})
"""Print their arguments: `eval echo "$x"` runs only to have the shell expand `$x`'s words."""

MYSQL_CLIENTS: Final[frozenset[str]] = frozenset(
    {"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlbinlog",
     "mariadb", "mariadb-dump", "mariadb-admin", "mariadb-import", "mariadb-show",
     "mariadb-check"})
"""MySQL and MariaDB clients: take the password as `-pX`/`--password=X`, overwrite it in their
own argv while they start (MySQL manual,
"End-User Guidelines for Password Security": visible to `ps` for a brief interval only), and
warn on stderr that the command line is insecure."""

REGISTRY_LOGIN_TOOLS: Final[frozenset[str]] = frozenset(
    {"docker", "podman", "buildah", "skopeo", "nerdctl", "helm", "oras"})
"""Have a ``login`` sub-command that takes a registry password on the command line."""

FILE_NAME_LISTERS: Final[frozenset[str]] = frozenset(
    {"find", "ls", "locate", "mlocate", "plocate", "fd", "fdfind", "git", "tar", "unzip", "zipinfo",
     "rsync", "du", "cat", "echo", "printf", "readlink", "realpath", "basename", "dirname"})
"""Print file names (or lines a script keeps file names in): what `xargs` hands on from them
can hold any character a file name can."""

NETWORK_READERS: Final[frozenset[str]] = frozenset(
    {"curl", "wget", "nc", "ncat", "netcat", "socat", "http", "https", "aria2c"})
"""Print what another machine sent: data nobody in the script controls."""

LINE_FILTERS: Final[frozenset[str]] = frozenset(
    {"grep", "egrep", "fgrep", "sort", "uniq", "head", "tail", "sed", "awk", "gawk", "mawk",
     "cut", "tr", "tac", "tee", "rev"})
"""Pass on (some of) the lines they read: what comes out is what came in."""

PASSWORD_OPTION_PROGRAMS: Final[frozenset[str]] = frozenset(
    {"svn", "mongo", "mongosh", "rabbitmqadmin", "az"})
"""Take the secret itself as the value of ``--password VALUE`` (each has a way that keeps it off
the command line: svn's auth cache, a config file, a prompt)."""

RANDOM_DEVICES: Final[frozenset[str]] = frozenset(
    {"/dev/urandom", "/dev/random", "/proc/sys/kernel/random/uuid"})
"""Files whose every read gives new random bytes (the kernel's generator, random(4)): a value
drawn from them is made fresh on each run (QC302)."""

RANDOM_VALUE_PROGRAMS: Final[frozenset[str]] = frozenset(
    {"pwgen", "uuidgen", "apg", "makepasswd", "xkcdpass"})
"""Programs whose output is a new random password or identifier on each run (QC302)."""

FILE_PASSWORD_PROGRAMS: Final[frozenset[str]] = frozenset(
    {"openssl", "zip", "unzip", "7z", "7za", "7zr", "keytool", "pk12util", "certutil",
     "gpg", "gpg2"})
"""Programs whose password on the command line protects a file they read or write (a key, a
.p12 export, an archive, a keystore), not an account on a service: someone who reads it from
`ps` also needs the file (QC302)."""

RANDOM_VALUE_SUBCOMMANDS: Final[frozenset[tuple[str, str]]] = frozenset(
    {("openssl", "rand"), ("gpg", "--gen-random"), ("gpg2", "--gen-random")})
"""Program and first argument that print random bytes (QC302)."""

ALWAYS_READ_STDIN: Final[frozenset[str]] = frozenset({
    "read", "mapfile", "readarray", "tee", "sponge", "passwd", "chpasswd", "mysql", "psql",
    "sqlite3", "tr", "xargs", "less", "more", "parallel", "mail", "sendmail", "crontab",
    "ftp", "sftp", "nc", "ncat", "socat", "telnet", "expect", "gpg", "openssl", "vipe",
    "dialog", "whiptail", "select",
})
"""Commands that read their standard input whatever their arguments (or may: a password
prompt, a client without a script file). The programs that read it unless a file operand is
given are option tables: ``layers/tool_grammars.py``."""

# -- process selection -----------------------------------------------------------------------------

PROCESS_KILLERS: Final[frozenset[str]] = frozenset({"kill", "pkill", "killall"})
"""Programs that signal the processes a pattern, a name or a pid list selects (QC201, QC210)."""

PROGRAM_TEXT_LANGUAGES: Final[dict[str, str]] = {
    "sed": "sed", "gsed": "sed", "perl": "perl", "perl5": "perl",
    "jq": "jq", "gojq": "jq", "jaq": "jq"}
"""Programs given a program in a language of their own on the command line (QC105), by name;
python's names are a pattern (``rules/crosslayer/programs.py``), awk's ``AWK_PROGRAMS``."""

PROCESS_LISTERS: Final[frozenset[str]] = frozenset({"ps", "pgrep"})
"""Programs that list processes by a pattern, whose answer may include the asker (QC202)."""


# -- where a script runs with nobody at a terminal ---------------------------------------------

CI_VARIABLES: Final[frozenset[str]] = frozenset({
    "CI", "GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_RUN_ID", "GITLAB_CI", "CI_JOB_ID",
    "CI_PIPELINE_ID", "JENKINS_URL", "JENKINS_HOME", "BUILDKITE", "TRAVIS", "CIRCLECI",
    "TEAMCITY_VERSION", "TF_BUILD", "DRONE", "BITBUCKET_BUILD_NUMBER", "CODEBUILD_BUILD_ID"})
"""Variables a CI system sets for its jobs (each system's documented job environment)."""

ACTION_INPUT_PREFIX: Final[str] = "INPUT_"
"""The runner hands each input of a GitHub Action to the action's program as ``INPUT_<NAME>``
(the name upper-cased, blanks as ``_``; the Actions "metadata syntax" docs): the workflow that
uses the action chooses the value, event data such as a branch name or a commit message
included."""

CI_FOLDERS: Final[frozenset[str]] = frozenset({
    ".github", ".gitlab", ".circleci", ".buildkite", ".ci", "ci", "jenkins"})
"""Folders whose scripts CI jobs run."""

CI_WITHOUT_TERMINAL: Final[dict[str, str]] = {
    ".github": "GitHub Actions", "GITHUB_ACTIONS": "GitHub Actions",
    "GITHUB_WORKSPACE": "GitHub Actions", "GITHUB_RUN_ID": "GitHub Actions",
    ".gitlab": "GitLab CI", "GITLAB_CI": "GitLab CI", "CI_JOB_ID": "GitLab CI",
    "CI_PIPELINE_ID": "GitLab CI", "jenkins": "Jenkins", "JENKINS_URL": "Jenkins",
    "JENKINS_HOME": "Jenkins", "TF_BUILD": "Azure Pipelines",
    "CODEBUILD_BUILD_ID": "AWS CodeBuild"}
"""The CI folders and job variables (of CI_FOLDERS, CI_VARIABLES) of systems that run a job's
commands with no terminal at all: `docker run -t` fails there with "the input device is not a
TTY". Buildkite gives its jobs a pty, and a bare `ci/` or `$CI` does not say which system."""

CRON_FOLDERS: Final[frozenset[str]] = frozenset({
    "cron.d", "cron.hourly", "cron.daily", "cron.weekly", "cron.monthly", "periodic"})
"""Folders whose scripts cron (or run-parts, or BSD periodic) runs, with no terminal."""

SSH_SERVER_FILES: Final[frozenset[str]] = frozenset(
    {"sshd_config", "authorized_keys", "authorized_keys2"})
"""The files of a machine's ssh server side: sshd's configuration and the keys it lets in
(sshd(8), "AUTHORIZED_KEYS FILE FORMAT"). A script that writes them makes this machine a host
that others log in to (QC301)."""

SSH_HOST_KEY_MAKERS: Final[frozenset[tuple[str, str]]] = frozenset({("ssh-keygen", "-A")})
"""Program and option that make this machine's own sshd host keys (ssh-keygen(1): `-A`
generates every missing host key type in /etc/ssh), as a fresh image or container does."""

LOGIN_SHELL_SETTERS: Final[dict[str, frozenset[str]]] = {
    "useradd": frozenset({"-s", "--shell"}),
    "adduser": frozenset({"-s", "--shell"}),
    "usermod": frozenset({"-s", "--shell"}),
    "chsh": frozenset({"-s", "--shell"}),
}
"""Programs that set a user's login shell in passwd, and the option that takes the shell; the
user is the last operand (useradd(8), usermod(8), chsh(1); Debian's and busybox's adduser).
The shell `su USER -c` and `sudo -i` then run is that one."""

LAST_ARGUMENT_WRITERS: Final[frozenset[str]] = frozenset(
    {"cp", "install", "mv", "ln", "tee", "touch", "sed", "chmod", "chown"})
"""Programs whose last argument is a file they create, write, edit or set the mode or owner
of (`cp key.pub ~/.ssh/authorized_keys`, `sed -i ... /etc/ssh/sshd_config`)."""


# -- steps whose failure is common and easy to miss ----------------------------------------------

StepKind = Literal["process", "package", "download", "edit", "link"]

COMMON_FAILURE_STEPS: Final[dict[str, StepKind]] = {
    # Process control: the process is already gone, the pid file stale, the unit unknown.
    "kill": "process", "pkill": "process", "killall": "process", "systemctl": "process",
    "service": "process", "supervisorctl": "process", "start-stop-daemon": "process",
    # Package installs (with a verb of PACKAGE_INSTALL_VERBS): no network, no mirror, no root.
    "yum": "package", "dnf": "package", "apt": "package", "apt-get": "package",
    "apk": "package", "zypper": "package", "brew": "package", "snap": "package",
    "pip": "package", "pip3": "package", "pipx": "package", "npm": "package",
    "yarn": "package", "pnpm": "package", "gem": "package", "conda": "package",
    "mamba": "package",
    # Downloads: no network, no proxy, a moved URL.
    "wget": "download", "curl": "download", "aria2c": "download",
    # In-place edits (with an option of IN_PLACE_EDIT_OPTIONS): the file is missing or
    # read-only, the directory not writable (the edit writes a new file and renames it).
    "sed": "edit", "perl": "edit",
    # Links: the name exists already, the directory is missing.
    "ln": "link",
}
"""Programs a script runs as a step whose failure is common and often goes unseen. A success
message after one of them, unchecked, is likely to be wrong (QC205 keeps it a warning)."""

PACKAGE_INSTALL_VERBS: Final[frozenset[str]] = frozenset(
    {"install", "reinstall", "localinstall", "groupinstall", "add", "update", "upgrade"})
"""The sub-commands of a package manager that fetch and install packages."""

IN_PLACE_EDIT_OPTIONS: Final[dict[str, str]] = {
    "sed": r"-[nrsEuz]*i.*|--in-place(?:=.*)?", "perl": r"-[pnlasw]*i.*"}
"""A regular expression for the argument that makes the editor rewrite its file in place:
``-i``, in a cluster of flags (``sed -ri``, ``perl -pi``), with a suffix (``-i.bak``)."""

SCRIPT_INTERPRETERS: Final[frozenset[str]] = frozenset(
    {"python", "python2", "python3", "perl", "ruby", "node", *SHELL_PROGRAMS})
"""Programs that run a script file named as their first argument (``bash ./x.sh``,
``python3 tools/y.py``)."""

PROJECT_DIRECTORY_PROGRAMS: Final[dict[str, tuple[str, ...]]] = {
    "make": ("-C", "--directory", "-f", "--file", "--makefile"),
    "git": ("-C", "--git-dir", "--work-tree", "clone", "init", "config", "--version",
            "ls-remote"),
    "docker-compose": ("-f", "--file", "--project-directory"),
    "npm": ("--prefix", "-g", "--global", "init", "create"),
    "yarn": ("--cwd", "global", "init", "create"),
    "cargo": ("--manifest-path", "new", "init", "install"),
    "mvn": ("-f", "--file"),
}
"""Programs that work on a project in the current directory and fail with an error outside
one (no Makefile, not a git repository, no compose file, no package.json...), with the
arguments that point them elsewhere or need no project. After a failed `cd`, such a step
fails by itself instead of working on the wrong directory."""

SED_BARE_COMMANDS: Final[frozenset[str]] = frozenset("=dDgGhHnNpPxzF")
"""sed commands that take nothing after the letter (GNU sed 4.9): the next character must end
the command (`;`, a newline, `}`, a blank or a `#` comment)."""

SED_NUMBER_COMMANDS: Final[frozenset[str]] = frozenset("qQlL")
"""sed commands that take an optional number (an exit code, a line length)."""

SED_TEXT_COMMANDS: Final[frozenset[str]] = frozenset("aic")
"""sed commands whose text runs to the end of the line (a backslash-newline continues it)."""

SED_WORD_COMMANDS: Final[frozenset[str]] = frozenset("btTrRwWev:")
"""sed commands that take a label, a file name or a command up to the end of the line (a
label also ends at `;`)."""

SED_DELIMITED_COMMANDS: Final[frozenset[str]] = frozenset("sy")
"""sed commands whose next character delimits two sections (`s|a|b|g`, `y/ab/cd/`)."""

# -- program words ------------------------------------------------------------------------------


def basename(word: str) -> str:
    """The program a command word names: ``/usr/bin/ssh`` -> ``ssh``."""
    if "/" not in word:  # most words: asked for nearly every command by several rules
        return word
    return word.rstrip("/").rsplit("/", 1)[-1] if word.strip("/") else word


def shell_dialect(name: str | None) -> Dialect:
    """The dialect of a shell named by a program word or a ``--remote-shell`` value
    (``/bin/dash``, ``-bash`` for a login shell); ``unknown`` for anything else."""
    if not name:
        return "unknown"
    return SHELL_DIALECTS.get(basename(name).lstrip("-"), "unknown")


# Words a shell reads as syntax in command position (POSIX, bash and zsh together): quoted,
# they are a program's name again.
RESERVED_WORDS: Final[frozenset[str]] = frozenset({
    "!", "{", "}", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "end", "esac",
    "fi", "for", "foreach", "function", "if", "in", "nocorrect", "noglob", "repeat", "select",
    "then", "time", "until", "while",
})
# Command names quoting cannot make a program: zsh applies these precommand modifiers even when
# quoted, and bash and dash reject a command named `-`; `command NAME` runs the program.
ZSH_PRECOMMAND_MODIFIERS: Final[frozenset[str]] = frozenset({"-", "noglob"})
NEEDS_COMMAND_PREFIX: Final[frozenset[str]] = frozenset({"-"})

# Language identifiers editors give shell scripts (VS Code: shellscript; Neovim and Helix: the
# filetype, sh or bash; Emacs' eglot: the mode name without -mode, sh).
EDITOR_SHELL_LANGUAGES: Final[frozenset[str]] = frozenset(
    {"shellscript", "sh", "bash", "dash", "ksh", "bats"})

# The members of each `[:name:]` bracket class in the C locale, as grep, awk, sed and fnmatch
# read them there (git's own ctype differs in `space`: gitignore.py says how).
_DIGITS = "0123456789"
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
C_LOCALE_CLASSES: Final[dict[str, str]] = {
    "alnum": _LETTERS + _DIGITS, "alpha": _LETTERS, "blank": " \t",
    "cntrl": "".join(map(chr, range(32))) + "\x7f", "digit": _DIGITS,
    "graph": _LETTERS + _DIGITS + _PUNCT, "lower": _LETTERS[:26],
    "print": " " + _LETTERS + _DIGITS + _PUNCT, "punct": _PUNCT,
    "space": " \t\n\r\f\v", "upper": _LETTERS[26:], "xdigit": _DIGITS + "abcdefABCDEF",
}

# Options with which a daemon writes its own pid to a file (dockerd, redis-server, uwsgi,
# supervisord: `--pidfile FILE`, also `--pidfile=FILE`); shorter spellings (`-p`, `--pid`) mean
# other things to other programs and are not read. `kill "$(cat FILE)"` signals the process a
# command with `--pidfile FILE` started.
PIDFILE_OPTIONS: Final[frozenset[str]] = frozenset({"--pidfile", "--pid-file"})

# Commands that start a service by its name, as (the index of the verb `start` among the
# non-option operands, None when the command is the verb; the index of the name): Upstart's
# `start JOB` and `initctl start JOB`, `service NAME start`, `systemctl start UNIT`, OpenRC's
# `rc-service NAME start` (an init script, /etc/init.d/NAME start, is read by its path). While
# the old process of the service still runs, each of them sees the service running and starts
# nothing (Upstart: "Job is already running", exit 1).
SERVICE_STARTERS: Final[dict[str, tuple[int | None, int]]] = {
    "start": (None, 0), "initctl": (0, 1), "service": (1, 0), "systemctl": (0, 1),
    "rc-service": (1, 0),
}
INIT_SCRIPT_DIRS: Final[tuple[str, ...]] = ("/etc/init.d/", "/etc/rc.d/init.d/")

# Programs that set SIGHUP back to its default action when they start, even when they inherit
# it ignored: node restores every ignored signal but SIGPIPE and SIGXFSZ at start-up (src/node.cc,
# PlatformInit), and so does every command that is a node script (npm, npx, yarn, pnpm, nodemon,
# node-supervisor's `supervisor`, ts-node). `nohup` and `trap '' HUP` cannot keep them alive
# through a hangup (verified: `nohup node ...` has SIGHUP not ignored in /proc/PID/status, and
# 0 of 24 survived the end of an `ssh -tt` session); `setsid` can, by leaving the terminal.
SIGHUP_RESETTERS: Final[frozenset[str]] = frozenset({
    "node", "nodejs", "npm", "npx", "yarn", "pnpm", "nodemon", "supervisor", "node-supervisor",
    "ts-node",
})


# GNU parallel (20221122, parallel(1)): each job's command line runs in a new shell process
# ($SHELL -c), so a bash function reaches it only when exported (`export -f`), and the variables
# that function reads only when they are exported too (verified: `PKG=x; f() { go vet "$PKG";
# }; export -f f; parallel ::: f` runs `go vet ''`). The command is the words after its options
# and before the first `:::`/`::::`; with none, each argument after `:::` is the command.
# `env_parallel` copies unexported variables and functions itself, so it is not one of them.
PARALLEL_PROGRAMS: Final[frozenset[str]] = frozenset({"parallel"})
# Options of GNU parallel whose value is the next word (`--halt now,fail=1`, `-j 4`).
PARALLEL_VALUE_OPTIONS: Final[frozenset[str]] = frozenset({
    "-a", "--arg-file", "--arg-file-sep", "--arg-sep", "--basefile", "--bf",
    "--basenamereplace", "--bnr", "--basenameextensionreplace", "--bner", "--bin", "--block",
    "--block-size", "--block-timeout", "--bt", "--colsep", "-C", "--compress-program",
    "--decompress-program", "--ctagstring", "--delay", "--delimiter", "-d", "--dirnamereplace",
    "--dnr", "-E", "--env", "--filter", "--group-by", "--halt-on-error", "--halt", "--header",
    "-I", "--joblog", "--jl", "--jobs", "-j", "--max-procs", "-P", "-L", "--limit", "--load",
    "--memfree", "--memsuspend", "--minversion", "--max-args", "-n", "--max-replace-args", "-N",
    "--nice", "--parens", "--profile", "-J", "--process-slot-var", "--recstart", "--recend",
    "--results", "--res", "--retries", "--return", "--rpl", "--rsync-opts", "--max-chars", "-s",
    "--semaphore-name", "--id", "--semaphore-timeout", "--st", "--seqreplace", "--shard",
    "--shell-completion", "--sql-master", "--sql-and-worker", "--sql-worker", "--ssh",
    "--ssh-delay", "--sshlogin", "-S", "--sshloginfile", "--slf", "--slotreplace", "--template",
    "--tmpl", "--tagstring", "--term-seq", "--total-jobs", "--total", "--tmpdir", "--timeout",
    "--transferfile", "--tf", "--trc", "--trim", "--extensionreplace", "--er", "--workdir",
    "--wd",
})
# Options that run the jobs on other machines (over ssh): no local environment reaches them.
PARALLEL_REMOTE_OPTIONS: Final[frozenset[str]] = frozenset(
    {"-S", "--sshlogin", "--sshloginfile", "--slf", "--onall", "--nonall"})
# The shells that define again the functions a bash exported (`export -f`, the environment's
# BASH_FUNC_name%% variables): bash alone (verified with bash 5.2: rbash, dash and zsh 5.9 say
# the function is not found).
FUNCTION_IMPORTING_SHELLS: Final[frozenset[str]] = frozenset({"bash"})
