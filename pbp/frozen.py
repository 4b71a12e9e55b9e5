"""Frozen dataclasses the engine builds by the thousand a round, built for less (SCALE-6).

:func:`evolve` is ``dataclasses.replace`` without its per-call field walk;
:func:`quick_init` gives a frozen dataclass an ``__init__`` that fills the instance dict
directly instead of one ``object.__setattr__`` per field (3x faster for a 7-field
:class:`~pbp.rules.declared.Event`; a round builds hundreds of events, rolls and
modifiers). Both build exactly the object the dataclass machinery would.

Why evolve: a round replaces a combatant on every initiative roll, hit and condition;
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
C = TypeVar("C", bound=type)


def quick_init(cls: C) -> C:
    """Class decorator, put above ``@dataclass(frozen=True)``: the same ``__init__``
    signature (positional or keyword, defaults and default factories), but it stores the
    fields in ``__dict__`` itself. Refused for what it cannot reproduce: ``__post_init__``,
    slots, ``InitVar``, keyword-only or ``init=False`` fields.

    >>> from dataclasses import dataclass, field
    >>> @quick_init
    ... @dataclass(frozen=True)
    ... class P:
    ...     a: int
    ...     b: list[int] = field(default_factory=list)
    ...     c: str = "x"
    >>> P(1), P(1, c="y") == P(a=1, b=[], c="y"), P(1).b is not P(1).b
    (P(a=1, b=[], c='x'), True, True)
    """
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") \
            or "__slots__" in cls.__dict__:
        raise TypeError(f"quick_init cannot build {cls.__name__}")
    fields = [f for f in cls.__dataclass_fields__.values()
              if f._field_type is dataclasses._FIELD]  # type: ignore[attr-defined]
    if len(fields) != len(dataclasses.fields(cls)) or any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"quick_init cannot build {cls.__name__}")
    scope: dict[str, Any] = {"_MISSING": dataclasses.MISSING}
    args, body = [], []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            scope[f"_d_{f.name}"] = f.default
            args.append(f"{f.name}=_d_{f.name}")
            body.append(f"    d[{f.name!r}] = {f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            scope[f"_f_{f.name}"] = f.default_factory
            args.append(f"{f.name}=_MISSING")
            body.append(f"    d[{f.name!r}] = _f_{f.name}() if {f.name} is _MISSING else {f.name}")
        else:
            args.append(f.name)
            body.append(f"    d[{f.name!r}] = {f.name}")
    source = f"def __init__(self, {', '.join(args)}):\n    d = self.__dict__\n" + "\n".join(body)
    exec(source, scope)  # noqa: S102 - generated from the class's own field names, as dataclasses does
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    type.__setattr__(cls, "__init__", init)
    return cls


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
    kind: type = type(obj)
    names = _PLAIN.get(kind, _UNKNOWN)
    if names is _UNKNOWN:
        names = _PLAIN[kind] = _plain_fields(kind)
    if names is None or not names.issuperset(changes):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    new: T = object.__new__(kind)
    state = obj.__dict__.copy()
    state.update(changes)
    object.__setattr__(new, "__dict__", state)
    return new


#: :func:`_plain_fields` by class, read with one dict lookup (SCALE-6)
_PLAIN: dict[type, frozenset[str] | None] = {}
_UNKNOWN = frozenset({"<unknown>"})
