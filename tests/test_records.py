"""The record classes (quotecheck/records.py) keep what @dataclass gave them: equality by fields
of the same class, hashing of the frozen ones as the tuple of their fields, unhashable mutable
ones, frozen ones refusing assignment, defaults, ``repr``, ``__post_init__``."""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable

import pytest

from quotecheck.checker import Options
from quotecheck.directives import Directive
from quotecheck.layers.handoff_types import ExecHandoff, SshHandoff
from quotecheck.layers.model import Arg, CommandView, Layer
from quotecheck.limits import Limits
from quotecheck.parsing.parse import parse_script
from quotecheck.parsing.tree import Pipeline, Redirect, Script, SimpleCommand
from quotecheck.records import FrozenRecord, Record, replace
from quotecheck.rules.api import Rule
from quotecheck.rules.runtime.slots import Slot

FROZEN: list[type[FrozenRecord]] = [Redirect, Arg, ExecHandoff, SshHandoff]
MUTABLE: list[type[Record]] = [SimpleCommand, Pipeline, Script, CommandView, Layer, Slot]


def _redirect(op: str = ">") -> Redirect:
    return Redirect((0, 1), op, None, None)


def test_frozen_records_compare_and_hash_by_fields() -> None:
    a, b, c = _redirect(), _redirect(), _redirect(">>")
    assert a == b and a is not b
    assert a != c
    assert hash(a) == hash(b) == hash(((0, 1), ">", None, None, None, None))
    assert {a, b, c} == {a, c}


def test_equality_needs_the_same_class() -> None:
    assert _redirect() != ((0, 1), ">", None, None, None, None)
    assert SimpleCommand((0, 1), [], [], []) != Pipeline((0, 1), [])


@pytest.mark.parametrize("cls", FROZEN, ids=lambda c: c.__name__)
def test_frozen_records_refuse_assignment(cls: type[FrozenRecord]) -> None:
    field = cls._fields[0]
    makers: dict[type, Callable[[], FrozenRecord]] = {
        Redirect: _redirect, Arg: lambda: Arg("x", False, None, None),
        ExecHandoff: lambda: ExecHandoff(("sudo", "ls"), "sudo", 1, 2),
        SshHandoff: lambda: SshHandoff(("ssh", "h"), 1, (), (), 0, False, False)}
    instance = makers[cls]()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(instance, field, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(instance, field)


@pytest.mark.parametrize("cls", MUTABLE, ids=lambda c: c.__name__)
def test_mutable_records_are_unhashable(cls: type[Record]) -> None:
    assert cls.__hash__ is None


def test_defaults_repr_and_post_init() -> None:
    pipe = Pipeline((0, 3), [])
    assert pipe.negated is False and pipe.operators == []
    assert Pipeline((0, 3), []).operators is not pipe.operators  # a fresh list each
    assert repr(pipe) == "Pipeline(span=(0, 3), commands=[], negated=False, operators=[])"
    arg = Arg("ab", False, None, None, offsets=[5, 6])
    assert arg.offsets == Arg("ab", False, None, None, offsets=range(5, 7)).offsets  # compacted
    handoff = ExecHandoff(("sudo", "ls"), "sudo", 1, 2)
    assert handoff.kind == "exec" and "kind" not in ExecHandoff._fields
    assert handoff.words == () and handoff.runs_as is None


def test_a_record_met_inside_itself_repr_stops() -> None:
    pipe = Pipeline((0, 1), [])
    pipe.commands.append(pipe)
    assert repr(pipe) == "Pipeline(span=(0, 1), commands=[...], negated=False, operators=[])"


def test_parsed_trees_compare_equal_and_views_take_weak_references() -> None:
    one = parse_script("echo a | grep b > out\n", "bash")
    two = parse_script("echo a | grep b > out\n", "bash")
    assert one.body == two.body  # (a Script's source map compares by identity)
    assert one.body != parse_script("echo a | grep c > out\n", "bash").body
    assert weakref.ref(one)() is one
    view = CommandView([], SimpleCommand((0, 1), [], [], []), None, None)  # type: ignore[arg-type]
    assert weakref.ref(view)() is view


def test_replace_copies_with_changes_like_dataclasses_replace() -> None:
    limits = Limits()
    tighter = replace(limits, max_nesting=8)
    assert tighter == Limits(max_nesting=8) and tighter is not limits
    assert limits.max_nesting == 64  # the original is untouched
    options = Options(select=["QC1"], dialect="sh")
    stricter = replace(options, severity="error")
    assert (stricter.select, stricter.dialect, stricter.severity) == (["QC1"], "sh", "error")
    assert stricter.limits is options.limits
    with pytest.raises(TypeError, match="no field 'colour'"):
        replace(options, colour=True)


def test_records_created_without_dataclasses_keep_their_defaults() -> None:
    # Converted from @dataclass (start-up cost): defaults and fresh mutable defaults as before.
    a, b = Directive((0, 1)), Directive((0, 1))
    assert a == b and a.disabled == set() and a.disabled is not b.disabled
    assert repr(Options()) == ("Options(select=None, ignore=None, severity='info', "
                               "remote_shell=None, dialect='bash', dialect_given=False, "
                               f"limits={Limits()!r}, external_sources=False, host=None)")
    rule = Rule("QC999", "x", "x", "info", lambda ctx: ())
    assert rule.tags == () and rule.fix is None and hash(rule) == hash(Rule(*rule._values(rule)))
