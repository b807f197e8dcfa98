"""Python as a host: the commands a module starts through subprocess, os and ssh libraries.

Read with ``ast`` (nothing is imported or run). A list is an argv, no shell reads it;
``shell=True`` and the string APIs hand the text to ``/bin/sh -c``; paramiko's
``exec_command`` and fabric's ``Connection.run`` send it to an ssh server, whose login shell
reads it (``Connection.sudo`` puts ``sudo -S -p '[sudo] password: '`` in front, as invoke's
``Context.sudo`` builds it). Literal strings are exact; f-string fields, ``%`` and ``.format``
conversions, ``shlex.quote(x)`` and any other expression are parts known only at run time. A
name assigned once in the same function (or module) before the call is followed to its value.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from collections.abc import Iterator

from quotecheck.hosts.model import (
    HostFile,
    HostText,
    HostValue,
    Launch,
    generated,
    join_texts,
    placed,
    splice,
    stand_in,
)
from quotecheck.hosts.python_literals import read_literals
from quotecheck.lazy_regex import lazy_compile
from quotecheck.parsing.scanner import Problem

# Calls that hand a string to `/bin/sh -c` (the process's argv before the text), by the
# qualified name the module imports them as.
SHELL_STRING_CALLS: dict[str, tuple[str, ...]] = {
    "os.system": ("sh", "-c"),  # libc's system(3)
    "os.popen": ("/bin/sh", "-c"),
    "subprocess.getoutput": ("/bin/sh", "-c"),
    "subprocess.getstatusoutput": ("/bin/sh", "-c"),
    "asyncio.create_subprocess_shell": ("/bin/sh", "-c"),
}
# subprocess's Popen and its helpers: args (a list, or a string with shell=True), shell=,
# executable=.
SUBPROCESS_CALLS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call",
                              "subprocess.check_output", "subprocess.Popen"})
# os.exec*/os.spawn*: the position of the argv list (v forms) or of argv[0] (l forms), and
# whether the last argument is the environment (e forms).
EXEC_CALLS: dict[str, tuple[str, int, bool]] = {
    "os.execv": ("v", 1, False), "os.execve": ("v", 1, True), "os.execvp": ("v", 1, False),
    "os.execvpe": ("v", 1, True), "os.execl": ("l", 1, False), "os.execle": ("l", 1, True),
    "os.execlp": ("l", 1, False), "os.execlpe": ("l", 1, True),
    "os.spawnv": ("v", 2, False), "os.spawnve": ("v", 2, True), "os.spawnvp": ("v", 2, False),
    "os.spawnvpe": ("v", 2, True), "os.spawnl": ("l", 2, False), "os.spawnle": ("l", 2, True),
    "os.spawnlp": ("l", 2, False), "os.spawnlpe": ("l", 2, True),
    "os.posix_spawn": ("v", 1, False), "os.posix_spawnp": ("v", 1, False),
}
ARGV_CALLS = frozenset({"asyncio.create_subprocess_exec"})  # program and args as arguments
# Methods whose string argument an ssh server runs through the remote login shell.
SSH_TEXT_METHODS = frozenset({"exec_command"})  # paramiko SSHClient, Channel
SSH_LIBRARIES = frozenset({"paramiko"})
FABRIC_CONNECTIONS = frozenset({"fabric.Connection", "fabric.connection.Connection"})
# invoke's default sudo prompt, which fabric's Connection.sudo passes with -p.
FABRIC_SUDO_PROMPT = "[sudo] password: "
QUOTE_CALLS = frozenset({"shlex.quote", "pipes.quote"})

_NUMBER_CONVERSION = lazy_compile(r"%[-#0 +\d.*]*[diouxXeEfFgG]\Z|\{[^{}]*:[^{}]*[dfeEgGxXob%]\}\Z")
# An expression whose value is a number (written in an f-string field or alone).
_NUMBER_EXPRESSION = lazy_compile(
    r"\{?(?:str\()?(?:len|int|round|abs|(?:random\.)?randint|(?:os\.)?getpid|"
    r"(?:os\.)?cpu_count)\(.*\)\}?\Z")
# An expression whose value a web request gives: someone other than the program's user. (The
# program's own arguments, environment and input come from the user who runs it: a value with
# a blank there breaks the command, which the text cannot tell will happen.)
_FROM_OUTSIDE = lazy_compile(
    r"\brequest\.(?:args|form|values|json|data|files|headers|cookies|GET|POST|query_params"
    r"|path_params|body)\b|\bget_json\(")
_PYTHON_NAME = lazy_compile(r"(?:.*/)?(?:python[0-9.]*|pypy[0-9.]*)\Z")


class _Positions:
    """ast's (line, byte column) -> offsets in the text."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0]
        at = source.find("\n")
        while at >= 0:
            self.starts.append(at + 1)
            at = source.find("\n", at + 1)

    def offset(self, line: int, column: int) -> int:
        start = self.starts[min(max(line - 1, 0), len(self.starts) - 1)]
        end = self.source.find("\n", start)
        text = self.source[start:end if end >= 0 else len(self.source)]
        if text.isascii():
            return start + column
        return start + len(text.encode("utf-8")[:column].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        a = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        b = self.offset(end_line, end_col) if end_col is not None else a
        return a, max(a, b)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)


