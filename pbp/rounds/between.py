"""STALL-1 between fights: an absence announced while no encounter is live in the thread.

Why: an absence is the campaign's, not a fight's (``absences.campaign_id``), yet before
this module a post was read only when an encounter was live (:func:`pbp.rounds.ingest.
ingest_posts` stopped at ``live_encounter() is None``): "away until Friday" posted
between fights was stored and never read, and the next fight penalised the player. Here
such a post is read for ``.away`` / ``.back`` lines (and free forms) in the campaign's
language; the absence is kept for the campaign, so the next encounter's rounds find it
(:func:`pbp.store.standing.active_absence`). Standing orders need a character, so they
wait for a fight. None commits: the caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from ..parse import standing as read
from ..parse.lexicon import fold
from ..parse.standing_words import command_words
from ..store import models as m
from ..store import standing as store


def _commands(text: str) -> list[tuple[str, str, int]]:
    """(command name, rest of the line, position) of each standing line of *text*."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        bare = line.strip()
        if bare.startswith(".") and len(bare) > 1:
            word, _, rest = bare[1:].partition(" ")
            name = command_words().get(fold(word))
            if name is not None:
                out.append((name, rest.strip(), pos + line.index(".")))
        pos += len(line)
    return out


def _audit(session: Session, campaign: m.Campaign, action: str, player: str, now: datetime,
           after: dict[str, object]) -> None:
    session.add(m.AuditEntry(at=now, actor="system", campaign_id=campaign.id, encounter_id=None,
                             round_id=None, action=action, entity="player", entity_id=player,
                             before=None, after=after))


def end_absences(session: Session, campaign: m.Campaign, player: str, at: datetime,
                 now: datetime) -> int:
    """``.back`` between fights: end *player*'s absences running at *at*."""
    n = 0
    for a in store.absences(session, campaign.id, player=player):
        if a.active_at(at) and a.starts_at < at:
            a.ended_at, a.ended_by = at, "post"
            n += 1
            _audit(session, campaign, "absence.end", player, now,
                   {"ended_at": at.isoformat(), "by": "post", "between_fights": True})
    return n


def record_post(session: Session, post: m.Post, campaign: m.Campaign, now: datetime) -> int:
    """Read *post* (made between fights) for absences; returns how many it started.
    An edit replaces what the post said before, a deletion withdraws it."""
    if post.revisions_seen > 1 or post.deleted_at is not None:
        for a in store.post_absences(session, post.id):
            session.delete(a)
        session.flush()
    if post.deleted_at is not None:
        return 0
    lang, tz = campaign.language, campaign.timezone
    specs: list[read.AwaySpec] = []
    back = False
    for name, rest, pos in _commands(post.text or ""):
        if name == "standing.away":
            specs.append(read.away_command(rest, lang, post.posted_at, tz, pos))
        elif name == "standing.back":
            back = True
    if not specs and not back:
        specs = read.free_absences(post.text or "", lang, post.posted_at, tz)
    if back:
        end_absences(session, campaign, post.author, post.posted_at, now)
    for spec in specs:
        session.add(store.Absence(
            campaign_id=campaign.id, player=post.author, starts_at=post.posted_at,
            until=spec.until or post.posted_at, note=spec.text[:300], source="post",
            post_id=post.id, created_at=now,
            ended_at=None if spec.until else post.posted_at,
            ended_by=None if spec.until else "unread"))
        _audit(session, campaign, "absence.start" if spec.until else "absence.unread",
               post.author, now, {"until": spec.until.isoformat() if spec.until else None,
                                  "text": spec.text, "post": post.platform_id,
                                  "between_fights": True})
    session.flush()
    return sum(1 for s in specs if s.until)
