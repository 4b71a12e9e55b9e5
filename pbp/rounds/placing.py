"""Where a post of an ingest batch belongs (PBP-1), and its reading made ahead (SCALE-6).

Why a module of its own: :mod:`pbp.rounds.ingest` stores a batch and reads it post by
post; the encounter, round, roster and narrator status of a post are asked by its placing,
by its reading made ahead of the batch's rolls and rows, and by its reading for the round,
and all three must get the same answer (:func:`context`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from ..store import models as m
from .batch import BatchReads
from .declare import Cast
from .policy import policy_for
from .reading import ParseFn, read_post
from .roster_cache import encounter_roster

_MINUTE = timedelta(seconds=59, microseconds=999_999)


def latest_possible(post: m.Post) -> datetime:
    """The latest moment *post* may have been made, to find the round it belongs to.

    Why: most forums print times to the minute. A player who answers the opening reply at
    10:57:50 shows as "10:57", which is before a round opened at 10:57:42; read as printed,
    the declaration fell before every round and was dropped without a word (walked on a real
    django-machina thread). A time printed to the minute may stand for any second of it, but
    never for later than pbp first saw the post. Lateness is still judged on the printed time
    (the earliest reading), so both readings are the player's benefit of the doubt.
    """
    at = post.posted_at
    if at.second or at.microsecond:
        return at
    seen = post.first_seen_at or at
    return min(at + _MINUTE, max(seen, at))


def _where(batch: BatchReads, post: m.Post) -> tuple[m.Encounter | None, m.Round | None]:
    """(the encounter, the round) *post* falls in, found once a batch: placing the post,
    reading it ahead and reading it for the round ask the same (SCALE-6: the three asked
    the batch's encounters and rounds anew, a 26-post batch 78 times)."""
    found = batch.placed.get(id(post))
    if found is None or found[0] is not post:
        made_by = latest_possible(post)
        encounter = batch.encounter_at(made_by)
        rnd = batch.round_at(encounter.id, made_by) if encounter is not None else None
        found = batch.placed[id(post)] = (post, encounter, rnd)
    return found[1], found[2]


def place(batch: BatchReads, post: m.Post) -> None:
    """PBP-1: the round whose window *post* falls in, set before the post is written."""
    encounter, rnd = _where(batch, post)
    if encounter is not None:
        post.round_id = rnd.id if rnd is not None else None


def context(session: Session, batch: BatchReads, post: m.Post
            ) -> tuple[m.Encounter, m.Round | None, tuple[Any, ...], bool] | None:
    """(the encounter *post* falls in, its round, the encounter's (policy, roster, parser
    roster, cast), whether a narrator wrote it); None between fights."""
    encounter, rnd = _where(batch, post)
    if encounter is None:
        return None
    if encounter.id not in batch.per_encounter:
        rows, models, indexed = encounter_roster(session, encounter.id,   # kept between polls
                                                 batch.combatants(encounter.id))
        batch.per_encounter[encounter.id] = (policy_for(batch.campaign, encounter), models,
                                             indexed, Cast(rows))
        batch.by_key[encounter.id] = {c.key: c for c in models}
    return encounter, rnd, batch.per_encounter[encounter.id], \
        post.author.casefold() in batch.narrators


def read_ahead(session: Session, batch: BatchReads, post: m.Post, parse: ParseFn | None) -> None:
    """Read a new post for its round now, as :func:`pbp.rounds.declare.process_post` would
    (the same text, language, roster and combatants: nothing a batch does changes them),
    and keep its readings for it. Why (SCALE-6): the parser run over the batch's posts one
    after another, not between each post's rolls and rows, cost a quarter less (its code
    and tables stay in the processor's caches: a 26-post batch's 50 calls took 3.7 ms
    alone, 5.0 ms in between)."""
    found = context(session, batch, post)
    if found is None:
        return
    encounter, rnd, (policy, roster, indexed, cast), is_narrator = found
    controlled = cast.controlled_by(post.author, is_narrator)
    if rnd is None or not controlled or post.deleted_at is not None:
        return   # a setup post, or nobody's: process_post reads it as it always did
    models = batch.by_key[encounter.id]   # built once a batch, not once a post
    batch.readings[post.id] = read_post(post.body, post.text, post.fmt, policy.language,
                                        roster, [models[c.key] for c in controlled],
                                        parse=parse, indexed=indexed)
