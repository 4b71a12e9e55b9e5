"""The panel's logins: one row per open narrator session, one per failed-login counter.

Why sessions on the server: the panel's cookie is signed, not remembered, so without a
row to delete a cookie copied before a logout stayed good until it expired (issue 12,
item 3). The cookie now carries a random token; the row (keyed by the token's SHA-256,
so a copy of the database opens no session) says whose it is, when it began and when it
was last used. Logout deletes the row; a password change and "log out everywhere" delete
all of the narrator's rows.

Why counters in the database: every panel process (gunicorn workers, a restarted panel)
must see the same count, or a guesser gets ``workers x limit`` tries and a restart wipes
the lockout (issue 12, item 4). Keys are hashed too: no name or address is stored.
Times are unix seconds (floats), like :mod:`pbp.store.infra`'s leases.

>>> from sqlalchemy import create_engine
>>> engine = create_engine("sqlite://")
>>> Base.metadata.create_all(engine, tables=[throttle_table])
>>> with engine.begin() as c:
...     [record_failure(c, "k", now=0.0, limit=2, window=60, lockout=10, lockout_max=99)
...      for _ in range(2)]
[0.0, 10.0]
>>> with engine.begin() as c:
...     locked_for(c, ["k"], now=4.0)
6.0
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Boolean, Float, String, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, Session, mapped_column

from .base import Base
from .base import fk as _fk
from .campaigns import Narrator


def digest(text: str) -> str:
    """SHA-256 hex of *text*: what is stored of a session token or a throttle key."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class NarratorSession(Base):
    """An open panel session of a narrator (``remember``: "keep me logged in" was ticked,
    so only the absolute lifetime ends it, not the idle one)."""

    __tablename__ = "narrator_sessions"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    narrator_id: Mapped[int] = _fk("narrators.id")
    created_at: Mapped[float] = mapped_column(Float)
    seen_at: Mapped[float] = mapped_column(Float)
    remember: Mapped[bool] = mapped_column(Boolean, default=False)


#: One row per counted key (a hashed name-and-address pair, or a hashed address).
throttle_table = sa.Table(
    "login_throttle", Base.metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False, default=0),
    sa.Column("window_start", sa.Float, nullable=False, default=0.0),
    sa.Column("locked_until", sa.Float, nullable=False, default=0.0),
    sa.Column("lockouts", sa.Integer, nullable=False, default=0),
)

#: a session's ``seen_at`` is written at most this often (not on every request)
TOUCH_EVERY = 60.0


# --- sessions -------------------------------------------------------------------------------


def open_session(s: Session, narrator_id: int, *, now: float, remember: bool = False) -> str:
    """A new session of *narrator_id*; returns the token the cookie carries."""
    token = secrets.token_urlsafe(32)
    s.add(NarratorSession(id=digest(token), narrator_id=narrator_id, created_at=now, seen_at=now,
                          remember=remember))
    return token


def live_session(s: Session, narrator_id: int, token: str, *, now: float, idle: float,
                 max_age: float, write: Session | None = None) -> Narrator | None:
    """The active narrator whose open session *token* is, or None (unknown, revoked, idle
    longer than *idle* seconds unless remembered, older than *max_age* seconds). An
    expired row is deleted; ``seen_at`` is refreshed at most every :data:`TOUCH_EVERY`.
    Those two writes go through *write* (committed at once) when given: a read request's
    own session cannot write (SCALE-4)."""
    row = s.execute(select(NarratorSession, Narrator)
                    .join(Narrator, Narrator.id == NarratorSession.narrator_id)
                    .where(NarratorSession.id == digest(token),
                           NarratorSession.narrator_id == narrator_id)).first()
    if row is None:
        return None
    sess, narrator = row
    expired = now - sess.created_at > max_age or (not sess.remember and now - sess.seen_at > idle)
    w = s if write is None else write
    if expired or not narrator.active:
        w.execute(delete(NarratorSession).where(NarratorSession.id == sess.id))
        w.commit()
        return None
    if now - sess.seen_at > TOUCH_EVERY:
        w.execute(update(NarratorSession).where(NarratorSession.id == sess.id).values(seen_at=now))
        w.commit()
    return narrator  # type: ignore[no-any-return]


