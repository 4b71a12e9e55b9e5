"""A past round as it was (issue 11 item 10): who was in the fight, their HP and
conditions at the round's start and after its resolution.

Why snapshots and not today's rows: a combatant added in round 3 was not in round 1,
and an orc at 2 HP now had 12 then. The resolver already keeps the whole engine
encounter before and after each resolution (``rounds.state_before`` / ``state_after``,
:func:`pbp.rounds.resolve._store_state`); this module reads them. A round with no
snapshot of its own (cancelled when the encounter ended, or resolved before snapshots
were kept) starts where the previous round's result left it, and says it has no
result; with neither, the page says it shows the combatants as they are now.

Only rounds before the encounter's latest one are shown this way: the latest round is
the live table, with its override forms (an override changes the combatants as they
are now, never a past snapshot).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from ..store import queries
from ..store.models import Combatant, Round

#: where a past round's state came from
SNAPSHOT, PREVIOUS, NOW = "snapshot", "previous", "now"


@dataclass
class PastCombatant:
    """One combatant of a past round. ``id`` is today's row (None: removed since), for
    the round's declarations; ``hp``/``down``/``sheet`` are what
    :func:`pbp.store.queries.missing_among` reads, as of the round's start."""

    key: str
    name: str
    side: str
    player: str | None
    max_hp: int
    initiative: float | None
    hp_before: int
    down_before: bool
    conditions_before: list[dict[str, Any]]
    hp_after: int | None = None
    down_after: bool | None = None
    conditions_after: list[dict[str, Any]] = field(default_factory=list)
    is_object: bool = False
    id: int | None = None

    @property
    def hp(self) -> int:
        return self.hp_before

    @property
    def down(self) -> bool:
        return self.down_before

    @property
    def sheet(self) -> dict[str, Any]:
        return {"is_object": self.is_object}

    @property
    def changed(self) -> bool:
        """Whether the resolution changed its HP, conditions or "down"."""
        if self.hp_after is None:
            return False
        return (self.hp_after != self.hp_before or self.down_after != self.down_before
                or _names(self.conditions_after) != _names(self.conditions_before))


@dataclass
class History:
    """The round's combatants as they were, in the round's initiative order."""

    combatants: list[PastCombatant]
    source: str                 # SNAPSHOT | PREVIOUS | NOW
    resolved: bool              # an "after resolution" column exists


def _names(conditions: Iterable[Mapping[str, Any]]) -> list[str]:
    return sorted(str(c.get("name")) for c in conditions)


def _by_key(snapshot: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    return {str(c["key"]): c for c in (snapshot or {}).get("combatants", []) if "key" in c}


def _from_row(row: Combatant) -> dict[str, Any]:
    return {"key": row.key, "name": row.name, "side": row.side, "player": row.player,
            "hp": row.hp, "max_hp": row.max_hp, "initiative": row.initiative, "down": row.down,
            "conditions": list(row.conditions or []),
            "is_object": bool((row.sheet or {}).get("is_object"))}


def _past(start: Mapping[str, Any], end: Mapping[str, Any] | None, row_id: int | None) -> PastCombatant:
    return PastCombatant(
        key=str(start["key"]), name=str(start.get("name") or start["key"]),
        side=str(start.get("side") or ""), player=start.get("player"),
        max_hp=int(start.get("max_hp") or 0), initiative=start.get("initiative"),
        hp_before=int(start.get("hp") or 0), down_before=bool(start.get("down")),
        conditions_before=list(start.get("conditions") or []),
        hp_after=None if end is None else int(end.get("hp") or 0),
        down_after=None if end is None else bool(end.get("down")),
        conditions_after=[] if end is None else list(end.get("conditions") or []),
        is_object=bool(start.get("is_object")), id=row_id)


def _ordered(people: list[PastCombatant], order: Sequence[str]) -> list[PastCombatant]:
    rank = {k: i for i, k in enumerate(order)}
    return sorted(people, key=lambda c: (rank.get(c.key, len(rank)), -(c.initiative or 0), c.key))


def past_round(session: Session, rnd: Round | None, rows: Sequence[Combatant],
               latest: int | None) -> History | None:
    """Round *rnd* as it was, or None when it is the encounter's latest round (the live
    view). *rows*: today's combatant rows (their ids link the round's declarations)."""
    if rnd is None or latest is None or rnd.number >= latest:
        return None
    ids = {c.key: c.id for c in rows}
    before, after = queries.round_snapshots(session, rnd.id)
    source = SNAPSHOT
    if not before:
        prev = queries.previous_round(session, rnd)
        before = queries.round_snapshots(session, prev.id)[1] if prev is not None else None
        source = PREVIOUS
        after = None if rnd.state != "resolved" else after
    if not before:
        before = {"combatants": [_from_row(c) for c in rows], "order": list(rnd.order or [])}
        source, after = NOW, None
    starts, ends = _by_key(before), _by_key(after)
    people = [_past(c, ends.get(k), ids.get(k)) for k, c in starts.items()]
    # one who joined during the resolution itself (none today, but the snapshot says so)
    people += [_past(c, c, ids.get(k)) for k, c in ends.items() if k not in starts]
    order = list(before.get("order") or rnd.order or (after or {}).get("order") or [])
    return History(_ordered(people, order), source, resolved=bool(ends))
