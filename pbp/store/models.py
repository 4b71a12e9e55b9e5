"""The store's tables (SQLAlchemy 2 declarative), in the game's own words.

Why these constraints: workers retry, beat sweeps overlap, two pollers may read the
same page. Every "at most once" promise of the service is a unique constraint here,
not only a check in code (DESIGN.md point 8):

* a post is stored once per thread (``uq_posts_thread_id``);
* a roll is made once per post tag (``uq_rolls_post_tag``) and once per round index
  (``uq_rolls_round_index``: two workers cannot both use roll #7 of a seed);
* a round exists once per encounter number; one reply per idempotency key
  (``<round id>:<kind>``), so resolving a round twice cannot queue a second reply.

Rolls are immutable: the ORM refuses to flush a change to a :class:`RollRecord`
(see :mod:`pbp.store.db`), and ``pbp verify`` catches a change made behind its back.
All datetimes are aware UTC (:class:`pbp.store.types.UTCDateTime`).
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import (
    DDL,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    event,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .base import Base
from .base import fk as _fk
from .campaigns import Campaign, CampaignNarrator, Narrator, Thread
from .infra import leases_table, watch_table
from .ladder import LadderPlayer, Notification
from .ledger import AuditEntry, Override, Reply
from .logins import NarratorSession, throttle_table
from .standing import Absence, StandingOrder
from .types import JsonType, utcnow

# --- the fight ----------------------------------------------------------------------------


class Encounter(Base):
    """One fight in a thread. ``state`` is :class:`pbp.rules.model.Encounter` as JSON
    (minus the combatants, which have rows); ``round_number`` the current round."""

    __tablename__ = "encounters"
    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = _fk("campaigns.id")
    thread_id: Mapped[int] = _fk("threads.id")
    name: Mapped[str] = mapped_column(String(200), default="")
    ruleset: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(20), default="setup")  # setup | active | finished
    round_number: Mapped[int] = mapped_column(Integer, default=0)
    surprise: Mapped[bool] = mapped_column(Boolean, default=False)
    surprised: Mapped[list[Any]] = mapped_column(default=list)
    order: Mapped[list[Any]] = mapped_column(default=list)
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)   # delayed, readied, extras
    houserules: Mapped[dict[str, Any]] = mapped_column(default=dict)  # over the campaign's
    #: the address of its public verification page (DICE-4): unguessable, unlike the id
    #: (a row written around the ORM may have none: it then has no public page)
    verify_token: Mapped[str | None] = mapped_column(String(64), unique=True, index=True,
                                                     default=lambda: secrets.token_urlsafe(24))
    #: DICE-2: the SHA-256 of ``hidden_key``, published in the opening reply (the key itself
    #: when the encounter ends); None for an encounter from before migration 0013
    hidden_commitment: Mapped[str | None] = mapped_column(String(64))
    #: STALL-5: this fight's round length in hours (None: the campaign's ``round_hours``)
    round_hours: Mapped[float | None] = mapped_column(Float)
    #: the thread's posts from this moment on belong to the encounter
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: DICE-1: round k rolls with link k of the chain ending in the secret anchor
    #: (pbp.dice.chain_link); ``dice_chain`` (link 0) is public from the opening reply.
    #: NULL for encounters made before the chain (per-round seeds, "older encounter").
    dice_anchor: Mapped[str | None] = mapped_column(String(64))
    dice_chain_length: Mapped[int | None] = mapped_column(Integer)
    dice_chain: Mapped[str | None] = mapped_column(String(64))
    #: DICE-2's secret key; its SHA-256 is published with the chain, the key at the end
    hidden_key: Mapped[str | None] = mapped_column(String(64))

    combatants: Mapped[list[Combatant]] = relationship(
        back_populates="encounter", cascade="all, delete-orphan", order_by="Combatant.id")
    thread: Mapped[Thread] = relationship()
    campaign: Mapped[Campaign] = relationship()


class Combatant(Base):
    """A participant and its sheet. ``player`` is the poster who controls it (None: NPC,
    the narrator's). ``sheet`` holds stats, weapons, abilities, aliases, extra actions."""

    __tablename__ = "combatants"
    __table_args__ = (UniqueConstraint("encounter_id", "key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    encounter_id: Mapped[int] = _fk("encounters.id", index=False)   # leads a unique key or index (SCALE-6)
    key: Mapped[str] = mapped_column(String(80))
    name: Mapped[str] = mapped_column(String(120))
    side: Mapped[str] = mapped_column(String(40), default="players")
    player: Mapped[str | None] = mapped_column(String(120))
    sheet: Mapped[dict[str, Any]] = mapped_column(default=dict)
    hp: Mapped[int] = mapped_column(Integer, default=10)
    max_hp: Mapped[int] = mapped_column(Integer, default=10)
    conditions: Mapped[list[Any]] = mapped_column(default=list)
    initiative: Mapped[float | None] = mapped_column(Float)
    down: Mapped[bool] = mapped_column(Boolean, default=False)

    encounter: Mapped[Encounter] = relationship(back_populates="combatants")


class Round(Base):
    """A posting window (PBP-1). ``seed`` stays secret until resolution; ``commitment``
    (SHA-256 of the seed) is published in the opening reply."""

    __tablename__ = "rounds"
    __table_args__ = (
        UniqueConstraint("encounter_id", "number"),
        Index("ix_rounds_state_deadline", "state", "deadline"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    encounter_id: Mapped[int] = _fk("encounters.id", index=False)   # leads a unique key or index (SCALE-6)
    number: Mapped[int] = mapped_column(Integer)
    surprise: Mapped[bool] = mapped_column(Boolean, default=False)
    state: Mapped[str] = mapped_column(String(20), default="open")  # open | resolved | cancelled
    opens_at: Mapped[datetime]
    deadline: Mapped[datetime]
    closed_at: Mapped[datetime | None]
    resolved_at: Mapped[datetime | None]
    seed: Mapped[str] = mapped_column(String(128))
    commitment: Mapped[str] = mapped_column(String(64))
    seed_revealed: Mapped[bool] = mapped_column(Boolean, default=False)
    order: Mapped[list[Any]] = mapped_column(default=list)
    #: encounter snapshot (pbp.store.codec) before and after resolution
    state_before: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    state_after: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    reminders_sent: Mapped[list[Any]] = mapped_column(default=list)  # hours already reminded
    #: narrator waived the latency penalty for these combatant keys (PBP-2)
    waived: Mapped[list[Any]] = mapped_column(default=list)

    encounter: Mapped[Encounter] = relationship()


class ExtensionRequest(Base):
    """STALL-5: a player's ``.extend 12h`` for a round, once per post. ``state``: granted
    (automatically, within the campaign's limit, or by a narrator), queued (for the
    narrator), refused (by a narrator)."""

    __tablename__ = "extension_requests"
    __table_args__ = (UniqueConstraint("round_id", "post_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = _fk("rounds.id", index=False)   # leads a unique key or index (SCALE-6)
    post_id: Mapped[int | None] = _fk("posts.id", nullable=True, ondelete="SET NULL")
    combatant_id: Mapped[int | None] = _fk("combatants.id", nullable=True, ondelete="SET NULL")
    player: Mapped[str] = mapped_column(String(120))
    hours: Mapped[float] = mapped_column(Float)
    state: Mapped[str] = mapped_column(String(20), default="queued")  # granted | queued | refused
    automatic: Mapped[bool] = mapped_column(Boolean, default=False)
    narrator_id: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    decided_at: Mapped[datetime | None]

    round: Mapped[Round] = relationship()
    combatant: Mapped[Combatant | None] = relationship()


# --- what players wrote ------------------------------------------------------------------


class Post(Base):
    """A post as last seen; every revision seen is in :class:`PostRevision`."""

    __tablename__ = "posts"
    #: the thread's deleted posts found without walking its history (every ingest batch
    #: asks which hold a roll to give back, DICE-3: SCALE-6)
    __table_args__ = (UniqueConstraint("thread_id", "platform_id"),
                      Index("ix_posts_thread_deleted", "thread_id", "deleted_at"))
    id: Mapped[int] = mapped_column(primary_key=True)
    thread_id: Mapped[int] = _fk("threads.id", index=False)   # leads (thread, platform id)
    platform_id: Mapped[str] = mapped_column(String(120))
    author: Mapped[str] = mapped_column(String(120))
    posted_at: Mapped[datetime]
    body: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    fmt: Mapped[str] = mapped_column(String(20), default="html")
    content_hash: Mapped[str] = mapped_column(String(64))
    url: Mapped[str | None] = mapped_column(String(500))
    revisions_seen: Mapped[int] = mapped_column(Integer, default=1)
    edited_at: Mapped[datetime | None]
    deleted_at: Mapped[datetime | None]
    first_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: the round whose window it was posted in (or the late one it belongs to)
    round_id: Mapped[int | None] = _fk("rounds.id", nullable=True, ondelete="SET NULL")
    #: our own reply, recognised by its marker: never parsed as a declaration
    is_ours: Mapped[bool] = mapped_column(Boolean, default=False)

    revisions: Mapped[list[PostRevision]] = relationship(
        back_populates="post", cascade="all, delete-orphan", order_by="PostRevision.number")


class PostRevision(Base):
    """One version of a post's body, as first seen."""

    __tablename__ = "post_revisions"
    __table_args__ = (UniqueConstraint("post_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    post_id: Mapped[int] = _fk("posts.id", index=False)   # leads (post, number)
    number: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    change: Mapped[str] = mapped_column(String(10), default="new")  # new | edited | deleted
    edited_at: Mapped[datetime | None]
    seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: a roll of this post existed when this revision was seen (PBP-4)
    after_roll: Mapped[bool] = mapped_column(Boolean, default=False)

    post: Mapped[Post] = relationship(back_populates="revisions")


class Declaration(Base):
    """What one combatant declared in one round, from one post (or the narrator, or none)."""

    __tablename__ = "declarations"
    __table_args__ = (UniqueConstraint("round_id", "combatant_id", "post_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = _fk("rounds.id", index=False)   # leads the unique key
    combatant_id: Mapped[int] = _fk("combatants.id")
    post_id: Mapped[int | None] = _fk("posts.id", nullable=True, ondelete="SET NULL")
    source: Mapped[str] = mapped_column(String(20), default="post")  # post | narrator | override
    actions: Mapped[list[Any]] = mapped_column(default=list)          # codec.action_to_dict
    errors: Mapped[list[Any]] = mapped_column(default=list)           # parser problems
    speech: Mapped[list[Any]] = mapped_column(default=list)
    speech_count: Mapped[int] = mapped_column(Integer, default=0)
    speech_limit: Mapped[int | None] = mapped_column(Integer)
    #: the language the post was read in (en/pt/ru; the campaign's unless the post is
    #: plainly in another, issue 13 item 2); None for a declaration no post made
    lang: Mapped[str | None] = mapped_column(String(8))
    #: roll tags inside quotes (another's roll quoted): shown, never rolled (issue 13 item 4)
    quoted_rolls: Mapped[list[Any]] = mapped_column(default=list)
    # DICE-6: each table request's draw (table, roll index, entry texts), kept as drawn
    tables: Mapped[list[Any]] = mapped_column(default=list)
    late: Mapped[bool] = mapped_column(Boolean, default=False)
    edited_after_roll: Mapped[bool] = mapped_column(Boolean, default=False)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    superseded: Mapped[bool] = mapped_column(Boolean, default=False)
    #: what the narrator and the reply must be told: [{"code": "edited-after-roll", ...}]
    notes: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    combatant: Mapped[Combatant] = relationship()
    post: Mapped[Post | None] = relationship()


#: every kind of roll: a player's tag, initiative, the engine's own, a random table's, the
#: narrator's secret roll (the panel's words: pbp.panel.code_words)
ROLL_KINDS = ("tag", "initiative", "engine", "table", "narrator")


class RollRecord(Base):
    """One roll, immutable once made. ``roll_index`` is its index under the round seed;
    ``tag_index`` the roll tag's ordinal in its post (PBP-4), None for engine rolls."""

    __tablename__ = "rolls"
    __table_args__ = (
        UniqueConstraint("round_id", "roll_index", name="uq_rolls_round_index"),
        UniqueConstraint("post_id", "tag_index", name="uq_rolls_post_tag"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = _fk("rounds.id", index=False)   # leads (round, index)
    roll_index: Mapped[int] = mapped_column(Integer)
    post_id: Mapped[int | None] = _fk("posts.id", nullable=True, ondelete="SET NULL",
                                          index=False)   # leads (post, tag index)
    tag_index: Mapped[int | None] = mapped_column(Integer)
    position: Mapped[int | None] = mapped_column(Integer)      # character offset of the tag
    kind: Mapped[str] = mapped_column(String(20), default="tag")  # one of ROLL_KINDS
    actor: Mapped[str | None] = mapped_column(String(80))
    label: Mapped[str | None] = mapped_column(String(200))
    written: Mapped[str] = mapped_column(String(300), default="")  # as the player wrote it
    expression: Mapped[str] = mapped_column(String(300))           # as rolled (stats substituted)
    total: Mapped[int] = mapped_column(Integer)
    natural: Mapped[int | None] = mapped_column(Integer)
    faces: Mapped[list[Any]] = mapped_column(default=list)
    breakdown: Mapped[str] = mapped_column(String(1000))
    markdown: Mapped[str] = mapped_column(String(1000), default="")
    #: DICE-2: a secret roll, drawn from ``sha256("K:n:i")`` instead of the round seed;
    #: ``seal`` is ``sha256("h:expression")``, the only thing a public reply shows of it
    hidden: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    seal: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RollPost(Base):
    """Whose post a tag roll came from, kept beside the immutable roll (DICE-3).

    Why a side table: ``rolls.post_id`` is SET NULL if the post row ever goes, and the
    ledger must still say whose post it was; the rolls table itself is never altered
    (its trigger refuses UPDATE, and a table rebuild would drop the trigger)."""

    __tablename__ = "roll_posts"
    roll_id: Mapped[int] = mapped_column(ForeignKey("rolls.id", ondelete="CASCADE"), primary_key=True)
    platform_id: Mapped[str] = mapped_column(String(120))
    author: Mapped[str] = mapped_column(String(120))
    #: the post's revision the roll was made from (a later edit supersedes it)
    revision: Mapped[int] = mapped_column(Integer, default=1)


class RollReuse(Base):
    """A re-posted tag given back the roll of its deleted post (DICE-3, PBP-4): the same
    tag, author, actor and round. Each side at most once, the database the last guard:
    one roll per (post, tag), and a roll given back to one post only."""

    __tablename__ = "roll_reuses"
    __table_args__ = (UniqueConstraint("post_id", "tag_index", name="uq_roll_reuses_post_tag"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    post_id: Mapped[int] = _fk("posts.id", index=False)   # leads a unique key or index (SCALE-6)
    tag_index: Mapped[int] = mapped_column(Integer)
    roll_id: Mapped[int] = mapped_column(ForeignKey("rolls.id", ondelete="CASCADE"), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
class RollReveal(Base):
    """DICE-2: a secret roll made public, once (``roll_id`` is unique).

    Why a row of its own and not a column of the roll: a roll never changes (the trigger
    refuses every UPDATE of ``rolls``), so revealing it adds a record instead. ``at_end``:
    revealed because the encounter ended; ``reply_id``: the reply that publishes it."""

    __tablename__ = "roll_reveals"
    id: Mapped[int] = mapped_column(primary_key=True)
    roll_id: Mapped[int] = mapped_column(ForeignKey("rolls.id", ondelete="CASCADE"), unique=True)
    encounter_id: Mapped[int] = _fk("encounters.id")
    narrator_id: Mapped[int | None] = _fk("narrators.id", nullable=True, ondelete="SET NULL")
    reason: Mapped[str] = mapped_column(Text, default="")
    at_end: Mapped[bool] = mapped_column(Boolean, default=False)
    reply_id: Mapped[int | None] = _fk("replies.id", nullable=True, ondelete="SET NULL")
    revealed_at: Mapped[datetime] = mapped_column(default=utcnow)

    roll: Mapped[RollRecord] = relationship()


class EventRecord(Base):
    """Something the engine (or the round lifecycle) said happened, in order."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("round_id", "seq"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = _fk("rounds.id", index=False)   # leads a unique key or index (SCALE-6)
    seq: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(60))
    actor: Mapped[str | None] = mapped_column(String(80))
    target: Mapped[str | None] = mapped_column(String(80))
    rule: Mapped[str | None] = mapped_column(String(20))
    message: Mapped[str] = mapped_column(Text, default="")
    params: Mapped[dict[str, Any]] = mapped_column(default=dict)
    roll_indexes: Mapped[list[Any]] = mapped_column(default=list)


__all__ = [
    "Absence", "AuditEntry", "Base", "Campaign", "CampaignNarrator", "Combatant", "Declaration",
    "Encounter", "EventRecord", "ExtensionRequest", "LadderPlayer", "Narrator", "NarratorSession", "Notification", "Override", "Post",
    "PostRevision", "Reply", "RollPost", "RollRecord", "RollReuse", "RollReveal", "Round", "StandingOrder",
    "Thread", "leases_table", "throttle_table", "watch_table",
]


# --- rolls are immutable in the database too (PBP-4) ------------------------------------
# The ORM refuses to change a roll (pbp.store.db); these triggers refuse an UPDATE from
# anywhere else. Someone able to drop a trigger can still change a row: ``pbp verify``
# recomputes every roll from the revealed seed and names the one that differs.
# Migration 0003 installs the same triggers; create_all (tests, pbp simulate) does here.

ROLLS_TRIGGER_SQLITE = (
    "CREATE TRIGGER IF NOT EXISTS rolls_immutable BEFORE UPDATE ON rolls "
    "BEGIN SELECT RAISE(ABORT, 'rolls are immutable (PBP-4)'); END")
ROLLS_FUNCTION_PG = (
    "CREATE OR REPLACE FUNCTION pbp_rolls_immutable() RETURNS trigger AS $$ "
    "BEGIN RAISE EXCEPTION 'rolls are immutable (PBP-4)'; END $$ LANGUAGE plpgsql")
ROLLS_TRIGGER_PG = (
    "CREATE TRIGGER rolls_immutable BEFORE UPDATE ON rolls "
    "FOR EACH ROW EXECUTE FUNCTION pbp_rolls_immutable()")

event.listen(RollRecord.__table__, "after_create",
             DDL(ROLLS_TRIGGER_SQLITE).execute_if(dialect="sqlite"))
event.listen(RollRecord.__table__, "after_create",
             DDL(ROLLS_FUNCTION_PG).execute_if(dialect="postgresql"))
event.listen(RollRecord.__table__, "after_create",
             DDL(ROLLS_TRIGGER_PG).execute_if(dialect="postgresql"))
