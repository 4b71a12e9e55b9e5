"""STALL-8: the status block of a round reply, from the store.

Which round it speaks of: the one open when the reply is read. An opening, reminder,
deadline notice or extension reply is about its own round; a resolution about the round
it opened (None once the fight is over: then only HP and conditions). HP come from the
resolved state when there is one (the resolution), else from the combatants' rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from ..render.view import StatusBlock, StatusEntry
from ..store import models as m
from ..store import queries
from .early import away_in, expected


def _left(condition: Mapping[str, Any], number: int) -> int | None:
    """Rounds a condition still covers from round *number* on (FD-6: N rounds from its
    start round); None: until removed. One at least, since it is still on."""
    rounds = condition.get("rounds")
    if rounds is None:
        return None
    return max(1, int(condition.get("started_round") or 0) + int(rounds) - number)


def _entry(c: m.Combatant, state: Mapping[str, Any], number: int) -> StatusEntry:
    conds = state.get("conditions", c.conditions) or []
    return StatusEntry(name=c.name, player=bool(c.player), hp=int(state.get("hp", c.hp)),
                       max_hp=int(state.get("max_hp", c.max_hp)),
                       down=bool(state.get("down", c.down)),
                       conditions=tuple((str(x.get("name", "?")), _left(x, number))
                                        for x in conds if isinstance(x, Mapping)))


def status_block(session: Session, enc: m.Encounter, open_round: m.Round | None,
                 now: datetime, *, after: m.Round | None = None) -> StatusBlock:
    """The block for a reply of *enc* made at *now*; *open_round*: the round open now (None:
    the fight is over); *after*: the resolved round whose state the HP come from."""
    states: dict[str, Mapping[str, Any]] = {}
    if after is not None and after.state_after:
        states = {x["key"]: x for x in after.state_after.get("combatants", [])}
    number = open_round.number if open_round is not None else (after.number + 1 if after else 1)
    rows = [c for c in enc.combatants if not (c.sheet or {}).get("is_object")]
    block = StatusBlock(now=now, combatants=[_entry(c, states.get(c.key, {}), number) for c in rows])
    if open_round is None or open_round.state != "open":
        return block
    block.round_number, block.deadline = open_round.number, open_round.deadline
    declared = {d.combatant_id for d in queries.round_declarations(session, open_round.id)}
    away = away_in(session, open_round, now)
    standing = [c for c in rows if c.player and not states.get(c.key, {}).get("down", c.down)]
    block.declared = [c.name for c in standing if c.id in declared]
    block.owed = [c.name for c in expected(session, open_round, now)]
    block.away = [c.name for c in standing if (c.player or "").casefold() in away]
    return block
