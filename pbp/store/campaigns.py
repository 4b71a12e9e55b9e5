"""People and campaigns: narrators, campaigns, who may run them, the watched threads."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .base import Base
from .base import fk as _fk
from .types import JsonType, utcnow


class Narrator(Base):
    """A person who runs campaigns from the panel. ``password_hash`` is argon2 (panel)."""

    __tablename__ = "narrators"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    display_name: Mapped[str] = mapped_column(String(120), default="")
    email: Mapped[str | None] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(String(255))
    language: Mapped[str] = mapped_column(String(8), default="en")
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_login_at: Mapped[datetime | None]


class Campaign(Base):
    """A game: its ruleset, language, time zone, houserules and round timing."""

    __tablename__ = "campaigns"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    slug: Mapped[str] = mapped_column(String(100), unique=True)
    ruleset: Mapped[str] = mapped_column(String(40))
    language: Mapped[str] = mapped_column(String(8), default="en")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    houserules: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: hold every reply until a narrator approves it (settings.approval_mode is the default)
    approval_mode: Mapped[bool] = mapped_column(Boolean, default=False)
    #: length of a round's posting window, in hours
    round_hours: Mapped[float] = mapped_column(Float, default=24.0)
    #: hours before the deadline at which reminders go out (e.g. [12, 2])
    reminder_hours: Mapped[list[Any]] = mapped_column(default=lambda: [2.0])
    #: resolve as soon as everyone has declared (PBP-1, STALL-4 early close): on for new
    #: campaigns; campaigns made before migration 0015 keep what they had
    early_close: Mapped[bool] = mapped_column(Boolean, default=True)
    #: DICE-5: a roll the narrator set is always marked in the reply; with this on, the
    #: reply says so without the value the narrator chose
    private_roll_values: Mapped[bool] = mapped_column(Boolean, default=False)
    #: anyone with an encounter's link may see its dice checked, logged out (DICE-4; opt-in)
    public_verification: Mapped[bool] = mapped_column(Boolean, default=False)
    #: DICE-6: the campaign's own random tables, the TOML text the narrator saved (checked
    #: when saved: pbp.random_tables), on top of its ruleset's pbp/config/tables files
    tables: Mapped[str | None] = mapped_column(Text)
    #: STALL-4: minutes after the last expected declaration during which edits still count
    close_grace_minutes: Mapped[int] = mapped_column(Integer, default=10)
    #: STALL-5: local "HH:MM-HH:MM" in which no deadline falls ("" = none), and weekends
    quiet_hours: Mapped[str] = mapped_column(String(11), default="")
    skip_weekends: Mapped[bool] = mapped_column(Boolean, default=False)
    #: STALL-5: hours of extension per round granted without the narrator (0 = always ask)
    extension_limit_hours: Mapped[float] = mapped_column(Float, default=12.0)
    #: STALL-3: hours before the deadline at which each player who still owes a post gets a
    #: direct notification (None: none)
    notify_hours: Mapped[float | None] = mapped_column(Float)
    #: STALL-3: missed rounds in a row after which the narrator is told (0: never)
    missed_limit: Mapped[int] = mapped_column(Integer, default=0)
    #: STALL-3: at that point the narrator also runs the character, automatically
    auto_narrator_run: Mapped[bool] = mapped_column(Boolean, default=False)
    #: STALL-3: the narrator's account on the thread's platform, for a private message
    narrator_account: Mapped[str] = mapped_column(String(120), default="")
    #: STALL-9: the weekly who-owes-a-post list goes to this thread (no foreign key: see
    #: migration 0016) on ``owes_weekday`` (0 = Monday; None = no weekly post) at
    #: ``owes_hour`` in the campaign's zone
    owes_thread_id: Mapped[int | None] = mapped_column(Integer)
    owes_weekday: Mapped[int | None] = mapped_column(Integer)
    owes_hour: Mapped[int] = mapped_column(Integer, default=9)
    #: STALL-8: one tracker post per encounter, edited in place with the status block,
    #: where the platform lets the bot edit its post
    tracker_post: Mapped[bool] = mapped_column(Boolean, default=False)
    owner_id: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    archived: Mapped[bool] = mapped_column(Boolean, default=False)

    narrators: Mapped[list[CampaignNarrator]] = relationship(
        back_populates="campaign", cascade="all, delete-orphan")
    threads: Mapped[list[Thread]] = relationship(back_populates="campaign",
                                                   cascade="all, delete-orphan")


class CampaignNarrator(Base):
    """Who may run a campaign: its owner and co-narrators."""

    __tablename__ = "campaign_narrators"
    __table_args__ = (UniqueConstraint("campaign_id", "narrator_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = _fk("campaigns.id", index=False)   # leads a unique key or index (SCALE-6)
    narrator_id: Mapped[int] = _fk("narrators.id")
    role: Mapped[str] = mapped_column(String(20), default="co")  # owner | co
    #: the name this narrator posts under on the platforms (their NPC posts)
    platform_names: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    campaign: Mapped[Campaign] = relationship(back_populates="narrators")
    narrator: Mapped[Narrator] = relationship()


class Thread(Base):
    """A watched source: a forum topic, a Reddit submission, or a scenario file."""

    __tablename__ = "threads"
    __table_args__ = (UniqueConstraint("campaign_id", "kind", "url"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = _fk("campaigns.id", index=False)   # leads a unique key or index (SCALE-6)
    kind: Mapped[str] = mapped_column(String(20))            # forum | reddit | file
    url: Mapped[str] = mapped_column(String(500))
    title: Mapped[str] = mapped_column(String(300), default="")
    #: reply markup: bbcode (forums) | markdown (Reddit) | text
    platform: Mapped[str] = mapped_column(String(20), default="bbcode")
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    cursor: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    last_poll: Mapped[datetime | None]
    next_poll: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    error_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    campaign: Mapped[Campaign] = relationship(back_populates="threads")
