"""What a reply says, before it is said in a platform's markup and a language.

Plain values, built either from the store (:mod:`pbp.rounds.replies`) or from a
persistence-free simulation (:mod:`pbp.rounds.simulate`), so both render identically.
Everything user-written (names, speech, action text, engine reasons quoting posts)
stays raw here; the renderer escapes it for the platform.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .proof import ProofLine


@dataclass(frozen=True)
class EventLine:
    code: str
    params: Mapping[str, Any]
    rule: str | None = None
    rolls: tuple[str, ...] = ()       # breakdowns: "1d20 (19) + 5 = 24"
    message: str = ""                 # the engine's English sentence (fallback)
    actor: str | None = None
    target: str | None = None


@dataclass
class ActorSection:
    key: str
    name: str
    player: str | None = None
    side: str = ""
    initiative: float | None = None
    hp: int = 0
    max_hp: int = 0
    down: bool = False
    conditions: list[str] = field(default_factory=list)
    status: str = "declared"          # declared | late | missing | npc | override
    waived: bool = False
    notes: list[Mapping[str, Any]] = field(default_factory=list)
    speech: list[str] = field(default_factory=list)
    tag_rolls: list[str] = field(default_factory=list)   # player's own rolls not in an event
    #: DICE-6: table draws, each {names, breakdown, range, text} (names, text: per language)
    tables: list[Mapping[str, Any]] = field(default_factory=list)
    events: list[EventLine] = field(default_factory=list)
    others: list[Mapping[str, Any]] = field(default_factory=list)  # posts kept, not counted

    @property
    def idle(self) -> bool:
        """Nothing to say under the heading (an NPC nobody declared for): the reply says so,
        rather than a name with nothing under it that a reader takes for a cut-off post."""
        return not (self.events or self.notes or self.speech or self.tag_rolls or self.tables)


@dataclass(frozen=True)
class StatusEntry:
    """One combatant in the status block (STALL-8): conditions as (name, rounds left or
    None for "until removed")."""

    name: str
    player: bool
    hp: int
    max_hp: int
    down: bool = False
    conditions: tuple[tuple[str, int | None], ...] = ()


@dataclass
class StatusBlock:
    """The compact status every round reply ends with (STALL-8): the round open now (None
    once the fight is over), its deadline, who declared, who owes a post, who is away."""

    now: datetime
    round_number: int | None = None
    deadline: datetime | None = None
    declared: list[str] = field(default_factory=list)
    owed: list[str] = field(default_factory=list)
    away: list[str] = field(default_factory=list)
    combatants: list[StatusEntry] = field(default_factory=list)


@dataclass
class ReplyView:
    kind: str                         # opening | resolution | reminder | notice | correction | closing
    platform: str                     # bbcode | markdown | text
    language: str
    timezone: str
    encounter: str
    round_number: int
    surprise: bool = False
    deadline: datetime | None = None  # this round's (opening, reminder)
    commitment: str | None = None     # this round's (opening)
    seed: str | None = None           # revealed (resolution)
    seed_commitment: str | None = None
    header: list[EventLine] = field(default_factory=list)
    actors: list[ActorSection] = field(default_factory=list)
    footer: list[EventLine] = field(default_factory=list)
    waiting: list[Mapping[str, Any]] = field(default_factory=list)  # reminder: {name, player}
    order: list[str] = field(default_factory=list)        # names in initiative order
    next_round: int | None = None
    next_deadline: datetime | None = None
    next_commitment: str | None = None
    ended: bool = False
    earlier: Sequence[Mapping[str, Any]] = field(default_factory=list)  # seen after an earlier round closed
    overrides: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)       # rolls made and not used: shown anyway
    names: dict[str, str] = field(default_factory=dict)   # combatant key -> name
    previous_deadline: datetime | None = None             # notice: the deadline it replaces
    changes: list[Mapping[str, Any]] = field(default_factory=list)  # correction: what changed
    note: str = ""                    # correction: the narrator's reason, when made public
    closed_round: int | None = None   # closing: the round closed without a result
    #: DICE-2: secret rolls said (sealed or revealed, pbp.render.hidden.HiddenRoll), the
    #: hidden key's commitment (the encounter's opening), the key itself (its end), and
    #: their proof lines (PROOF.md) until the shared proof block carries them
    secret: list[Any] = field(default_factory=list)
    hidden_commitment: str | None = None
    hidden_key: str | None = None
    marker: str = ""
    #: DICE-1: the encounter's dice chain (opening) and the proof block's lines
    chain: str | None = None
    proof: list[ProofLine] = field(default_factory=list)
    reresolved: bool = False          # resolution: the narrator resolved it again, rolls kept
    #: STALL-8: the status block at the end (opening, reminder, resolution, notice, extension)
    status: StatusBlock | None = None
    #: STALL-5 extension reply: {name, hours, state: granted|queued|refused|problem, limit, written}
    extension: Mapping[str, Any] | None = None
    #: Markdown only: "reddit" (its ^(superscript) and u/ mentions) or "forum" (a forum's
    #: plain Markdown, django-machina's, where neither exists: ^(…) showed as typed)
    markdown_flavor: str = "reddit"


def group_events(events: Sequence[EventLine], order: Sequence[str]) -> tuple[
        list[EventLine], dict[str, list[EventLine]], list[EventLine]]:
    """(header, per actor, footer): an event goes to its actor; an event with no actor
    (a combatant down, a condition ending) goes to the turn it happened in. Round and
    initiative bookkeeping before the first turn is the header; after the last, the footer."""
    header: list[EventLine] = []
    footer: list[EventLine] = []
    per: dict[str, list[EventLine]] = {}
    current: str | None = None
    for ev in events:
        if ev.code == "round.end":
            current = None
            footer.append(ev)
            continue
        if ev.code in ("turn.start", "turn.end"):
            if ev.code == "turn.start":
                current = ev.actor
            continue
        actor = ev.actor if ev.actor in order else None
        if ev.code.startswith(("initiative.", "round.")) and current is None:
            header.append(ev)
        elif actor is not None:
            per.setdefault(actor, []).append(ev)
        elif current is not None:
            per.setdefault(current, []).append(ev)
        else:
            (footer if per else header).append(ev)
    return header, per, footer
