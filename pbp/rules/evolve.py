"""``dataclasses.replace`` for the engine's hot paths, without its per-call field walk.

Why (SCALE-6): a round replaces a combatant on every initiative roll, hit and condition;
``dataclasses.replace`` walks every field and runs the generated ``__init__`` (one
``object.__setattr__`` per field on a frozen class), several microseconds for a
17-field :class:`~pbp.rules.sheet.Combatant`. A plain frozen dataclass with no
``__post_init__`` is fully described by its instance dict, so a copy of that dict
with the changes is the same object ``replace`` would build. Classes that validate in
``__post_init__`` (or use slots) still go through ``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


@cache
def _plain_fields(cls: type) -> frozenset[str] | None:
    """The init fields of *cls* when a dict copy rebuilds it exactly, else None."""
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__") or not dataclasses.is_dataclass(cls):
        return None
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields):
        return None
    return frozenset(f.name for f in fields)


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``, faster for plain (frozen) dataclasses.

    >>> from pbp.rules.sheet import Combatant
    >>> c = Combatant("k", "K", hp=5)
    >>> evolve(c, hp=3) == dataclasses.replace(c, hp=3)
    True
    """
    names = _plain_fields(type(obj))
    if names is None or not names.issuperset(changes):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    new = object.__new__(type(obj))
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new
