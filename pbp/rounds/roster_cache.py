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

from ..frozen import evolve, quick_init
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


@quick_init   # a batch after a round builds one a combatant whose hit points changed
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


#: what a sheet and conditions (their stored text) make, whoever's they are: the decoded
#: JSON and the engine combatant built from them with placeholder columns. Why: resolution
#: changes hit points every round, so most rows of the next batch are new content; what
#: changed is a column or two, and building the combatant again from its sheet (weapons,
#: conditions, stats) was the dearest part of a batch after a round (SCALE-6)
_sheets: OrderedDict[tuple[str | None, str | None], tuple[dict[str, Any], list[Any], Combatant]] = \
    OrderedDict()
_PLACEHOLDER = {"id": 0, "key": "", "name": "", "side": "", "player": None, "hp": 0,
                "max_hp": 0, "initiative": None, "down": False}
#: the columns a combatant takes from its row, not its sheet (codec.combatant_to_model)
_COLUMNS = ("key", "name", "side", "player", "hp", "max_hp", "initiative", "down")


def _from_sheet(sheet: str | None, conditions: str | None
                ) -> tuple[dict[str, Any], list[Any], Combatant]:
    found = _sheets.get((sheet, conditions))
    if found is not None:
        _sheets.move_to_end((sheet, conditions))
        return found
    decoded = json_text.loads(sheet) if sheet else {}
    listed = json_text.loads(conditions) if conditions else []
    template = combatant_to_model(Stored(**_PLACEHOLDER, sheet=decoded,  # type: ignore[arg-type]
                                         conditions=listed))
    made = _sheets[(sheet, conditions)] = (decoded, listed, template)
    while len(_sheets) > KEPT:
        _sheets.popitem(last=False)
    return made


def _entry(content: tuple[Any, ...]) -> tuple[Stored, Combatant]:
    with _lock:
        found = _kept.get(content)
        if found is not None:
            _kept.move_to_end(content)
            stats["kept"] += 1
            return found
        *columns, sheet, conditions = content
        decoded, listed, template = _from_sheet(sheet, conditions)
    row = Stored(*columns, sheet=decoded, conditions=listed)
    # combatant_to_model(row): the sheet's combatant with the row's own columns (a test
    # holds the two equal)
    built = (row, evolve(template, **{k: getattr(row, k) for k in _COLUMNS}))
    with _lock:
        stats["built"] += 1
        _kept[content] = built
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return built


def encounter_roster(session: Session, encounter_id: int,
                     contents: list[tuple[Any, ...]] | None = None
                     ) -> tuple[list[Stored], list[Combatant], Roster | None]:
    """(the encounter's combatants as stored, as engine combatants, the parser's roster of
    them), by id; each row decoded and converted again only when its stored content differs
    from every kept one (see the module). *contents*: the rows as stored, when the caller
    read them already (:func:`pbp.store.ingest_reads.combatants_as_stored`'s form)."""
    if contents is None:
        contents = ingest_reads.combatants_as_stored(session, encounter_id)
    with _lock:
        last = _last.get(encounter_id)
    if last is not None and last[0] == contents:   # one comparison, in C, of every row
        return last[1]
    entries = [_entry(c) for c in contents]
    models = [model for _, model in entries]
    made = ([row for row, _ in entries], models, parser_roster(models))
    with _lock:
        _last[encounter_id] = (contents, made)
        _last.move_to_end(encounter_id)
        while len(_last) > KEPT_ENCOUNTERS:
            _last.popitem(last=False)
    return made


#: each encounter's last roster, under its rows' content: most polls find every row as it
#: was, and the rows compared at once cost less than looking each up (50 lookups by an
#: 11-column key, and the parser roster's key of the names: SCALE-6)
_last: OrderedDict[int, tuple[list[tuple[Any, ...]], tuple[list[Stored], list[Combatant], Roster | None]]] = \
    OrderedDict()
KEPT_ENCOUNTERS = 256


def clear() -> None:
    """Forget every kept value (tests; a kept value is never needed for correctness)."""
    with _lock:
        _kept.clear()
        _sheets.clear()
        _last.clear()
