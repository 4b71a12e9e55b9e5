"""Plain-JSON round trips for the engine's value objects (stored between posts).

Why a module of its own: every value module (sheets, declarations, carried state) builds
itself from a stored mapping the same way, and an unknown key must fail the same way,
naming it (a typo in a stored state must not pass silently).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, TypeVar

from ..dice import Roll
from ..errors import UnreadableInput

# --- JSON round-trip helpers -------------------------------------------------------------

#: a value of these types is its own JSON form (exact types: an enum deriving from int is not)
SCALARS = frozenset((str, int, float, bool, type(None)))
_ROLL_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Roll))


def roll_to_dict(roll: Roll) -> dict[str, Any]:
    """A :class:`pbp.dice.Roll` as plain JSON types: its fields in order, ``faces`` a list.

    Why not ``dataclasses.asdict``: it deep-copies every field recursively, and ingest
    stores a roll in every declared action (SCALE-6). A roll's fields are scalars (and
    ``faces`` a tuple of ints), so a shallow copy is the same dict."""
    d = {n: getattr(roll, n) for n in _ROLL_FIELDS}
    if not all(type(v) in SCALARS for n, v in d.items() if n != "faces"):
        d = dataclasses.asdict(roll)   # never for a roll the dice made: the general way
    d["faces"] = list(roll.faces)
    return d


def roll_from_dict(data: Mapping[str, Any]) -> Roll:
    return _build(Roll, data, faces=tuple)


def _jsonable(value: Any) -> Any:
    """Mappings -> dicts, tuples -> lists, enums -> values, rolls -> dicts (recursively)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Roll):
        return roll_to_dict(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


_FIELDS: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """A dataclass's field names in order, read once per class."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _plain(obj: Any, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Shallow field dict; callers convert nested values. *skip*: fields the caller
    converts itself (left as they are here, in their place in the order)."""
    out: dict[str, Any] = {}
    for n in field_names(type(obj)):
        v = getattr(obj, n)
        out[n] = v if n in skip or type(v) in SCALARS else _jsonable(v)
    return out


_T = TypeVar("_T")


def _build(cls: type[_T], data: Mapping[str, Any], **convert: Any) -> _T:
    """Build *cls* from a mapping, converting named fields; unknown keys are an error
    that names them (a typo in a stored state must not pass silently)."""
    if not isinstance(data, Mapping):
        raise UnreadableInput(f"expected a mapping for {cls.__name__}, got {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise UnreadableInput(f"unknown {cls.__name__} field(s): {', '.join(unknown)}")
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        conv = convert.get(key)
        try:
            kwargs[key] = conv(value) if conv is not None and value is not None else value
        except (TypeError, ValueError) as exc:
            raise UnreadableInput(f"{cls.__name__}.{key}: {exc}") from None
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise UnreadableInput(f"{cls.__name__}: {exc}") from None
