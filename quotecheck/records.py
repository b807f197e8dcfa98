"""Base classes for plain record classes: equality, hashing, ``repr`` and immutability.

``@dataclass`` writes each class's methods as source text and compiles it when the class is
created, ~0.35 ms a class: for the classes every ``quotecheck check`` creates, a sizeable share
of a small check. A record class here writes its own ``__init__``; its fields are its annotated
class attributes in order (``ClassVar`` ones excepted), as for ``@dataclass``. These bases supply
the rest with the same results ``@dataclass`` gives:

* ``==`` compares the fields, in order, of two instances of exactly the same class (anything
  else: ``NotImplemented``);
* ``repr`` is ``Name(field=value, ...)`` in field order, ``...`` for a record met again inside
  itself;
* :class:`Record` is mutable and unhashable (as ``@dataclass`` with ``eq=True``);
  :class:`FrozenRecord` hashes as the tuple of its fields and refuses assignment and deletion
  with :class:`dataclasses.FrozenInstanceError` (its ``__init__`` sets fields with
  ``object.__setattr__``, as a frozen dataclass's does);
* :func:`replace` is ``dataclasses.replace`` for a record whose ``__init__`` takes every field
  by its name.

Neither ``dataclasses`` nor ``inspect`` is imported here (both cost start-up time): the error
class is imported when an assignment is refused.
"""

from __future__ import annotations

import reprlib
from operator import attrgetter
from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="Record")


def _fields_of(cls: type) -> tuple[str, ...]:
    # The class's own annotations (what inspect.get_annotations gives for a class). They are
    # strings here (postponed evaluation) or objects: match both spellings.
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (no inspect)
    return tuple(name for name, kind in annotations.items()
                 if not str(kind).startswith(("ClassVar", "typing.ClassVar")))


class Record:
    """A mutable record: fields compared in order, unhashable."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _values: ClassVar[Any]  # instance -> tuple of its field values

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = _fields_of(cls)
        cls._fields = fields
        if not fields:
            cls._values = staticmethod(lambda _self: ())
        elif len(fields) == 1:
            one = attrgetter(fields[0])
            cls._values = staticmethod(lambda self: (one(self),))
        else:
            cls._values = staticmethod(attrgetter(*fields))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(self._values(self) == self._values(other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        values = self._values(self)
        pairs = zip(self._fields, values, strict=True)
        inner = ", ".join(f"{name}={value!r}" for name, value in pairs)
        return f"{self.__class__.__qualname__}({inner})"


class FrozenRecord(Record):
    """An immutable record: hashed as the tuple of its fields."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
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
