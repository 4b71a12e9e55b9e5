"""What we post and what narrators changed: the outbox, overrides and the audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base
from .base import fk as _fk
from .types import JsonType, utcnow

#: every kind of reply the service writes (the round's replies, pbp.rounds.replies; notices,
#: closings and corrections, pbp.rounds.notices; extensions, reveals, the tracker and its
#: edits, the weekly owes list). The panel says each as a word (pbp.panel.code_words);
#: tests/panel/test_code_words.py keeps this list in step with the code that writes them.
REPLY_KINDS = ("opening", "reminder", "resolution", "notice", "closing", "correction",
               "extension", "reveal", "tracker", "edit", "owes")


class Reply(Base):
    """The outbox. ``idempotency_key`` (``<round id>:<kind>``) is unique: a second
    resolution cannot queue a second reply. ``marker`` is embedded in the text so a
    lost answer is found on the platform (``Source.find_reply``) instead of reposted."""

    __tablename__ = "replies"
    __table_args__ = (Index("ix_replies_state", "state"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    thread_id: Mapped[int] = _fk("threads.id")
    round_id: Mapped[int | None] = _fk("rounds.id", nullable=True, ondelete="SET NULL")
    kind: Mapped[str] = mapped_column(String(20))       # one of REPLY_KINDS
    idempotency_key: Mapped[str] = mapped_column(String(120), unique=True)
    marker: Mapped[str] = mapped_column(String(120))
    platform: Mapped[str] = mapped_column(String(20))
    language: Mapped[str] = mapped_column(String(8))
    body: Mapped[str] = mapped_column(Text)
    #: held (awaiting approval) | pending | sending | sent | failed | cancelled
    state: Mapped[str] = mapped_column(String(20), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    platform_id: Mapped[str | None] = mapped_column(String(120))
    in_reply_to: Mapped[str | None] = mapped_column(String(120))
    approved_by: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    approved_at: Mapped[datetime | None]
    not_before: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None]


class Override(Base):
    """An explicit narrator decision (waive a penalty, set HP, replace a declaration,
    reject an action, add a condition...). Shown, marked, in the reply it affects."""

    __tablename__ = "overrides"
    id: Mapped[int] = mapped_column(primary_key=True)
    encounter_id: Mapped[int] = _fk("encounters.id")
    round_id: Mapped[int | None] = _fk("rounds.id", nullable=True)
    narrator_id: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    kind: Mapped[str] = mapped_column(String(40))
    target: Mapped[str | None] = mapped_column(String(80))    # combatant key, roll index...
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    reason: Mapped[str] = mapped_column(Text, default="")
    applied: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AuditEntry(Base):
    """Who changed what, with the value before and after (panel and service alike).

    ``encounter_id`` / ``round_id``: the encounter (and round) the change belongs to, so an
    encounter's log is its own and says "in round 2" (issue 11 item 10); None for a
    campaign's own changes (settings, threads, narrators). Migration 0005 filled them in
    for entries written before."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    narrator_id: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    actor: Mapped[str] = mapped_column(String(120), default="system")
    campaign_id: Mapped[int | None] = _fk("campaigns.id", nullable=True, ondelete="SET NULL")
    action: Mapped[str] = mapped_column(String(60))
    entity: Mapped[str] = mapped_column(String(40))
    entity_id: Mapped[str | None] = mapped_column(String(60))
    before: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    after: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    note: Mapped[str] = mapped_column(Text, default="")
    encounter_id: Mapped[int | None] = _fk("encounters.id", nullable=True, ondelete="SET NULL")
    round_id: Mapped[int | None] = _fk("rounds.id", nullable=True, ondelete="SET NULL")
