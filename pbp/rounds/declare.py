"""From a stored post to declarations: who declares what, rolls made once, notes kept.

The rules this module enforces (docs/rounds.md):

* PBP-1: a post belongs to the round whose window it was posted in (the latest round
  opened at or before it); a post before the first round is a setup post (``.ri``).
* PBP-2: a post after the deadline of a round not yet resolved is *late*: kept,
  shown, and passed to the engine with ``late=True``. A post in the window of a round
  already resolved (the poller saw it too late) is kept with an ``after-resolution``
  note and shown in the next reply; it is never rolled (the seed is public by then).
* PBP-3: speech over the limit is flagged with the count and the limit; with the
  ``drop`` houserule (default) the extra speech, and any action inside it, is not
  part of the round; with ``warn`` it is kept.
* DICE-6: a table request (``.table crit``) rolls the table's die once, like a tag
  (:mod:`.tables`), and keeps the entry it drew.
* PBP-4: each roll tag is rolled once, bound to (post, tag ordinal). An edit never
  re-rolls: a changed tag keeps its first roll, and an edit after a roll that changes
  a tag or the actions is noted ``edited-after-roll``. An edit after the deadline is
  recorded but does not change the declaration. A deleted post withdraws its
  declaration unless it was already rolled (then it stands, noted ``deleted-after-roll``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..dice_errors import refusal_keys
from ..errors import DiceError
from ..rules.model import Action
from ..store import models as m
from . import bulk, codec, reposts, standing
from .batch import BatchReads, named_narrators
from .policy import RoundPolicy
from .reading import ParseFn, Reading, read_post, with_fields
from .rolls import make_roll
from .tables import roll_tables


def live_encounter(session: Session, thread_id: int, at: datetime) -> m.Encounter | None:
    """The thread's encounter running at *at* (started before it, not finished)."""
    return session.scalar(
        select(m.Encounter).where(m.Encounter.thread_id == thread_id,
                                  m.Encounter.status.in_(("setup", "active")),
                                  m.Encounter.started_at <= at)
        .order_by(m.Encounter.started_at.desc(), m.Encounter.id.desc()).limit(1))


def round_at(session: Session, encounter_id: int, at: datetime) -> m.Round | None:
    """The round whose window *at* falls in (or that it is late for)."""
    return session.scalar(
        select(m.Round).where(m.Round.encounter_id == encounter_id, m.Round.opens_at <= at,
                              m.Round.state != "cancelled")
        .order_by(m.Round.number.desc()).limit(1))


def narrator_names(session: Session, campaign: m.Campaign, thread: m.Thread) -> set[str]:
    names = named_narrators(thread, campaign)
    for link in session.scalars(select(m.CampaignNarrator)
                                .where(m.CampaignNarrator.campaign_id == campaign.id)):
        names.update(str(n).casefold() for n in link.platform_names or [])
    return names


class Cast:
    """An encounter's combatants indexed once for many posts (SCALE-6: every post looked
    through the whole roster several times over, an attribute read per combatant each)."""

    def __init__(self, combatants: Sequence[m.Combatant]) -> None:
        self.rows = list(combatants)
        self.by_key = {c.key: c for c in self.rows}
        self.by_player: dict[str, list[m.Combatant]] = {}
        self.unowned = []
        for c in self.rows:
            if c.player:
                self.by_player.setdefault(c.player.casefold(), []).append(c)
            elif c.player is None:
                self.unowned.append(c)

    def controlled_by(self, author: str, is_narrator: bool) -> list[m.Combatant]:
        """Like :func:`controlled_by`."""
        mine = list(self.by_player.get(author.casefold(), ()))
        return mine if mine or not is_narrator else list(self.unowned)


def controlled_by(author: str, combatants: Sequence[m.Combatant], is_narrator: bool
                  ) -> list[m.Combatant]:
    folded = author.casefold()
    mine = [c for c in combatants if c.player and c.player.casefold() == folded]
    if not mine and is_narrator:
        mine = [c for c in combatants if c.player is None]
    return mine


