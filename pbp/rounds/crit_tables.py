"""The engine's own criticals and fumbles rolled on the ruleset's tables (DICE-6), when the
campaign turns it on: houserules ``[rounds] crit_tables = true``.

Why after the engine and not inside it: the tables are data of the campaign (files and
the panel), the engine is pure and knows none of them. The resolver hands this module
the engine's events and the same dice box: each ``attack.critical`` rolls the ``crit``
table, each natural-1 miss (``attack.auto-miss``, or ``attack.miss`` with natural 1) the
``fumble`` table, at the box's next index under the round's seed; a ``table.draw`` event
follows the one that caused it. A re-resolution's box hands back the roll already made
(:class:`pbp.rounds.overrides.ReplayingBox`, matched by the die and the ``table:<key>``
label), so a correction never re-rolls a table. Nothing here changes a number: the draw
describes, the narrator applies what it says.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..dice import DiceBox
from ..random_tables import TableSet
from ..rules.model import Event

#: the houserules [rounds] key that turns it on
SETTING = "crit_tables"


def table_for(ev: Event) -> str | None:
    """Which table an engine event calls for: ``crit``, ``fumble`` or none."""
    if ev.code == "attack.critical":
        return "crit"
    if ev.code == "attack.auto-miss" or (ev.code == "attack.miss" and ev.params.get("natural") == 1):
        return "fumble"
    return None


def with_table_draws(events: Iterable[Event], box: DiceBox, tables: TableSet) -> list[Event]:
    """*events* with a ``table.draw`` after each critical and fumble the campaign has a
    table for (the caller asks only when the setting is on)."""
    out: list[Event] = []
    for ev in events:
        out.append(ev)
        key = table_for(ev)
        table = tables.find(key) if key else None
        if table is None:
            continue
        roll = box.roll(table.die, label=f"table:{table.key}", turn=ev.actor)
        try:
            entry = table.entry_for(roll.total)
        except LookupError:   # a narrator's total outside the die: said, not drawn
            continue
        out.append(Event(
            code="table.draw", actor=ev.actor, target=ev.target, rule=ev.rule,
            message=f"{table.name_in('en')} ({roll.breakdown}): {entry.text_in('en')}",
            params={"table": table.key, "names": dict(table.names), "range": entry.range,
                    "text": dict(entry.text), "why": key},
            rolls=(roll,)))
    return out
