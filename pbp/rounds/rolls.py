"""Rolls made once: each under the round's secret seed, at the next free index, bound to
its post tag when it has one (PBP-4).

Why the database decides: two workers may read the same post at the same time. Both
compute roll #7 of the round; the second insert breaks ``uq_rolls_round_index`` or
``uq_rolls_post_tag`` inside a savepoint, and we either take the roll the other worker
made for that tag or try the next index. No code path can roll a tag twice.

Inside an ingest batch (:func:`roll_batch`, SCALE-6) there is no savepoint per roll: the
round's next index is counted in memory from one ``max()`` per round, and a clash with
another worker breaks the batch's one savepoint instead; the batch is then read again in
the guarded mode above (:func:`pbp.rounds.ingest.ingest_posts`), so a roll is still never
lost nor made twice. Nor is there a flush per roll: the rolls go in with the batch's one
flush, and their :class:`~pbp.store.models.RollPost` rows in one bulk insert after it.

A secret roll (DICE-2) takes its index like any other (no gap in the round's sequence)
but draws its faces from its own seed ``h = sha256("K:n:i")`` under the encounter's hidden
key, so the revealed round seed tells nothing about it; it is stored ``hidden`` with its
seal ``sha256("h:expression")``.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..dice import DiceBox, Roll, commitment, hidden_seed, seal
from ..errors import PbpError
from ..rules.stats import resolve_name
from ..store import models as m
from . import bulk
from .codec import record_from_roll

#: ``session.info`` key of the running batch's next roll index per round (see roll_batch)
BATCH = "pbp.roll_batch"


class _Batch:
    """A running batch: the next roll index per round, and the rolls whose post is to be
    kept beside them once the batch's flush has given them ids."""

    def __init__(self) -> None:
        self.next: dict[int, int] = {}
        self.posts: list[tuple[m.RollRecord, dict[str, object]]] = []


@contextmanager
def roll_batch(session: Session, enabled: bool = True) -> Iterator[None]:
    """Rolls made inside are stored without a savepoint each, their indexes counted in
    memory (SCALE-6: a savepoint and a ``max()`` per roll were most of an ingest's cost),
    and flushed together when the batch ends, each roll's post kept beside it
    (:class:`~pbp.store.models.RollPost`) in one bulk insert. Only for a caller that runs
    the whole batch under one savepoint and reads it again on an
    :class:`~sqlalchemy.exc.IntegrityError` (a concurrent worker took an index)."""
    if not enabled:
        yield
        return
    batch = session.info[BATCH] = _Batch()
    try:
        yield
        if batch.posts:
            session.flush()
            session.execute(insert(m.RollPost), [{"roll_id": rec.id, **kept}
                                                 for rec, kept in batch.posts])
    finally:
        session.info.pop(BATCH, None)


_TOP = select(func.max(m.RollRecord.roll_index)).where(m.RollRecord.round_id == bindparam("rnd"))


def count_from(session: Session, round_id: int, top: int | None) -> None:
    """In a running :func:`roll_batch`, start the round's count after *top*, its highest
    index read with the round (SCALE-6: one ``max()`` statement less a batch). Nothing
    when the batch counts the round already or no batch runs (the guarded mode reads
    :func:`next_index` per roll)."""
    batch: _Batch | None = session.info.get(BATCH)
    if batch is not None:
        batch.next.setdefault(round_id, 0 if top is None else int(top) + 1)


def next_index(session: Session, round_id: int) -> int:
    top = session.scalar(_TOP, {"rnd": round_id})
    return 0 if top is None else int(top) + 1


def tag_roll(session: Session, post_id: int, tag_index: int) -> m.RollRecord | None:
    return session.scalar(select(m.RollRecord).where(m.RollRecord.post_id == post_id,
                                                     m.RollRecord.tag_index == tag_index))


def _post_kept(session: Session, record: m.RollRecord, post: Any = None
               ) -> dict[str, object] | None:
    """DICE-3: the post's platform id and author beside the roll, so the ledger names
    whose post it was even if the post row goes (``rolls.post_id`` is SET NULL then).
    *post*: the roll's post when the caller has it (an ingest batch's new posts are plain
    rows, not in the session)."""
    if post is None or post.id != record.post_id:
        post = session.get(m.Post, record.post_id) if record.post_id is not None else None
    if post is None:
        return None
    return {"platform_id": post.platform_id, "author": post.author,
            "revision": post.revisions_seen}