def close_session(s: Session, token: str) -> None:
    """End the one session *token* (logout)."""
    s.execute(delete(NarratorSession).where(NarratorSession.id == digest(token)))


def close_all_sessions(s: Session, narrator_id: int) -> int:
    """End every session of *narrator_id* (password change, "log out everywhere")."""
    return s.execute(delete(NarratorSession).where(  # type: ignore[attr-defined,no-any-return]
        NarratorSession.narrator_id == narrator_id)).rowcount


def prune_sessions(s: Session, *, now: float, max_age: float) -> None:
    """Forget sessions past their absolute lifetime (run at each login: the table stays small)."""
    s.execute(delete(NarratorSession).where(NarratorSession.created_at < now - max_age))


def session_count(s: Session, narrator_id: int) -> int:
    return s.scalar(select(sa.func.count()).select_from(NarratorSession)  # type: ignore[return-value]
                    .where(NarratorSession.narrator_id == narrator_id)) or 0


# --- failed-login counters ------------------------------------------------------------------


def locked_for(conn: Connection | Session, keys: Iterable[str], *, now: float) -> float:
    """Seconds until every key of *keys* may try again (0: now)."""
    t = throttle_table
    until = conn.execute(select(sa.func.max(t.c.locked_until))
                         .where(t.c.key.in_([digest(k) for k in keys]))).scalar()
    return max(0.0, (until or 0.0) - now)


def _insert(conn: Connection | Session) -> Any:
    """The dialect's INSERT with ON CONFLICT (the store runs on PostgreSQL or SQLite)."""
    dialect = conn.get_bind().dialect.name if isinstance(conn, Session) else conn.dialect.name
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


def record_failure(conn: Connection | Session, key: str, *, now: float, limit: int, window: float,
                   lockout: float, lockout_max: float) -> float:
    """Count one failure of *key*; at *limit* failures within *window* seconds lock it for
    *lockout* seconds, doubled at each lockout up to *lockout_max* (a lockout is forgotten
    once *lockout_max* has passed since it ended). Returns the lock's length (0: none).

    The row is read ``FOR UPDATE`` (PostgreSQL; SQLite's BEGIN IMMEDIATE already holds
    the one write lock), so two processes counting at once lose no failure."""
    t, k = throttle_table, digest(key)
    conn.execute(_insert(conn)(t).values(key=k, failures=0, window_start=now, locked_until=0.0,
                                         lockouts=0).on_conflict_do_nothing(index_elements=["key"]))
    row = conn.execute(select(t).where(t.c.key == k).with_for_update()).mappings().one()
    failures, start, lockouts = row["failures"], row["window_start"], row["lockouts"]
    if now - start > window:
        failures, start = 0, now
    if row["locked_until"] and now - row["locked_until"] > lockout_max:
        lockouts = 0
    failures += 1
    locked_until, length = row["locked_until"], 0.0
    if failures >= limit:
        length = float(min(lockout * 2 ** lockouts, lockout_max))
        locked_until, lockouts, failures, start = now + length, lockouts + 1, 0, now
    conn.execute(update(t).where(t.c.key == k).values(
        failures=failures, window_start=start, locked_until=locked_until, lockouts=lockouts))
    return length


def clear_failures(conn: Connection | Session, key: str) -> None:
    """Forget *key*'s failures and lockouts (a successful login of that name from there)."""
    conn.execute(delete(throttle_table).where(throttle_table.c.key == digest(key)))


def prune_failures(conn: Connection | Session, *, now: float, keep: float) -> None:
    """Forget counters idle for *keep* seconds (neither failing nor locked)."""
    t = throttle_table
    conn.execute(delete(t).where(t.c.window_start < now - keep, t.c.locked_until < now - keep))
