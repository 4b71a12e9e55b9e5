"""A post deleted and posted again: its tag gets the first roll back (DICE-3, PBP-4).

Why: PBP-4 rolls a tag once, bound to (post, tag ordinal). A player who dislikes a roll
could delete the post and write it again: a new post, a new tag, a new roll, and the
latest post counts. So before a new post's tag is rolled, we look for the roll it
repeats: a tag roll of the same round, made for the same combatant, in a *deleted* post
of the same author, with the same tag as written (spaces and case aside) and the same
label, and not already given back to another post. When one is found the new post's
tag takes that roll (a :class:`~pbp.store.models.RollReuse` row; the roll itself is
never copied or changed, so ``pbp verify`` checks it once, as made).

When it cannot be matched safely (the re-post's tag is written differently, or the
deleted post's roll was already given back) the tag is rolled as usual and the
declaration is noted ``reposted-after-roll``: the narrator sees it in the panel's
ledger, the reply says it. Matching by *what was written* and never by position means an
edited expression can never inherit a roll made for another one.

>>> tag_key(" 1D20 + 5 ", "Attack")
('1d20+5', 'attack')
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..store import models as m


def tag_key(written: str, label: str | None) -> tuple[str, str]:
    """What makes two roll tags "the same tag": the expression as written, without spaces
    or case, and the label."""
    return ("".join((written or "").split()).casefold(), (label or "").strip().casefold())


def _unclaimed(session: Session, post: m.Post, rnd: m.Round, actor: str) -> list[m.RollRecord]:
    """Tag rolls of *actor* in *rnd* from the author's deleted posts, not given back yet,
    by roll index."""
    claimed = select(m.RollReuse.roll_id)
    return list(session.scalars(
        select(m.RollRecord).join(m.Post, m.Post.id == m.RollRecord.post_id)
        .where(m.RollRecord.round_id == rnd.id, m.RollRecord.kind == "tag",
               m.RollRecord.actor == actor, m.Post.id != post.id,
               m.Post.deleted_at.is_not(None), m.Post.thread_id == post.thread_id,
               m.RollRecord.id.not_in(claimed))
        .order_by(m.RollRecord.roll_index)))


def _same_author(session: Session, rows: list[m.RollRecord], author: str) -> list[m.RollRecord]:
    folded = author.casefold()
    return [r for r in rows if (p := session.get(m.Post, r.post_id)) is not None
            and p.author.casefold() == folded]


def give_back(session: Session, post: m.Post, rnd: m.Round, actor: str, tag_index: int,
              written: str, label: str | None) -> tuple[m.RollRecord | None, bool]:
    """(the deleted post's roll given back to *post*'s tag, or None; whether the author
    has a deleted post's roll this tag could not safely take: flag it)."""
    candidates = _same_author(session, _unclaimed(session, post, rnd, actor), post.author)
    if not candidates:
        return None, False
    want = tag_key(written, label)
    for rec in candidates:
        if tag_key(rec.written, rec.label) != want:
            continue
        try:
            with session.begin_nested():
                session.add(m.RollReuse(post_id=post.id, tag_index=tag_index, roll_id=rec.id))
        except IntegrityError:   # another worker gave it back first: the next one, or none
            continue
        return rec, False
    return None, True


def given_back(session: Session, post_id: int) -> dict[int, m.RollRecord]:
    """Tag ordinal -> the roll given back to post *post_id* (read again on every edit)."""
    rows = session.execute(select(m.RollReuse.tag_index, m.RollRecord)
                           .join(m.RollRecord, m.RollRecord.id == m.RollReuse.roll_id)
                           .where(m.RollReuse.post_id == post_id))
    return {int(i): rec for i, rec in rows}