def _keep_post(session: Session, record: m.RollRecord) -> None:
    kept = _post_kept(session, record)
    if kept is not None:
        session.flush()
        session.add(m.RollPost(roll_id=record.id, **kept))


def ensure_hidden_key(enc: m.Encounter, *, derive_from: str | None = None) -> str:
    """The encounter's hidden key (DICE-2), drawn once: 256 bits from the OS, or, with
    *derive_from* (a test's or ``pbp simulate``'s deterministic round seed), derived from
    it so their replies are reproducible. An encounter from before migration 0013 gets one
    at its first secret roll; its commitment is then first published in that round's reply."""
    if enc.hidden_key is None:
        enc.hidden_key = (secrets.token_hex(32) if derive_from is None
                          else commitment(f"hidden-key:{derive_from}"))
    if enc.hidden_commitment is None:   # a key drawn with the dice chain (DICE-1)
        enc.hidden_commitment = commitment(enc.hidden_key)
    return enc.hidden_key


def make_roll(session: Session, rnd: m.Round, expression: str, *, kind: str,
              stats: Mapping[str, int] | None = None, actor: str | None = None,
              label: str | None = None, post_id: int | None = None,
              tag_index: int | None = None, position: int | None = None,
              written: str = "", attempts: int = 8, hidden: bool = False,
              checked: bool = False, post: Any = None) -> m.RollRecord:
    """Roll *expression* once under *rnd*'s seed and store it; for a post tag, return the
    roll already stored for it instead. Raises :class:`pbp.errors.DiceError` on a bad
    expression (the caller reports it and keeps the rest of the post). *hidden*: a secret
    roll (DICE-2, see the module docstring). *checked*: inside a batch, the caller has
    read the post's rolls already and found none for this tag (a concurrent one breaks
    the batch: :func:`roll_batch`), so it is not looked up again. *post*: the post of
    *post_id*, when the caller holds it."""
    if rnd.seed_revealed:
        raise PbpError(f"round {rnd.number} is resolved and its seed published: no more rolls")
    batch: _Batch | None = session.info.get(BATCH)
    if post_id is not None and tag_index is not None and not (checked and batch is not None):
        existing = tag_roll(session, post_id, tag_index)
        if existing is not None:
            return existing
    for _ in range(attempts):
        index = batch.next[rnd.id] if batch is not None and rnd.id in batch.next \
            else next_index(session, rnd.id)
        if hidden:
            own = hidden_seed(ensure_hidden_key(rnd.encounter), rnd.number, index)
            roll: Roll = DiceBox(seed=own).roll(expression, label=label, stats=stats,
                                                resolve_name=resolve_name)
            roll = dataclasses.replace(roll, index=index)
        else:
            box = DiceBox(seed=rnd.seed, start_index=index)
            roll = box.roll(expression, label=label, stats=stats, resolve_name=resolve_name)
        rows = bulk.pending(session) if batch is not None else None
        record = record_from_roll(roll, round_id=rnd.id, kind=kind, actor=actor, post_id=post_id,
                                  tag_index=tag_index, position=position,
                                  written=written or expression, row=rows is not None)
        if hidden:
            record.hidden, record.seal = True, seal(own, roll.expression)
        if batch is not None:   # a clash breaks the batch's savepoint: it is read again guarded
            kept = _post_kept(session, record, post)
            if rows is not None:   # written with the batch's other rolls, in one statement
                rows.rolls.append((record, kept))
            else:
                session.add(record)
                if kept is not None:
                    batch.posts.append((record, kept))
            batch.next[rnd.id] = index + 1
            return record
        try:
            with session.begin_nested():
                session.add(record)
                _keep_post(session, record)
        except IntegrityError:
            if post_id is not None and tag_index is not None:
                existing = tag_roll(session, post_id, tag_index)
                if existing is not None:
                    return existing
            continue  # someone took this index: take the next one
        return record
    raise PbpError(f"could not store a roll for round {rnd.number} after {attempts} attempts")
