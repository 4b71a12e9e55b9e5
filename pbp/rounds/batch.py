"""What an ingest batch knows once for all its posts (SCALE-6).

Why: reading a post asked the database, per post, which encounter and round it belongs to,
whether its author had an absence to end, a ladder count to reset or a deleted post's roll
to take back. Those answers are read here once per batch, lazily (a batch that changes
nothing reads none of them), and kept true while the batch runs: an absence a post of the
batch announces, or a post the batch deletes, widens them. Each answer errs on the side of
asking the database: a player in :attr:`BatchReads.absent` may have no absence left to end,
never the other way round.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from sqlalchemy.orm import Session

from ..store import ingest_reads as reads
from ..store import models as m
from .bulk import pending
from .rolls import count_from


def named_narrators(thread: m.Thread, campaign: m.Campaign) -> set[str]:
    """The casefolded names the thread's narrator posts under, as the thread and campaign
    name them: the thread's own list, and the campaign's narrator account (the narrator's
    user name on the thread's platform, set on the campaign's page). Why the account:
    a campaign set up in the panel had no other way to name it, so the narrator's post
    declaring for the NPCs was read as nobody's and dropped (walked on a live forum)."""
    names = {str(n).casefold() for n in (thread.options or {}).get("narrators", [])}
    account = (campaign.narrator_account or "").strip()
    if account:
        names.add(account.casefold())
    return names


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


class BatchReads:
    """The thread's live encounters, their rounds, rosters and the campaign's hints, read
    once per batch."""

    def __init__(self, session: Session, thread: m.Thread) -> None:
        self.session = session
        self.thread = thread
        self.campaign = thread.campaign
        self.deleted_in_batch = False   # a post deleted now may give its roll back at once
        self.since: datetime | None = None   # no post of the batch was made before it
        self.per_encounter: dict[int, tuple[Any, ...]] = {}   # policy, roster, index, cast
        self.by_key: dict[int, dict[str, Any]] = {}   # each roster's combatants by key
        self.readings: dict[int, Any] = {}   # a new post's readings, made ahead (ingest)
        # each post's (post, encounter, round), by the post's identity (placing._where)
        self.placed: dict[int, tuple[Any, Any, Any]] = {}
        # each live encounter's combatants as :attr:`_live` read them, until asked
        self._rosters: dict[int, list[tuple[Any, ...]]] = {}
        self.new_posts = 0   # how many ids :attr:`_live` takes for the batch's new posts
        self.post_ids: list[int] | None = None   # the ids it took (None: none taken)

    @cached_property
    def _hints(self) -> reads.Hints:
        """The campaign's and thread's hints, one statement for the four (SCALE-6), read
        at the batch's first post, before any row of it waits to be written."""
        return reads.batch_hints(self._written_connection(), self.campaign.id, self.thread.id)

    def _written_connection(self) -> Any:
        """The session's connection once the batch's waiting rows are written: the hints
        are a Core read, which the ORM hook that writes them first skips."""
        rows = pending(self.session)
        if rows is not None:
            rows.write()
        return self.session.connection()

    def combatants(self, encounter_id: int) -> list[tuple[Any, ...]]:
        """The encounter's combatants as stored (:mod:`pbp.rounds.roster_cache` reads
        them): as :attr:`_live` read them with the rounds, the first time they are asked
        (SCALE-6: one statement for the three), else read now."""
        contents = self._rosters.pop(encounter_id, None)
        return contents if contents is not None else reads.combatants_as_stored(
            self.session, encounter_id)

    @cached_property
    def narrators(self) -> set[str]:
        """The casefolded names of who may post as the narrator in the thread."""
        return named_narrators(self.thread, self.campaign) | self._hints.narrators

    @cached_property
    def _live(self) -> tuple[list[m.Encounter], dict[int, list[m.Round]]]:
        """The live encounters and their rounds, one statement, read at the first post
        placed (after :attr:`since` is known). Each round's next roll index comes with it
        for the batch's roll counter (:func:`pbp.rounds.rolls.count_from`), and with them
        each live encounter's combatants and the hints (SCALE-6)."""
        encounters: list[m.Encounter] = []
        rounds: dict[int, list[m.Round]] = {}
        live = reads.live_rounds_with_rosters(self.session, self.thread.id, self.campaign.id,
                                              self.since, self.new_posts)
        self._rosters, self.post_ids = live.rosters, live.post_ids
        if live.hints is not None and "_hints" not in self.__dict__:
            self.__dict__["_hints"] = live.hints
        for enc, rnd, top in live.rows:
            if enc.started_at is None:
                continue
            if enc.id not in rounds:
                encounters.append(enc)
                rounds[enc.id] = []
            if rnd is not None:
                rounds[enc.id].append(rnd)
                count_from(self.session, rnd.id, top)
        return encounters, rounds

    @property
    def encounters(self) -> list[m.Encounter]:
        return self._live[0]

    def encounter_at(self, at: datetime) -> m.Encounter | None:
        """Like :func:`pbp.rounds.declare.live_encounter`: the latest started by *at*."""
        return next((e for e in self.encounters if _utc(e.started_at) <= at), None)

    def round_at(self, encounter_id: int, at: datetime) -> m.Round | None:
        """Like :func:`pbp.rounds.declare.round_at`: the latest round opened by *at*."""
        return next((r for r in self._live[1].get(encounter_id, ()) if _utc(r.opens_at) <= at),
                    None)

    @cached_property
    def absent(self) -> set[str]:
        """Casefolded players who may have an absence to end (STALL-1); a post of the
        batch announcing one adds its author (:func:`pbp.rounds.standing.record_post`)."""
        return self._hints.absent

    @cached_property
    def ladder(self) -> set[str]:
        """Casefolded players with a ladder count or narrator-run to end (STALL-3). Read
        before the batch's first post (:meth:`ladder_counts` after it would write the
        pending rows of that post first: three statements more a batch)."""
        return self._hints.ladder

    def ladder_counts(self, author: str) -> bool:
        """Whether a post of *author* may have a ladder count or narrator-run to end
        (STALL-3; :func:`pbp.rounds.ladder.player_posted` reads the row and decides)."""
        return author.casefold() in self.ladder

    def may_give_back(self, round_id: int, actor: str) -> bool:
        """Whether a new tag of *actor* in the round may repeat a deleted post's roll
        (DICE-3; :func:`pbp.rounds.reposts.give_back` decides)."""
        return self.deleted_in_batch or (round_id, actor) in self._hints.repost