def _same_actions(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> bool:
    def key(x: dict[str, Any]) -> tuple[Any, ...]:
        return (x.get("kind"), x.get("target"), x.get("weapon"))

    return [key(x) for x in a] == [key(x) for x in b]


def _note(decl: m.Declaration, code: str, **params: Any) -> None:
    notes = [n for n in (decl.notes or []) if n.get("code") != code]
    notes.append({"code": code, **params})
    decl.notes = notes


def _drop_note(decl: m.Declaration, code: str) -> None:
    if any(n.get("code") == code for n in decl.notes or []):
        decl.notes = [n for n in decl.notes if n.get("code") != code]


def process_post(session: Session, post: m.Post, *, now: datetime, policy: RoundPolicy,
                 encounter: m.Encounter, rnd: m.Round | None, is_narrator: bool,
                 edited_at: datetime | None = None, parse: ParseFn | None = None,
                 roster: Sequence[Any] | None = None, indexed: Any = None,
                 batch: BatchReads | None = None, fresh: bool = False,
                 cast: Cast | None = None, readings: list[Reading] | None = None
                 ) -> list[m.Declaration]:
    """(Re)read *post* for *rnd* and update its declarations; returns them.
    *roster* (the combatants as engine values) may be passed in by a caller reading many
    posts of one encounter. In an ingest *batch* (SCALE-6) nothing is flushed here (the
    batch flushes once) and the batch's hints spare per-post queries; *fresh*: the batch
    itself stored the post, so no declaration, roll or roll given back can name it yet;
    *cast*: the encounter's :class:`Cast`, built once for the batch; *readings*: the post
    read already, with the same text, language, roster and combatants (a batch reads its
    new posts first, together)."""
    cast = cast if cast is not None else Cast(encounter.combatants)
    combatants = cast.rows
    controlled = cast.controlled_by(post.author, is_narrator)
    if not controlled:
        return []
    if rnd is None:   # a setup post: it declares nothing, but "away until Friday" counts
        if not is_narrator and post.deleted_at is None:
            setup_roster = roster if roster is not None else [codec.combatant_to_model(c)
                                                              for c in combatants]
            own = {c.key for c in controlled}
            standing.record_post(session, post, read_post(
                post.body, post.text, post.fmt, policy.language, setup_roster,
                [c for c in setup_roster if c.key in own], parse=parse, indexed=indexed),
                encounter=encounter, rnd=None, policy=policy, now=now,
                absent=batch.absent if batch is not None else None)
        return []
    by_key = cast.by_key
    existing: dict[int, m.Declaration] = {}
    rolled: dict[int | None, m.RollRecord] = {}
    if not fresh:
        existing = {d.combatant_id: d for d in session.scalars(
            select(m.Declaration).where(m.Declaration.round_id == rnd.id,
                                        m.Declaration.post_id == post.id))}
        rolled = {r.tag_index: r for r in session.scalars(
            select(m.RollRecord).where(m.RollRecord.post_id == post.id))}
        rolled.update(reposts.given_back(session, post.id).items())   # DICE-3: a re-post's first roll
    late = post.posted_at > rnd.deadline
    after_resolution = rnd.state != "open"

    if post.deleted_at is not None:
        for decl in existing.values():
            if after_resolution:   # what was resolved stays as it was; the narrator is told
                _note(decl, "deleted-after-resolution")
            else:
                decl.deleted = True
                mine = [r for r in rolled.values() if r.actor == decl.combatant.key]
                _note(decl, "deleted-after-roll" if mine else "deleted")
            decl.updated_at = now
        return list(existing.values())

    edit_time = edited_at or (now if post.revisions_seen > 1 else post.posted_at)
    if existing and post.revisions_seen > 1 and (
            after_resolution or (edit_time > rnd.deadline and not late)):
        for decl in existing.values():   # recorded, shown, but the deadline froze it
            _note(decl, "edited-after-deadline")
            decl.updated_at = now
        return list(existing.values())

    if readings is None:   # a batch reads its new posts ahead (SCALE-6): only edits come here
        if roster is None:
            roster = [codec.combatant_to_model(c) for c in combatants]
        models = {c.key: c for c in roster}
        readings = read_post(post.body, post.text, post.fmt, policy.language, roster,
                             [models[c.key] for c in controlled], parse=parse, indexed=indexed)
    if not is_narrator or any(r.standing for r in readings):
        standing.record_post(session, post, readings, encounter=encounter, rnd=rnd,
                             policy=policy, now=now,
                             absent=batch.absent if batch is not None else None)
    out: list[m.Declaration] = []
    for reading in readings:
        row = by_key[reading.actor]
        found = existing.get(row.id)
        if found is None and reading.standing and not reading.in_character() \
                and not reading.errors:
            continue   # STALL-1/2: standing lines only declare nothing for this round
        rows = bulk.pending(session) if batch is not None else None
        if found is None and rows is not None:   # a plain row for the batch's bulk insert
            decl = bulk.new_row(m.Declaration, round_id=rnd.id, combatant_id=row.id,
                                post_id=post.id, source="narrator" if is_narrator else "post",
                                created_at=now)
        elif found is None:
            decl = m.Declaration(round_id=rnd.id, combatant_id=row.id, post_id=post.id,
                                 source="narrator" if is_narrator else "post", created_at=now)
            session.add(decl)
        else:
            decl = found
        _fill(session, decl, reading, row, post, rnd, rolled, policy, late=late,
              after_resolution=after_resolution, now=now, batch=batch)
        if found is None and rows is not None:   # SCALE-6: one insert for the batch's
            rows.declarations.append(decl)
        out.append(decl)
    if batch is None:
        session.flush()
    return out


def _fill(session: Session, decl: m.Declaration, reading: Reading, row: m.Combatant,
          post: m.Post, rnd: m.Round, rolled: dict[int | None, m.RollRecord],
          policy: RoundPolicy, *, late: bool, after_resolution: bool, now: datetime,
          batch: BatchReads | None = None) -> None:
    had_rolls = any(r.actor == row.key for r in rolled.values())
    found: list[dict[str, Any]] = []
    tag_rolls, errors, changed_tags = _roll_tags(session, reading, row, post, rnd, rolled,
                                                 after_resolution=after_resolution, notes=found,
                                                 batch=batch)
    for n in found:
        _note(decl, **n)
    draws, problems = roll_tables(session, rnd, row, post,
                                  [t for t in reading.tags if t.purpose == "table"], rolled,
                                  decl.tables or [], after_resolution=after_resolution)
    errors.extend(problems)
    decl.tables = draws
    speech, actions = _keep_speech(decl, reading, _attach_rolls(reading.actions, tag_rolls),
                                   policy)
    new_actions = [codec.action_to_dict(a) for a in actions]
    if had_rolls and post.revisions_seen > 1 and (
            changed_tags or not _same_actions(decl.actions or [], new_actions)):
        _note(decl, "edited-after-roll")
    if after_resolution:
        _note(decl, "after-resolution")
    if late:
        _note(decl, "late")
    decl.actions = new_actions
    decl.errors = errors
    decl.speech = speech
    decl.speech_count = len(reading.speech)
    decl.speech_limit = policy.speech_limit
    decl.lang = reading.lang
    decl.quoted_rolls = reading.quoted
    decl.late = late
    decl.deleted = False
    decl.updated_at = now
    if decl.notes and any(n.get("code") == "edited-after-roll" for n in decl.notes):
        decl.edited_after_roll = True


def _roll_tags(session: Session, reading: Reading, row: m.Combatant, post: m.Post,
               rnd: m.Round, rolled: dict[int | None, m.RollRecord], *, after_resolution: bool,
               notes: list[dict[str, Any]], batch: BatchReads | None = None
               ) -> tuple[dict[int, m.RollRecord], list[Any], bool]:
    """PBP-4: each roll tag rolled once (a stored roll stands, even when an edit changed
    its tag); returns (tag ordinal -> roll, the post's problems, whether a rolled tag
    changed). A new tag repeating a deleted post's rolled tag gets that roll back
    (:mod:`pbp.rounds.reposts`); *notes* collects what the declaration must say (DICE-3:
    a roll given back, a re-post that could not be matched, a rolled tag an edit removed)."""
    errors = list(reading.errors)
    stats = dict((row.sheet or {}).get("stats") or {})
    tag_rolls: dict[int, m.RollRecord] = {}
    changed_tags = False
    for tag in reading.tags:
        if tag.purpose in ("initiative", "table"):   # tables: pbp.rounds.tables
            continue
        rec = rolled.get(tag.tag_index)
        if rec is not None:
            if rec.written != (tag.written or tag.expression)[:300]:
                changed_tags = True   # PBP-4: the edit changed a rolled tag; the roll stands
            tag_rolls[tag.tag_index] = rec
            continue
        if after_resolution:
            continue
        back, unmatched = None, False
        if batch is None or batch.may_give_back(rnd.id, row.key):
            back, unmatched = reposts.give_back(session, post, rnd, row.key, tag.tag_index,
                                                tag.written or tag.expression, tag.label)
        if back is not None:
            rolled[tag.tag_index] = tag_rolls[tag.tag_index] = back
            notes.append({"code": "reposted-roll-kept"})
            continue
        if unmatched:
            notes.append({"code": "reposted-after-roll"})
        try:
            rec = make_roll(session, rnd, tag.expression, kind="tag", stats=stats, actor=row.key,
                            label=tag.label, post_id=post.id, tag_index=tag.tag_index,
                            position=tag.position, written=tag.written or tag.expression,
                            hidden=tag.hidden, checked=batch is not None, post=post)
        except DiceError as exc:   # the refusal's code and values kept, to be said by code
            errors.append({"code": "roll.refused", "message": str(exc), "position": tag.position,
                           **refusal_keys(exc)})
            continue
        rolled[tag.tag_index] = rec
        tag_rolls[tag.tag_index] = rec
    present = {t.tag_index for t in reading.tags}
    vanished = sorted(i for i, r in rolled.items() if i is not None and i >= 0
                      and r.kind == "tag" and r.actor == row.key and i not in present)
    if vanished:   # DICE-3: the roll stays in the ledger, its tag gone from the post
        notes.append({"code": "rolled-tag-removed", "tags": vanished})
        changed_tags = True
    return tag_rolls, errors, changed_tags


def _keep_speech(decl: m.Declaration, reading: Reading, actions: list[Action],
                 policy: RoundPolicy) -> tuple[list[str], list[Action]]:
    """PBP-3: the engine's verdict on the post's speech; over the limit it is noted and,
    with the ``drop`` houserule, the extra speech and the actions inside it go."""
    speech = list(reading.speech)
    verdict = policy.speech(len(speech))
    _drop_note(decl, "speech-over-limit")
    if verdict.within:
        return speech, actions
    _note(decl, "speech-over-limit", count=len(speech), limit=verdict.limit,
          over=verdict.over, policy=policy.speech_overflow)
    if policy.speech_overflow != "drop":
        return speech, actions
    dropped = reading.speech_spans[verdict.limit or 0:]
    kept = [a for a in actions if not _inside(a.position, dropped)]
    if len(kept) != len(actions):
        _note(decl, "speech-over-limit", count=len(reading.speech), limit=verdict.limit,
              over=verdict.over, policy=policy.speech_overflow,
              actions_dropped=len(actions) - len(kept))
    return speech[: verdict.limit or 0], kept


def _inside(position: int | None, spans: Sequence[tuple[int, int]]) -> bool:
    return position is not None and any(a <= position < b for a, b in spans)


def _attach_rolls(actions: Sequence[Action], rolls: dict[int, m.RollRecord]) -> list[Action]:
    out = []
    for a in actions:
        index = a.options.roll_index
        rec = rolls.get(int(index)) if index is not None else None
        out.append(with_fields(a, rolled=codec.roll_from_record(rec)) if rec else a)   # PBP-4
    return out
