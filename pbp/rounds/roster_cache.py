"""An encounter's combatants as the engine and the parser see them, kept between polls (SCALE-6).

Why: every ingest batch converted the encounter's combatant rows into engine values
(:func:`pbp.rounds.codec.combatant_to_model`: the sheet, weapons, conditions of each) and
built the parser's roster from them; with 50 combatants that was most of what a poll of
one new post cost beyond its statements. The rows change rarely, and a few at a time
(a panel edit, an import, resolution's hit points and conditions).

How it stays right: each value is kept under the **content** of its row, not under a
version someone must remember to bump. Each batch still reads the rows (one query), as the
database holds them: the JSON columns (sheet, conditions) as their stored text, so a row
seen before is recognised by comparing values, without decoding its JSON or building an
ORM object (that load was a tenth of an ingest batch of 26 posts). A row whose content was
seen before gets the row and value built from that very content; any difference (a panel
edit, a write past the ORM, another process's resolution, a combatant added) builds that
row's again, and only that row's. The parser's roster is kept by
:func:`pbp.rounds.reading.parser_roster` under the names it holds.

The kept rows (:class:`Stored`) are shared by every batch that sees the same content:
nothing may change them (their sheet is read, copied where a caller needs its own).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from ..parse import Roster
from ..rules.model import Combatant
from ..store import ingest_reads, json_text
from .codec import combatant_to_model
from .reading import parser_roster

#: rows kept, least recently used dropped first: about 100 live encounters of 50
#: combatants (a value and its key: 2.2 KB for bench_rounds' sheets, by tracemalloc; so
#: some 11 MB a worker at most with sheets like those)
KEPT = 5_000

_lock = threading.Lock()
_kept: OrderedDict[tuple[Any, ...], tuple[Stored, Combatant]] = OrderedDict()
#: conversions made and spared since the process started (what the tests observe)
stats = {"built": 0, "kept": 0}


@dataclass(frozen=True)
class Stored:
    """A combatant row as ingest reads it (the columns of :class:`pbp.store.models.Combatant`
    it uses), decoded once for every batch that sees the same content."""

    id: int
    key: str
    name: str
    side: str
    player: str | None
    hp: int
    max_hp: int
    initiative: float | None
    down: bool
    sheet: dict[str, Any]
    conditions: list[Any]


def _entry(content: tuple[Any, ...]) -> tuple[Stored, Combatant]:
    with _lock:
        found = _kept.get(content)
        if found is not None:
            _kept.move_to_end(content)
            stats["kept"] += 1
            return found
    *columns, sheet, conditions = content
    row = Stored(*columns, sheet=json_text.loads(sheet) if sheet else {},
                 conditions=json_text.loads(conditions) if conditions else [])
    built = (row, combatant_to_model(row))   # type: ignore[arg-type]  # reads the same columns
    with _lock:
        stats["built"] += 1
        _kept[content] = built
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return built


def encounter_roster(session: Session, encounter_id: int
                     ) -> tuple[list[Stored], list[Combatant], Roster | None]:
    """(the encounter's combatants as stored, as engine combatants, the parser's roster of
    them), by id; each row decoded and converted again only when its stored content differs
    from every kept one (see the module)."""
    entries = [_entry(c) for c in ingest_reads.combatants_as_stored(session, encounter_id)]
    models = [model for _, model in entries]
    return [row for row, _ in entries], models, parser_roster(models)


def clear() -> None:
    """Forget every kept value (tests; a kept value is never needed for correctness)."""
    with _lock:
        _kept.clear()
