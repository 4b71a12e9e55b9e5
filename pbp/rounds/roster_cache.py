"""An encounter's combatants as the engine and the parser see them, kept between polls (SCALE-6).

Why: every ingest batch converted the encounter's combatant rows into engine values
(:func:`pbp.rounds.codec.combatant_to_model`: the sheet, weapons, conditions of each) and
built the parser's roster from them; with 50 combatants that was most of what a poll of
one new post cost beyond its statements. The rows change rarely, and a few at a time
(a panel edit, an import, resolution's hit points and conditions).

How it stays right: each value is kept under the **content** of its row, not under a
version someone must remember to bump. Each batch still reads the rows (one query, as
before); a row's content is every column the conversion reads, the JSON ones (sheet,
conditions) as their ``marshal`` bytes, taken when the row is read (so a dict changed in
place later cannot change a key behind its value's back). A row whose content was seen
before gets the value built from that very content; any difference (a panel edit, a write
past the ORM, another process's resolution, a combatant added) builds that row's value
again, and only that row's. The parser's roster is kept by
:func:`pbp.rounds.reading.parser_roster` under the names it holds.
"""

from __future__ import annotations

import marshal
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from ..parse import Roster
from ..rules.model import Combatant
from ..store import models as m
from .codec import combatant_to_model
from .reading import parser_roster

#: rows kept, least recently used dropped first: about 100 live encounters of 50
#: combatants (a value and its key: 2.2 KB for bench_rounds' sheets, by tracemalloc; so
#: some 11 MB a worker at most with sheets like those)
KEPT = 5_000

_lock = threading.Lock()
_kept: OrderedDict[tuple[Any, ...], Combatant] = OrderedDict()
#: conversions made and spared since the process started (what the tests observe)
stats = {"built": 0, "kept": 0}


def _content(row: m.Combatant) -> tuple[Any, ...] | None:
    """Every column :func:`combatant_to_model` reads, plus the id; None when a JSON
    column holds something ``marshal`` cannot write (then the row is never kept)."""
    try:
        return (row.id, row.key, row.name, row.side, row.player, row.hp, row.max_hp,
                row.initiative, row.down, marshal.dumps(row.sheet), marshal.dumps(row.conditions))
    except ValueError:
        return None


def _model(row: m.Combatant) -> Combatant:
    content = _content(row)
    if content is not None:
        with _lock:
            found = _kept.get(content)
            if found is not None:
                _kept.move_to_end(content)
                stats["kept"] += 1
                return found
    built = combatant_to_model(row)
    with _lock:
        stats["built"] += 1
        if content is not None:
            _kept[content] = built
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return built


def encounter_models(rows: Sequence[m.Combatant]) -> tuple[list[Combatant], Roster | None]:
    """(the rows as engine combatants, the parser's roster of them), each row's value
    built again only when its content differs from every kept one (see the module)."""
    models = [_model(r) for r in rows]
    return models, parser_roster(models)


def clear() -> None:
    """Forget every kept value (tests; a kept value is never needed for correctness)."""
    with _lock:
        _kept.clear()
