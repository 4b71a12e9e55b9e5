"""STALL-3's tables: the direct notifications waiting to go out, and each player's place
on the escalation ladder.

Why a second outbox (not :class:`~pbp.store.ledger.Reply`): a private message goes to a
person, not into a thread, so it has no thread marker to look for; what keeps it exactly
once is ``key`` (``<round id>:<player>:<step>``), unique, so a second sweep or a second
worker cannot queue a double, and a delivery's lease and state (``sending`` before the
call) so a retry never posts one that went out.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base
from .base import fk as _fk
from .types import utcnow


class Notification(Base):
    """One direct message of the ladder (STALL-3): to a player at T−y (``step`` notify)
    or to the narrator after N missed rounds (``step`` narrator).

    ``channel``: reddit | misago | mention | none (the platform has no direct channel:
    kept, state ``skipped``, so the panel says so). ``state``: pending | sending | sent |
    failed | skipped."""

    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_state", "state"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    campaign_id: Mapped[int] = _fk("campaigns.id")
    round_id: Mapped[int | None] = _fk("rounds.id", nullable=True, ondelete="SET NULL")
    thread_id: Mapped[int] = _fk("threads.id")
    player: Mapped[str] = mapped_column(String(120))
    step: Mapped[str] = mapped_column(String(20))
    channel: Mapped[str] = mapped_column(String(20))
    recipient: Mapped[str] = mapped_column(String(120))
    subject: Mapped[str] = mapped_column(String(300))
    body: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(20), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    platform_id: Mapped[str | None] = mapped_column(String(120))
    not_before: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None]


class LadderPlayer(Base):
    """A player's rounds missed in a row in a campaign, and since when the ladder has the
    narrator run their character (None: it does not). A post from the player sets
    ``missed_in_row`` back to 0 and ends an automatic narrator-run (docs/rounds.md)."""

    __tablename__ = "ladder_players"
    __table_args__ = (UniqueConstraint("campaign_id", "player"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = _fk("campaigns.id", index=False)   # leads a unique key or index (SCALE-6)
    player: Mapped[str] = mapped_column(String(120))   # casefolded platform name
    missed_in_row: Mapped[int] = mapped_column(Integer, default=0)
    last_missed_round_id: Mapped[int | None] = _fk("rounds.id", nullable=True, ondelete="SET NULL")
    narrator_told: Mapped[bool] = mapped_column(Boolean, default=False)
    narrator_run_since: Mapped[datetime | None]
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