class _Scope:
    """The plain assignments of one function body (or the module), for following a name; a
    name a function neither assigns nor takes as a parameter is the module's."""

    def __init__(self, body: list[ast.stmt], module: _Scope | None = None,
                 parameters: frozenset[str] = frozenset()) -> None:
        self.assigned: dict[str, list[tuple[int, ast.expr]]] = {}
        self.changed: set[str] = set(parameters)
        self.module = module
        for node in _own_nodes(body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Name):
                self.assigned.setdefault(node.targets[0].id, []).append(
                    (node.lineno, node.value))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                    node.value is not None:
                self.assigned.setdefault(node.target.id, []).append((node.lineno, node.value))
            elif isinstance(node, (ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
                for target in ast.walk(node.target if not isinstance(node, ast.With) else node):
                    if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                        self.changed.add(target.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in _MUTATORS and isinstance(node.func.value, ast.Name):
                self.changed.add(node.func.value.id)  # `cmd.extend(opts)`: not the literal
            elif isinstance(node, (ast.Assign, ast.Delete)):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        self.changed.add(target.value.id)  # `cmd[1] = x`

    def value_of(self, name: str, before: int) -> ast.expr | None:
        """The value a name was given last before line ``before``, when nothing else (a loop,
        `+=`, a second assignment in a branch) may have changed it."""
        if name in self.changed:
            return None
        if name not in self.assigned and self.module is not None:
            # (a module's constants are set when it is imported, before any call runs)
            return self.module.value_of(name, 1 << 30)
        found = [(line, v) for line, v in self.assigned.get(name, []) if line < before]
        if len(found) != 1 or len(self.assigned.get(name, [])) != 1:
            return None
        return found[0][1]


# List methods that change the list in place.
_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort",
                       "reverse", "__setitem__", "__delitem__", "__iadd__"})


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``body`` outside nested functions and classes."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


class _Reader:
    def __init__(self, source: str, tree: ast.Module) -> None:
        self.source = source
        self.at = _Positions(source)
        self.names = _imports(tree)
        self.launches: list[Launch] = []
        # names assigned a fabric Connection, and the host it names when that is a literal
        self.fabric_names: dict[str, str | None] = {}
        # (`exec_command` is paramiko's only where the module uses paramiko)
        self.ssh_library = any(n.split(".")[0] in SSH_LIBRARIES for n in self.names.values())
        self.windows_only = _windows_only(tree, source)

    # -- names ---------------------------------------------------------------------------

    def qualified(self, func: ast.expr) -> str | None:
        """`subprocess.run` for `sp.run` (import subprocess as sp) or `run` (from subprocess
        import run)."""
        if isinstance(func, ast.Name):
            return self.names.get(func.id)
        if isinstance(func, ast.Attribute):
            base = self.qualified(func.value)
            return f"{base}.{func.attr}" if base is not None else None
        return None

    # -- values --------------------------------------------------------------------------

    def text(self, node: ast.expr, scope: _Scope, line: int, depth: int = 0) -> HostText:
        """The string ``node`` builds, with what is only known at run time marked."""
        if depth < 8:
            got = self._text(node, scope, line, depth)
            if got is not None:
                return got
        return self.unknown(node)

    def unknown(self, node: ast.AST) -> HostText:
        a, b = self.at.span(node)
        text, offsets = stand_in(self.source[a:b], a)
        return HostText(text, offsets, ((0, len(text)),))

    def _text(self, node: ast.expr, scope: _Scope, line: int, depth: int) -> HostText | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            got = read_literals(self.source, *self.at.span(node))
            return got if got is not None and got.value == node.value else \
                HostText(node.value, [self.at.span(node)[0]] * len(node.value))
        if isinstance(node, ast.JoinedStr):
            got = read_literals(self.source, *self.at.span(node))
            formatted = [v for v in node.values if isinstance(v, ast.FormattedValue)]
            if got is None or len(formatted) != len(got.dynamic_ranges):
                return got
            got = _quoted(got, [self._quotes(f.value) for f in formatted])
            return _put_in(got, [self._known(f.value, scope, line, depth)
                                 if f.conversion == -1 and f.format_spec is None else None
                                 for f in formatted])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            # `"a" + b + "c" + ...` nests to the left as deep as it is long: one level here
            operands: list[ast.expr] = []
            at: ast.expr = node
            while isinstance(at, ast.BinOp) and isinstance(at.op, ast.Add) and \
                    len(operands) < 1000:
                operands.append(at.right)
                at = at.left
            operands.append(at)
            out = HostText("", ())
            for operand in reversed(operands):
                out = out + self.text(operand, scope, line, depth + 1)
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            left = self._text(node.left, scope, line, depth + 1)
            if left is None:
                return None
            got = _percent_fields(left)
            values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            if len(values) != len(got.dynamic_ranges) or any(
                    isinstance(v, ast.Starred) for v in values):
                return got
            got = _quoted(got, [self._quotes(v) for v in values])
            specs = [got.value[a:b] for a, b in got.dynamic_ranges]
            return _put_in(got, [self._known(v, scope, line, depth) if spec == "{s}" else None
                                 for v, spec in zip(values, specs, strict=True)])
        if isinstance(node, ast.Name):
            value = scope.value_of(node.id, line)
            return self._text(value, scope, line, depth + 1) if value is not None else None
        if isinstance(node, ast.Call):
            name = self.qualified(node.func)
            if name in QUOTE_CALLS or name == "shlex.join":
                got = self.unknown(node)
                return HostText(got.value, got.offsets, got.dynamic_ranges,
                                ((0, len(got.value)),))
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "format" and \
                    isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
                base = self._text(func.value, scope, line, depth + 1)
                return _format_fields(base) if base is not None else None
            if isinstance(func, ast.Attribute) and func.attr == "join" and \
                    isinstance(func.value, ast.Constant) and isinstance(func.value.value, str) \
                    and len(node.args) == 1:
                sep = self._text(func.value, scope, line, depth + 1)
                items = self.argv(node.args[0], scope, line, depth + 1)
                if sep is not None and items is not None and not items[1]:
                    return join_texts(items[0], sep)
        return None

    def _known(self, node: ast.expr, scope: _Scope, line: int, depth: int) -> HostText | None:
        """The value of ``node`` when it is a string fully known here (a name assigned a
        literal), else None."""
        if isinstance(node, ast.Constant) and not isinstance(node.value, str):
            return None
        got = self._text(node, scope, line, depth + 1) if depth < 8 else None
        return got if got is not None and not got.dynamic else None

    def _quotes(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self.qualified(node.func) in QUOTE_CALLS

    def argv(self, node: ast.expr, scope: _Scope, line: int, depth: int = 0
             ) -> tuple[list[HostText], bool] | None:
        """The items of a list or tuple (each a string), and whether a part of unknown length
        (`*args`) is among them; None when ``node`` is no list this can read."""
        if depth > 8:
            return None
        if isinstance(node, ast.Name):
            value = scope.value_of(node.id, line)
            return self.argv(value, scope, line, depth + 1) if value is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.argv(node.left, scope, line, depth + 1)
            right = self.argv(node.right, scope, line, depth + 1)
            if left is None or right is None:
                return None
            return [*left[0], *right[0]], left[1] or right[1]
        if not isinstance(node, (ast.List, ast.Tuple)):
            return None
        items: list[HostText] = []
        partial = False
        for element in node.elts:
            if isinstance(element, ast.Starred):
                spread = self.argv(element.value, scope, line, depth + 1)
                if spread is None:
                    partial = True
                    items.append(self.unknown(element))
                else:
                    items.extend(spread[0])
                    partial = partial or spread[1]
                continue
            items.append(self.text(element, scope, line, depth + 1))
        return items, partial

    # -- calls ---------------------------------------------------------------------------

    def visit(self, body: list[ast.stmt], module: _Scope | None = None,
              parameters: frozenset[str] = frozenset()) -> None:
        scope = _Scope(body, module, parameters)
        top = module or scope
        for node in _own_nodes(body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                names = [*a.posonlyargs, *a.args, *a.kwonlyargs,
                         *(x for x in (a.vararg, a.kwarg) if x is not None)]
                self.visit(node.body, top, frozenset(x.arg for x in names))
            elif isinstance(node, ast.ClassDef):
                self.visit(node.body, top)
            elif isinstance(node, ast.Call):
                self.call(node, scope)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    self.qualified(node.value.func) in FABRIC_CONNECTIONS:
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.fabric_names[target.id] = _host_of(node.value)
            # lambdas are not followed: their calls are there but their names are not known

    def call(self, node: ast.Call, scope: _Scope) -> None:
        if any(a <= node.lineno <= b for a, b in self.windows_only):
            return  # a command line for Windows (cmd.exe, CreateProcess), not for a shell
        name = self.qualified(node.func)
        line = node.lineno
        span = self.at.span(node)
        args = node.args
        if name in SHELL_STRING_CALLS and args:
            self.launches.append(Launch(name, span, shell=SHELL_STRING_CALLS[name],
                                        text=self.text(args[0], scope, line)))
        elif name in SUBPROCESS_CALLS:
            self.subprocess(name, node, scope)
        elif name in EXEC_CALLS:
            form, at, env = EXEC_CALLS[name]
            if form == "v" and len(args) > at:
                got = self.argv(args[at], scope, line)
                if got is not None:
                    self.launches.append(Launch(name, span, argv=tuple(got[0]),
                                                partial=got[1]))
            elif form == "l" and len(args) > at:
                items = args[at:len(args) - 1] if env else args[at:]
                if not any(isinstance(a, ast.Starred) for a in items):
                    self.launches.append(Launch(name, span, argv=tuple(
                        self.text(a, scope, line) for a in items)))
        elif name in ARGV_CALLS and args:
            got = self.argv(ast.List(elts=list(args), ctx=ast.Load()), scope, line)
            if got is not None:
                self.launches.append(Launch(name, span, argv=tuple(got[0]), partial=got[1]))
        elif isinstance(node.func, ast.Attribute) and args and \
                node.func.attr in SSH_TEXT_METHODS and self.ssh_library:
            self.launches.append(Launch("exec_command", span,
                                        text=self.text(args[0], scope, line), ssh=True))
        elif isinstance(node.func, ast.Attribute) and args and \
                node.func.attr in ("run", "sudo") and self._fabric(node.func.value):
            text = self.text(args[0], scope, line)
            if node.func.attr == "sudo":
                text = self._fabric_sudo(node, scope, line) + text
            receiver = node.func.value
            host = self.fabric_names.get(receiver.id) if isinstance(receiver, ast.Name) else \
                _host_of(receiver) if isinstance(receiver, ast.Call) else None
            self.launches.append(Launch(f"Connection.{node.func.attr}", span, text=text,
                                        ssh=True, destination=host))

    def _fabric(self, receiver: ast.expr) -> bool:
        """A fabric Connection: a name assigned one, or `Connection(...)` itself."""
        if isinstance(receiver, ast.Name):
            return receiver.id in self.fabric_names
        return isinstance(receiver, ast.Call) and \
            self.qualified(receiver.func) in FABRIC_CONNECTIONS

    def _fabric_sudo(self, node: ast.Call, scope: _Scope, line: int) -> HostText:
        """What fabric (invoke's Context.sudo) puts before the command: `sudo -S -p
        '[sudo] password: ' `, and `-H -u USER ` for `user=`."""
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        prefix = generated(f"sudo -S -p '{FABRIC_SUDO_PROMPT}' ")
        user = keywords.get("user")
        if user is not None:
            prefix = prefix + generated("-H -u ") + self.text(user, scope, line) + generated(" ")
        return prefix

    def subprocess(self, name: str, node: ast.Call, scope: _Scope) -> None:
        line = node.lineno
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        command = node.args[0] if node.args else keywords.get("args")
        if command is None:
            return
        shell = keywords.get("shell")
        if shell is not None and not isinstance(shell, ast.Constant):
            return  # shell=flag: which of the two is not known here
        executable = keywords.get("executable")
        program = "/bin/sh"
        if executable is not None:
            if not (isinstance(executable, ast.Constant) and isinstance(executable.value, str)):
                return
            program = executable.value
        span = self.at.span(node)
        listed = self.argv(command, scope, line)
        if shell is not None and shell.value:
            if listed is not None:  # shell=True with a list: the first item is the script
                if not listed[0] or listed[1]:
                    return
                self.launches.append(Launch(name, span, shell=(program, "-c"),
                                            text=listed[0][0], positional=tuple(listed[0][1:])))
            else:
                self.launches.append(Launch(name, span, shell=(program, "-c"),
                                            text=self.text(command, scope, line)))
            return
        if listed is not None:
            self.launches.append(Launch(name, span, argv=tuple(listed[0]), partial=listed[1]))
        elif isinstance(command, (ast.Constant, ast.JoinedStr, ast.BinOp)) or (
                isinstance(command, ast.Name) and scope.value_of(command.id, line) is not None):
            # A string without shell=True is the program's name, the whole of it.
            self.launches.append(Launch(name, span, argv=(self.text(command, scope, line),)))


# A test that holds only on Windows: the branch it guards runs there alone.
_ON_WINDOWS = lazy_compile(
    r"sys\.platform\s*==\s*['\"]win32['\"]|os\.name\s*==\s*['\"]nt['\"]|"
    r"platform\.system\(\)\s*==\s*['\"]Windows['\"]|sys\.platform\.startswith\(['\"]win"
    r"|\bIS_WINDOWS\b|\bWINDOWS\b|\bis_windows\b|\bMS_WINDOWS\b")
_OFF_WINDOWS = lazy_compile(r"sys\.platform\s*!=\s*['\"]win32['\"]|os\.name\s*!=\s*['\"]nt['\"]")
# Modules only Windows has: a module importing one at its top level runs there alone.
WINDOWS_MODULES = frozenset({"winreg", "_winreg", "msvcrt", "_winapi", "win32api", "win32con",
                             "win32process", "pywintypes"})


def _windows_only(tree: ast.Module, source: str) -> list[tuple[int, int]]:
    """The line ranges of code that runs only on Windows (a branch of `if sys.platform ==
    "win32":`, or the whole module when it imports winreg, msvcrt...)."""
    for node in _own_nodes(tree.body):  # (also `try: import winreg`)
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if any(n.split(".")[0] in WINDOWS_MODULES for n in names):
            return [(1, source.count("\n") + 1)]
    ranges: list[tuple[int, int]] = []
    lines: list[bytes] | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        if lines is None:  # (split once: ast.get_source_segment splits the source each call)
            lines = [line.encode() for line in _PYTHON_LINES.findall(source)]
        test = _segment(lines, node.test)
        negated = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
        branch = node.body
        if _OFF_WINDOWS.search(test) or (negated and _ON_WINDOWS.search(test)):
            branch = node.orelse
        elif not _ON_WINDOWS.search(test) or " and " in test or " or " in test:
            continue
        if branch:
            ranges.append((branch[0].lineno, max(getattr(x, "end_lineno", None) or x.lineno
                                                  for x in branch)))
    return ranges


# Python's own line ends (a form feed or U+2028 ends no line, as str.splitlines would).
_PYTHON_LINES = lazy_compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


def _segment(lines: list[bytes], node: ast.expr) -> str:
    """The source text of ``node`` (its offsets count UTF-8 bytes), from the lines of the
    source as bytes."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    end = node.end_col_offset if node.end_col_offset is not None else None
    if not 0 <= first <= last < len(lines):
        return ""
    if first == last:
        return lines[first][node.col_offset:end].decode(errors="replace")
    text = lines[first][node.col_offset:] + b"".join(lines[first + 1:last]) + \
        lines[last][:end]
    return text.decode(errors="replace")


def _host_of(call: ast.Call) -> str | None:
    """The host of `Connection("user@host")` when it is written as a literal."""
    first = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "host"), None)
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _imports(tree: ast.Module) -> dict[str, str]:
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


_PERCENT = lazy_compile(
    r"%(?:\([^)]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]")
_FORMAT_FIELD = lazy_compile(r"\{\{|\}\}|\{[^{}]*\}")


def _quoted(text: HostText, which: list[bool]) -> HostText:
    """``text`` with those of its dynamic parts that ``which`` marks as quoted for sh."""
    quoted = tuple(r for r, q in zip(text.dynamic_ranges, which, strict=True) if q)
    return HostText(text.value, text.offsets, text.dynamic_ranges, quoted) if quoted else text


def _put_in(text: HostText, values: list[HostText | None]) -> HostText:
    """``text`` with each dynamic part whose value is known (``values``, in order) replaced by
    it; the value's characters stand where the field is written."""
    return splice(text, ((a, b, placed(text, a, b, value.value))
                         for (a, b), value in zip(text.dynamic_ranges, values, strict=True)
                         if value is not None))


def _percent_fields(text: HostText) -> HostText:
    """``text % values``: each conversion is a value known at run time; ``%%`` is ``%``."""
    return _fields(text, _PERCENT, "%%", "%")


def _format_fields(text: HostText) -> HostText:
    """``text.format(...)``: each ``{...}`` is a value known at run time; braces doubled are
    one."""
    return _fields(text, _FORMAT_FIELD, None, None)


def _fields(text: HostText, pattern: object, escaped: str | None, plain: str | None
            ) -> HostText:
    pieces: list[tuple[int, int, HostText]] = []
    for m in pattern.finditer(text.value):  # type: ignore[attr-defined]
        a, b = m.span()
        written = m.group()
        if written in ("{{", "}}"):
            pieces.append((a, b, placed(text, a, b, written[0])))
        elif escaped is not None and written == escaped:
            pieces.append((a, b, placed(text, a, b, plain or "")))
        else:
            # (the field's characters may be escapes: the stand-in stands on them, in order)
            pieces.append((a, b, placed(text, a, b, stand_in(written, 0)[0], run_time=True)))
    return splice(text, pieces)


def is_python_shebang(first_line: str) -> bool:
    if not first_line.startswith("#!"):
        return False
    words = first_line[2:].split()
    if words and words[0].endswith("/env"):
        words = [w for w in words[1:] if not w.startswith("-")]
    return bool(words) and bool(_PYTHON_NAME.match(words[0]))


def read_python(source: str) -> HostFile:
    """The launches of a Python module; a module that does not parse is one problem."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        at = _Positions(source)
        line = getattr(exc, "lineno", None) or 1
        column = max((getattr(exc, "offset", None) or 1) - 1, 0)
        offset = min(at.offset(line, 0) + column, len(source))
        reason = getattr(exc, "msg", None) or type(exc).__name__
        # Not this tool's finding to make (a Python 2 file, a template): a note that the
        # commands were not read, at information level.
        return HostFile("python", (), (Problem(
            "QC002", offset, min(offset + 1, len(source)),
            f"Python 3 does not parse this file ({reason}): the commands it starts are not "
            "analysed"),))
    reader = _Reader(source, tree)
    try:
        reader.visit(tree.body)
    except RecursionError:
        return HostFile("python", tuple(reader.launches), (Problem(
            "QC002", 0, min(1, len(source)),
            "nested too deeply to read: the rest of the file's commands are not analysed"),))
    launches = sorted(reader.launches, key=lambda x: x.span)
    return HostFile("python", tuple(launches), values=tuple(_values(source, launches)))


def _values(source: str, launches: list[Launch]) -> list[HostValue]:
    """Every run-time part of the launches, once, where it stands in the file."""
    found: dict[tuple[int, int], HostValue] = {}
    for launch in launches:
        texts = [*launch.argv, *launch.positional, *([launch.text] if launch.text else [])]
        for text in texts:
            for a, b in text.dynamic_ranges:
                offsets = [o for o in text.offsets[a:b] if o is not None]
                if not offsets:
                    continue
                span = (min(offsets), max(offsets) + 1)
                written = source[span[0]:span[1]]
                if _NUMBER_CONVERSION.match(written) or _NUMBER_EXPRESSION.match(written):
                    continue  # `%d`, `{len(x)}`: a number, nothing in it is code
                found.setdefault(span, HostValue(
                    span, written, (a, b) in text.quoted_ranges,
                    bool(_FROM_OUTSIDE.search(written))))
    return list(found.values())


__all__ = ["generated", "is_python_shebang", "read_python"]
