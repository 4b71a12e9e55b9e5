"""Absences (STALL-1) and standing orders (STALL-2): what keeps a fight moving while a
player is away or silent.

Why absences belong to the campaign and the player, not a combatant: a player announces
"away until Friday" once, in whatever thread, and every fight of the campaign that player
is in honours it. Standing orders belong to one combatant in one encounter: "if the orc
charges, I shoot it" means nothing in the next fight.

Both keep their history: an absence ends (``ended_at``, ``ended_by``: ``date``, ``post``,
``narrator``) rather than being deleted, and an order is replaced or cancelled, so the
panel and the audit log can say what pbp did and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Index, String, Text, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from .base import Base
from .base import fk as _fk
from .types import JsonType, utcnow


class Absence(Base):
    """A player's announced absence in a campaign, from *starts_at* until *until*."""

    __tablename__ = "absences"
    __table_args__ = (Index("ix_absences_campaign_player", "campaign_id", "player"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = _fk("campaigns.id", index=False)   # leads a unique key or index (SCALE-6)
    player: Mapped[str] = mapped_column(String(120))
    starts_at: Mapped[datetime]
    until: Mapped[datetime]
    note: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(20), default="post")   # post | panel
    post_id: Mapped[int | None] = _fk("posts.id", nullable=True, ondelete="SET NULL")
    narrator_id: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]
    ended_by: Mapped[str | None] = mapped_column(String(20))          # date | post | narrator

    def active_at(self, at: datetime) -> bool:
        """Whether the absence covers *at* (begun, not over by its date or an ending)."""
        return self.starts_at <= at < self.until and (self.ended_at is None or at < self.ended_at)


class StandingOrder(Base):
    """One combatant's default (``kind`` ``default``) or conditional order (``if``).

    ``actions`` are stored actions (:meth:`pbp.rules.model.Action.to_dict`),
    ``condition`` a :class:`pbp.rules.standing.StandingCondition` as a dict; ``state``
    ``active``, ``refused`` (a default that spends a limited resource, or words not
    understood: ``reason`` says which), ``replaced`` or ``cancelled``."""

    __tablename__ = "standing_orders"
    id: Mapped[int] = mapped_column(primary_key=True)
    combatant_id: Mapped[int] = _fk("combatants.id")
    kind: Mapped[str] = mapped_column(String(12))
    text: Mapped[str] = mapped_column(Text, default="")
    actions: Mapped[list[Any]] = mapped_column(JsonType, default=list)
    condition: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    state: Mapped[str] = mapped_column(String(12), default="active")
    reason: Mapped[str | None] = mapped_column(String(60))
    source: Mapped[str] = mapped_column(String(20), default="post")   # post | panel
    post_id: Mapped[int | None] = _fk("posts.id", nullable=True, ondelete="SET NULL")
    round_id: Mapped[int | None] = _fk("rounds.id", nullable=True, ondelete="SET NULL")
    narrator_id: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]


# --- read queries (the store layer owns them) --------------------------------------------

def absences(session: Session, campaign_id: int, *, player: str | None = None
             ) -> list[Absence]:
    """A campaign's absences (one player's, when given), newest first."""
    q = select(Absence).where(Absence.campaign_id == campaign_id)
    if player is not None:
        q = q.where(func.lower(Absence.player) == player.casefold())
    return list(session.scalars(q.order_by(Absence.starts_at.desc(), Absence.id.desc())))


def active_absence(session: Session, campaign_id: int, player: str, at: datetime
                   ) -> Absence | None:
    """The absence of *player* covering *at* (the latest begun), or None."""
    for a in absences(session, campaign_id, player=player):
        if a.active_at(at):
            return a
    return None


def post_absences(session: Session, post_id: int) -> list[Absence]:
    return list(session.scalars(select(Absence).where(Absence.post_id == post_id)))


def orders(session: Session, combatant_ids: Sequence[int], *, states: Sequence[str] = ("active",)
           ) -> list[StandingOrder]:
    """Standing orders of *combatant_ids* in *states*, oldest first."""
    if not combatant_ids:
        return []
    return list(session.scalars(select(StandingOrder)
                                .where(StandingOrder.combatant_id.in_(list(combatant_ids)),
                                       StandingOrder.state.in_(list(states)))
                                .order_by(StandingOrder.id)))


def post_orders(session: Session, post_id: int) -> list[StandingOrder]:
    return list(session.scalars(select(StandingOrder).where(StandingOrder.post_id == post_id)))


def round_orders(session: Session, round_id: int) -> list[StandingOrder]:
    """Orders set by posts of a round (the round's reply acknowledges them)."""
    return list(session.scalars(select(StandingOrder).where(StandingOrder.round_id == round_id)
                                .order_by(StandingOrder.id)))


def round_absences(session: Session, campaign_id: int, post_ids: Sequence[int]) -> list[Absence]:
    """Absences announced by the posts *post_ids* (a round's posts)."""
    if not post_ids:
        return []
    return list(session.scalars(select(Absence).where(Absence.campaign_id == campaign_id,
                                                      Absence.post_id.in_(list(post_ids)))
                                .order_by(Absence.id)))


def round_post_ids(session: Session, round_id: int) -> list[int]:
    """The ids of the posts read for a round (its absences are acknowledged in its reply)."""
    posts = Base.metadata.tables["posts"]
    return list(session.scalars(select(posts.c.id).where(posts.c.round_id == round_id)))
