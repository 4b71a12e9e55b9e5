"""A post's table requests rolled (DICE-6): the table's die through the round's dice box.

Why here and not in the parser: which tables exist is the campaign's (its ruleset's
files under ``pbp/config/tables/<ruleset>/`` and its own, saved in the panel); the parser
only reads ``.table crit`` as a name. The die is rolled with :func:`pbp.rounds.rolls.make_roll`
(the round's seed, the next free index, bound to the post's tag ordinal), so it is
recorded like every roll, rolled once whatever edits follow (PBP-4), and ``pbp verify``
replays it. The entry it landed on is kept with the declaration as a snapshot
(``declarations.tables``), so the reply says what was drawn even if the table is
edited later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from ..random_tables import RandomTable, TableSet
from ..store import models as m
from ..table_files import tables_for
from .reading import TagSpec
from .rolls import make_roll


def campaign_tables(encounter: m.Encounter) -> TableSet:
    """The tables a post in *encounter* may roll on: its ruleset's and its campaign's."""
    return tables_for(encounter.ruleset or encounter.campaign.ruleset,
                      encounter.campaign.tables)


def draw(table: RandomTable, rec: m.RollRecord, tag: TagSpec) -> dict[str, Any]:
    """What the reply says of one table roll: the table, the roll, the entry (all languages)."""
    entry = table.entry_for(rec.total)
    return {"tag_index": tag.tag_index, "roll_index": rec.roll_index, "table": table.key,
            "names": dict(table.names), "die": table.die, "total": rec.total,
            "breakdown": rec.breakdown, "range": entry.range, "text": dict(entry.text),
            "written": tag.written,
            # the whole table as drawn on: a narrator's total (DICE-5) picks from it
            "entries": [{"low": e.low, "high": e.high, "text": dict(e.text)}
                        for e in table.entries]}


def as_set(t: dict[str, Any], total: int | None) -> dict[str, Any]:
    """A draw as the reply says it once the narrator set its roll's total: the entry that
    total lands on, the roll marked as set (never silently: DICE-5)."""
    if total is None:
        return t
    out = dict(t, breakdown=f"{t.get('breakdown', '?')} -> {int(total)} (narrator)", total=total)
    for e in t.get("entries") or []:
        if int(e["low"]) <= total <= int(e["high"]):
            out["text"] = e["text"]
            out["range"] = str(e["low"]) if e["low"] == e["high"] else f"{e['low']}-{e['high']}"
    return out


def unknown(tag: TagSpec, tables: TableSet) -> dict[str, Any]:
    """The problem of a post naming a table that does not exist, with those that do."""
    known = ", ".join(tables.keys())
    return {"code": "table.unknown", "name": tag.label or "", "known": known,
            "position": tag.position,
            "message": f"there is no table called '{tag.label}'; the tables here: {known or '-'}"}


def roll_tables(session: Session, rnd: m.Round, row: m.Combatant, post: m.Post,
                tags: Sequence[TagSpec], rolled: dict[int | None, m.RollRecord],
                earlier: Sequence[dict[str, Any]], *, after_resolution: bool
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Roll the post's table requests once each; returns (draws, problems). A request
    rolled before keeps its first draw (*earlier*, the declaration's snapshot)."""
    if not tags:
        return [], []
    tables = campaign_tables(rnd.encounter)
    before = {int(d["tag_index"]): d for d in earlier}
    draws: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    for tag in tags:
        rec = rolled.get(tag.tag_index)
        if rec is not None and tag.tag_index in before:
            draws.append(before[tag.tag_index])   # PBP-4: the first draw stands
            continue
        table = tables.find(tag.label or "")
        if table is None:
            problems.append(unknown(tag, tables))
            continue
        if rec is None:
            if after_resolution:
                continue
            rec = make_roll(session, rnd, table.die, kind="table", actor=row.key,
                            label=f"table:{table.key}", post_id=post.id,
                            tag_index=tag.tag_index, position=tag.position,
                            written=tag.written, post=post)
            rolled[tag.tag_index] = rec
        try:
            draws.append(draw(table, rec, tag))
        except LookupError:   # the table was changed after this roll: its die shrank
            problems.append(unknown(tag, tables))
    return draws, problems
