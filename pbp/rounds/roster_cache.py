"""An encounter's combatants as the engine and the parser see them, kept between polls (SCALE-6).

Why: every ingest batch converted the encounter's combatant rows into engine values
(:func:`pbp.rounds.codec.combatant_to_model`: the sheet, weapons, conditions of each) and
built the parser's roster from them; with 50 combatants that was most of what a poll of
one new post cost beyond its statements. The rows themselves change rarely (a panel edit,
an import, resolution's hit points and conditions).

How it stays right: the cache is keyed by the rows' **content**, not by a version someone
must remember to bump. Each batch still reads the rows (one query, as before) and compares
every column the conversion reads with the copy kept when the values were built; any
difference (a panel edit, a write past the ORM, another process's resolution, a combatant
added or removed) builds them again. Equal content gives equal values, so a hit returns
exactly what a rebuild would. The kept copy is a deep copy: a sheet changed in place in a
later session cannot change the key behind the values' back.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from ..parse import Roster
from ..rules.model import Combatant
from ..store import models as m
from .codec import combatant_to_model
from .reading import parser_roster

#: encounters kept (a worker polls many threads; each live encounter is a few KB)
KEPT = 128

_lock = threading.Lock()
_kept: OrderedDict[int, tuple[list[tuple[Any, ...]], list[Combatant], Roster | None]] = OrderedDict()


def _content(row: m.Combatant) -> tuple[Any, ...]:
    """Every column :func:`combatant_to_model` reads, plus the id (a row deleted and
    added again under the same key is another combatant)."""
    return (row.id, row.key, row.name, row.side, row.player, row.hp, row.max_hp,
            row.initiative, row.down, row.sheet, row.conditions)


def encounter_models(encounter_id: int, rows: Sequence[m.Combatant]
                     ) -> tuple[list[Combatant], Roster | None]:
    """(the rows as engine combatants, the parser's roster of them), built again only
    when a row's content differs from when they were last built (see the module)."""
    content = [_content(r) for r in rows]
    with _lock:
        hit = _kept.get(encounter_id)
        if hit is not None and hit[0] == content:
            _kept.move_to_end(encounter_id)
            return list(hit[1]), hit[2]   # a list of its own: a caller may extend it
    models = [combatant_to_model(r) for r in rows]
    indexed = parser_roster(models)
    with _lock:
        _kept[encounter_id] = (copy.deepcopy(content), models, indexed)
        _kept.move_to_end(encounter_id)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return list(models), indexed


def clear() -> None:
    """Forget every kept encounter (tests; a hit is never needed for correctness)."""
    with _lock:
        _kept.clear()
