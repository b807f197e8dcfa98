"""Base classes for plain record classes: a generated ``__init__``, equality, hashing, ``repr``
and immutability.

``@dataclass`` writes each class's methods as source text and compiles it when the class is
created, ~0.35 ms a class: for the classes every ``quotecheck check`` creates, a sizeable share
of a small check. A record class here declares its fields as annotated class attributes, in
order (``ClassVar`` ones excepted), with a default where it has one, as for ``@dataclass``; a
mutable default is ``field(default_factory=list)``. The bases give it the rest, with the results
``@dataclass`` gives and without compiling anything:

* ``__init__`` takes the fields in order, positionally or by name, fills in defaults and calls
  ``__post_init__`` where the class has one; a class that writes its own ``__init__`` keeps it;
* ``==`` compares the fields, in order, of two instances of exactly the same class (anything
  else: ``NotImplemented``);
* ``repr`` is ``Name(field=value, ...)`` in field order, ``...`` for a record met again inside
  itself;
* :class:`Record` is mutable and unhashable (as ``@dataclass`` with ``eq=True``);
  :class:`FrozenRecord` hashes as the tuple of its fields and refuses assignment and deletion
  with :class:`dataclasses.FrozenInstanceError`;
* :func:`replace` is ``dataclasses.replace``.

Neither ``dataclasses`` nor ``inspect`` is imported here (both cost start-up time): the error
class is imported when an assignment is refused. ``dataclass_transform`` tells type checkers
what the generated ``__init__`` takes.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, TypeVar, dataclass_transform

R = TypeVar("R", bound="RecordBase")
T = TypeVar("T")


class _Factory:
    """A default made afresh for each instance (``field(default_factory=...)``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is ``default_factory()``, called for each new instance."""
    return _Factory(default_factory)  # type: ignore[return-value]


def _own_fields(cls: type) -> tuple[str, ...]:
    # The class's own annotations (what inspect.get_annotations gives for a class). They are
    # strings here (postponed evaluation) or objects: match both spellings.
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (no inspect)
    return tuple(name for name, kind in annotations.items()
                 if not str(kind).startswith(("ClassVar", "typing.ClassVar")))


def _has_dict(cls: type) -> bool:
    # Instances have a __dict__ unless every class on the way down declares __slots__.
    return any("__slots__" not in klass.__dict__ for klass in cls.__mro__[:-1])


def _generated_init(cls: type[RecordBase]) -> Callable[..., None]:
    """The ``__init__`` of ``cls``: one closure over its fields, nothing compiled."""
    names = cls._fields
    count = len(names)
    defaults = cls._defaults
    post_init = getattr(cls, "__post_init__", None)
    through_dict = _has_dict(cls)
    setter = object.__setattr__
    qualname = cls.__qualname__

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if len(args) > count:
            raise TypeError(f"{qualname}() takes {count} arguments but {len(args)} were given")
        values = list(args)
        for name in names[len(args):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in defaults:
                default = defaults[name]
                values.append(default.make() if isinstance(default, _Factory) else default)
            else:
                raise TypeError(f"{qualname}() missing argument {name!r}")
        if kwargs:
            name = next(iter(kwargs))
            said = "multiple values for" if name in names else "an unexpected keyword"
            raise TypeError(f"{qualname}() got {said} argument {name!r}")
        return tuple(values)

    def __init__(self: RecordBase, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != count:
            args = bind(args, kwargs)
        if through_dict:
            self.__dict__.update(zip(names, args, strict=True))
        else:
            for name, value in zip(names, args, strict=True):
                setter(self, name, value)
        if post_init is not None:
            post_init(self)

    __init__.__qualname__ = f"{qualname}.__init__"
    return __init__


class RecordBase:
    """What both kinds of record share: fields, ``__init__``, ``==`` and ``repr``."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}  # field -> default value or _Factory
    _values: ClassVar[Any]  # instance -> tuple of its field values

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = _own_fields(cls)
        fields = tuple(name for name in cls._fields if name not in own) + own
        defaults = dict(cls._defaults)
        for name in own:
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
                if isinstance(defaults[name], _Factory):
                    delattr(cls, name)  # no shared mutable value left on the class
            else:
                defaults.pop(name, None)
        cls._fields = fields
        cls._defaults = defaults
        if not fields:
            cls._values = staticmethod(lambda _self: ())
        elif len(fields) == 1:
            one = attrgetter(fields[0])
            cls._values = staticmethod(lambda self: (one(self),))
        else:
            cls._values = staticmethod(attrgetter(*fields))
        if "__init__" not in cls.__dict__:
            cls.__init__ = _generated_init(cls)  # type: ignore[method-assign]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(self._values(self) == self._values(other))
        return NotImplemented

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        values = self._values(self)
        pairs = zip(self._fields, values, strict=True)
        inner = ", ".join(f"{name}={value!r}" for name, value in pairs)
        return f"{self.__class__.__qualname__}({inner})"


@dataclass_transform(eq_default=True, field_specifiers=(field,))
class Record(RecordBase):
    """A mutable record: fields compared in order, unhashable."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]


@dataclass_transform(eq_default=True, frozen_default=True, field_specifiers=(field,))
class FrozenRecord(RecordBase):
    """An immutable record: hashed as the tuple of its fields."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __setattr__(self, name: str, value: Any) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


def replace(record: R, /, **changes: Any) -> R:
    """A copy of ``record`` with ``changes`` to some of its fields (``dataclasses.replace``)."""
    unknown = set(changes) - set(record._fields)
    if unknown:
        raise TypeError(f"{record.__class__.__qualname__} has no field {sorted(unknown)[0]!r}")
    values = dict(zip(record._fields, record._values(record), strict=True))
    return record.__class__(**{**values, **changes})
