"""Rows <-> engine values: the only place that knows both the tables and the frozen model.

Why here and not in the models: the engine's values must not know SQLAlchemy, and the
store must not import the engine (DESIGN.md: one direction). The rounds layer sits
between them and translates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..dice import Roll
from ..rules.model import Action, ActionKind, Combatant, Condition, Encounter, Weapon
from ..rules.model import roll_to_dict as model_roll_to_dict
from ..rules.options import Options
from ..store import models as m
from .bulk import new_row

#: Combatant fields that have their own column; everything else lives in ``sheet``.
_COLUMNS = ("key", "name", "side", "player", "hp", "max_hp", "initiative", "down")


_SCALARS = (str, int, float, bool, type(None))
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _plain(value: Any) -> Any:
    """Plain JSON types, recursively (enums by value, rolls and dataclasses as dicts)."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    if isinstance(value, ActionKind):
        return value.value
    if cls is list or cls is tuple:
        return [_plain(v) for v in value]
    if cls is dict:
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Roll):
        return roll_to_dict(value)
    if isinstance(value, Options):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {n: _plain(getattr(value, n)) for n in _field_names(cls)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _build(cls: Any, data: Mapping[str, Any]) -> Any:
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


# --- rolls ----------------------------------------------------------------------------------

def roll_to_dict(roll: Roll) -> dict[str, Any]:
    """The engine's own stored form of a roll (:func:`pbp.rules.model.roll_to_dict`)."""
    return model_roll_to_dict(roll)


def roll_from_dict(data: Mapping[str, Any]) -> Roll:
    d = dict(data)
    d["faces"] = tuple(d.get("faces") or ())
    return _build(Roll, d)


def roll_from_record(rec: m.RollRecord) -> Roll:
    return Roll(expression=rec.expression, total=rec.total, breakdown=rec.breakdown,
                faces=tuple(rec.faces or ()), index=rec.roll_index, natural=rec.natural,
                label=rec.label, markdown=rec.markdown or "")


def roll_row(roll: Roll, *, round_id: int, kind: str, actor: str | None = None,
             post_id: int | None = None, tag_index: int | None = None,
             position: int | None = None, written: str = "") -> dict[str, Any]:
    """Column values of a stored roll (for bulk inserts)."""
    return {"round_id": round_id, "roll_index": roll.index, "post_id": post_id,
            "tag_index": tag_index, "position": position, "kind": kind, "actor": actor,
            "label": (roll.label or None) and roll.label[:200], "written": written[:300],
            "expression": roll.expression, "total": roll.total, "natural": roll.natural,
            "faces": list(roll.faces), "breakdown": roll.breakdown[:1000],
            "markdown": (roll.markdown or "")[:1000]}


def record_from_roll(roll: Roll, *, row: bool = False, **kw: Any) -> m.RollRecord:
    """The roll as a new :class:`~pbp.store.models.RollRecord`; *row*: as a bulk insert's
    plain :class:`pbp.rounds.bulk.Row` instead (an ingest batch, SCALE-6)."""
    if row:
        return new_row(m.RollRecord, **roll_row(roll, **kw))  # type: ignore[no-any-return]
    return m.RollRecord(**roll_row(roll, **kw))


# --- actions ---------------------------------------------------------------------------------

def action_to_dict(action: Action) -> dict[str, Any]:
    """The stored form (``declarations.actions``): :meth:`Action.to_dict`, the one shape."""
    return action.to_dict()


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """:meth:`Action.from_dict` of a stored action; top-level keys the model no longer has
    are left out (old rows), an unknown option is an error naming it. Rows stored before
    typed options kept an Avrae line's ``-flags`` beside its options: they move under
    ``options.flags``, where the parser now puts them."""
    names = _field_names(Action)
    d = {k: v for k, v in data.items() if k in names}
    options = d.get("options")
    if isinstance(options, Mapping) and options.get("command") and not options.keys() <= _OPTIONS:
        flags = {k: v for k, v in options.items() if k not in _OPTIONS}
        d["options"] = {**{k: v for k, v in options.items() if k in _OPTIONS},
                        "flags": {**(options.get("flags") or {}), **flags}}
    return Action.from_dict(d)


_OPTIONS = frozenset(f.name for f in dataclasses.fields(Options))


# --- combatants ------------------------------------------------------------------------------

def combatant_to_model(row: m.Combatant) -> Combatant:
    sheet = dict(row.sheet or {})
    weapons = tuple(_build(Weapon, {**w, "aliases": tuple(w.get("aliases") or ())})
                    for w in sheet.pop("weapons", []) or [])
    conditions = tuple(_build(Condition, c) for c in row.conditions or [])
    return _build(Combatant, {
        **{k: v for k, v in sheet.items()},
        "key": row.key, "name": row.name, "side": row.side, "player": row.player,
        "hp": row.hp, "max_hp": row.max_hp, "initiative": row.initiative, "down": row.down,
        "stats": dict(sheet.get("stats") or {}),
        "weapons": weapons, "conditions": conditions,
        "aliases": tuple(sheet.get("aliases") or ()),
        "abilities": tuple(sheet.get("abilities") or ()),
        "extra_actions": dict(sheet.get("extra_actions") or {}),
    })


def combatant_row_values(c: Combatant) -> dict[str, Any]:
    """Column values for a combatant row (sheet = everything without a column)."""
    data = _plain(c)
    sheet = {k: v for k, v in data.items() if k not in _COLUMNS and k != "conditions"
             and not (k == "default_action" and v is None)}   # STALL-2: only when given
    return {**{k: data[k] for k in _COLUMNS}, "sheet": sheet, "conditions": data["conditions"]}


def apply_combatant(row: m.Combatant, c: Combatant) -> None:
    for key, value in combatant_row_values(c).items():
        if getattr(row, key) != value:
            setattr(row, key, value)


def encounter_to_model(enc: m.Encounter, combatants: Sequence[m.Combatant], *,
                       houserules: Mapping[str, Any], round_number: int,
                       surprise_round: bool) -> Encounter:
    state = dict(enc.state or {})
    extra = {k: v for k, v in state.items() if k in {f.name for f in dataclasses.fields(Encounter)}}
    values: dict[str, Any] = {
        **extra,
        "ruleset": enc.ruleset,
        "combatants": tuple(combatant_to_model(c) for c in combatants),
        "round": round_number,
        "surprise": surprise_round,
        "surprised": tuple(enc.surprised or ()),
        "order": tuple(enc.order or ()),
        "houserules": dict(houserules),
    }
    if "pending" in values:
        values["pending"] = tuple(values["pending"] or ())
    return _build(Encounter, values)


def encounter_state(e: Encounter | dict[str, Any]) -> dict[str, Any]:
    """The JSON kept in ``encounters.state``: what has no column of its own (from an
    encounter or its :func:`snapshot`)."""
    data = dict(e) if isinstance(e, dict) else _plain(e)
    for k in ("ruleset", "combatants", "round", "surprise", "surprised", "order", "houserules"):
        data.pop(k, None)
    return data


def snapshot(e: Encounter) -> dict[str, Any]:
    """A full JSON snapshot of an engine encounter (rounds.state_before / state_after)."""
    return _plain(e)
