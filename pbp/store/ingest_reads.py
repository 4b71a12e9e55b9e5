"""The reads an ingest batch makes once, whatever its number of posts (SCALE-6).

Why a module of its own: ingest used to ask the database, for every post, which encounter
was live, which round was open, whether the post had rolls, whether its author had an
absence to end or a ladder count to reset, whether a deleted post had a roll to give back.
Each answer is the same for the whole batch, or can be read for all its posts at once;
here each is one query. Nothing here writes.

Each query is built once, at import, with bound parameters: SQLAlchemy keeps a statement
object's cache key, so a batch no longer builds each statement and walks it for its key
(with the thread's own prebuilt read, 10-20% less CPU a post in bench_rounds.py,
measured side by side).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    Connection,
    Integer,
    Text,
    and_,
    bindparam,
    cast,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import Session, aliased, joinedload

from . import json_text
from .models import (
    CampaignNarrator,
    Combatant,
    Encounter,
    LadderPlayer,
    Post,
    RollRecord,
    RollReuse,
    Round,
    Thread,
)
from .standing import Absence

#: rows per ``IN (...)`` list: well under SQLite's and PostgreSQL's parameter limits
CHUNK = 500

_KNOWN = select(Post.id, Post.platform_id, Post.content_hash, Post.deleted_at, Post.posted_at).where(
    Post.thread_id == bindparam("thread"), Post.platform_id.in_(bindparam("ids", expanding=True)))
_POSTS = select(Post).where(Post.id.in_(bindparam("ids", expanding=True)))
_ROLLED = select(RollRecord.post_id).distinct().where(
    RollRecord.post_id.in_(bindparam("ids", expanding=True)))
_R2 = aliased(Round)
#: the round open at ``since`` (or none before it: every round is read)
_OPEN_AT_SINCE = select(func.max(_R2.number)).where(
    _R2.encounter_id == Encounter.id, _R2.state != "cancelled",
    _R2.opens_at <= bindparam("since")).scalar_subquery()
#: each round's top roll index (the batch counts the next ones in memory)
_TOP = select(func.max(RollRecord.roll_index)).where(
    RollRecord.round_id == Round.id).scalar_subquery()
_LIVE_ROUNDS = (select(Encounter, Round, _TOP)
                .outerjoin(Round, and_(Round.encounter_id == Encounter.id,
                                       Round.state != "cancelled",
                                       Round.number >= func.coalesce(_OPEN_AT_SINCE, 0)))
                .where(Encounter.thread_id == bindparam("thread"),
                       Encounter.status.in_(("setup", "active")))
                .order_by(Encounter.started_at.desc(), Encounter.id.desc(), Round.number.desc()))
#: an encounter's combatants as stored, the JSON columns as their text: a row seen before is
#: known by these values without decoding its sheet (:mod:`pbp.rounds.roster_cache`)
_COMBATANTS = (select(Combatant.id, Combatant.key, Combatant.name, Combatant.side,
                      Combatant.player, Combatant.hp, Combatant.max_hp, Combatant.initiative,
                      Combatant.down, cast(Combatant.sheet, Text), cast(Combatant.conditions, Text))
               .where(Combatant.encounter_id == bindparam("encounter")).order_by(Combatant.id))


#: the campaign's and thread's hints in one statement (see :func:`batch_hints`): a kind
#: letter, a name, a round id
_HINTS = union_all(
    select(literal("n"), cast(CampaignNarrator.platform_names, Text), cast(null(), Integer))
    .where(CampaignNarrator.campaign_id == bindparam("campaign")),
    select(literal("l"), LadderPlayer.player, cast(null(), Integer))
    .where(LadderPlayer.campaign_id == bindparam("campaign"),
           or_(LadderPlayer.missed_in_row != 0, LadderPlayer.narrator_run_since.is_not(None))),
    select(literal("a"), Absence.player, cast(null(), Integer)).distinct()
    .where(Absence.campaign_id == bindparam("campaign")),
    select(literal("r"), RollRecord.actor, RollRecord.round_id).distinct()
    .join(Post, Post.id == RollRecord.post_id)
    .where(Post.thread_id == bindparam("thread"), Post.deleted_at.is_not(None),
           RollRecord.kind == "tag", RollRecord.id.not_in(select(RollReuse.roll_id))))


class Hints:
    """What :func:`batch_hints` read of a campaign and a thread.

    * ``narrators``: the casefolded platform names of the campaign's narrators;
    * ``ladder``: the players with an escalation-ladder count or a narrator-run to end
      (STALL-3): only their posts change the ladder (names only, not rows: most players
      have none, and a row loaded per player was a twentieth of an ingest batch);
    * ``absent``: the casefolded players with any absence in the campaign, ended or not
      (STALL-1): only they may have one a post ends;
    * ``repost``: (round id, actor) of tag rolls from the thread's deleted posts not given
      back yet (DICE-3): only a new tag of such an actor in such a round may take one back.
    """

    def __init__(self) -> None:
        self.narrators: set[str] = set()
        self.ladder: set[str] = set()
        self.absent: set[str] = set()
        self.repost: set[tuple[int, str]] = set()


def batch_hints(connection: Connection, campaign_id: int, thread_id: int) -> Hints:
    """The four reads an ingest batch makes of its campaign and thread, as one statement.

    Why (SCALE-6): each was a statement of its own, and a statement costs more than its
    rows: about 90 us of CPU on SQLite and 300 us or more over PostgreSQL's TCP on this
    machine, for sets that are almost always empty. Run on the connection (Core): it
    reads no table an ingest batch writes before it."""
    return _hints_of(connection.execute(_HINTS, {"campaign": campaign_id, "thread": thread_id}))


def _hints_of(rows: Iterable[tuple[object, ...]]) -> Hints:
    """:class:`Hints` from (kind letter, name, round id) rows."""
    out = Hints()
    for kind, name, round_id in rows:
        if kind == "n":
            names = json_text.loads(name) if name else None
            out.narrators.update(str(n).casefold() for n in names or [])
        elif kind == "l":
            out.ladder.add(name)
        elif kind == "a":
            out.absent.add(str(name).casefold())
        elif name is not None:
            out.repost.add((int(round_id), str(name)))   # type: ignore[call-overload]
    return out


def _json_rows(dialect: str, *columns: Any) -> Any:
    """An aggregate of *columns* as one JSON text: an array of arrays (null for no row)."""
    if dialect == "postgresql":
        return cast(func.json_agg(func.json_build_array(*columns)), Text)
    return cast(func.json_group_array(func.json_array(*columns)), Text)


_H = _HINTS.subquery()
#: PostgreSQL: ``new_posts`` ids taken from the posts' sequence, as one JSON text (an
#: uncorrelated subquery: run once a statement, whatever its rows)
_NEW_IDS = cast(select(func.json_agg(func.nextval(func.pg_get_serial_sequence(
    Post.__table__.name, Post.id.name)))).select_from(
    func.generate_series(1, bindparam("new_posts", type_=Integer))).scalar_subquery(), Text)
#: SQLite: the posts' top id (a batch holds the write lock from its BEGIN IMMEDIATE: the
#: next ids are its own, as SQLite itself would give them)
_TOP_ID = select(func.max(Post.id)).scalar_subquery()
#: the live rounds (:data:`_LIVE_ROUNDS`), each row with its encounter's combatants as
#: stored (:data:`_COMBATANTS`' columns) and the hints (:data:`_HINTS`), as JSON texts,
#: and the new posts' ids (PostgreSQL) or the posts' top id (SQLite)
_LIVE_WITH_ROSTERS = {d: _LIVE_ROUNDS.add_columns(
    select(_json_rows(d, *_COMBATANTS.selected_columns))
    .where(Combatant.encounter_id == Encounter.id).scalar_subquery(),
    select(_json_rows(d, *_H.c)).scalar_subquery(),
    _NEW_IDS if d == "postgresql" else _TOP_ID) for d in ("postgresql", "sqlite")}


class LiveRounds(NamedTuple):
    """What :func:`live_rounds_with_rosters` read: (encounter, round or None, top roll
    index) rows as :func:`live_rounds` gives them, each live encounter's combatants as
    :func:`combatants_as_stored` gives them, and the hints (None: no live encounter)."""

    rows: list[tuple[Encounter, Round | None, int | None]]
    rosters: dict[int, list[tuple[object, ...]]]
    hints: Hints | None
    post_ids: list[int] | None = None   # the new posts' ids taken (None: none asked for)


def live_rounds_with_rosters(session: Session, thread_id: int, campaign_id: int,
                             since: datetime | None = None, new_posts: int = 0) -> LiveRounds:
    """:func:`live_rounds`, :func:`combatants_as_stored` of each live encounter and
    :func:`batch_hints`, in one statement (the rosters and the hints as JSON texts,
    decoded once); with a live encounter, *new_posts* ids for the batch's new posts,
    taken from the posts' sequence on PostgreSQL, the next after the top one on SQLite
    (the posts are then written with the batch's other rows: on PostgreSQL in one
    statement, on SQLite without reading their ids back). Why (SCALE-6): a batch asks the
    three before its first post is read, and on PostgreSQL a statement costs its round
    trip (some 250 us of CPU here) more than its rows."""
    dialect = session.get_bind().dialect.name
    statement = _LIVE_WITH_ROSTERS.get(dialect)
    if statement is None:   # another database: the three reads
        rows = live_rounds(session, thread_id, since)
        return LiveRounds(rows, {e.id: combatants_as_stored(session, e.id) for e, _, _ in rows},
                          batch_hints(session.connection(), campaign_id, thread_id))
    out = LiveRounds([], {}, None)
    for enc, rnd, top, roster, hints, ids in session.execute(
            statement, {"thread": thread_id, "since": since, "campaign": campaign_id,
                        "new_posts": new_posts}):
        out.rows.append((enc, rnd, top))
        if enc.id not in out.rosters:
            out.rosters[enc.id] = sorted(map(_stored_combatant, json_text.loads(roster or "[]")),
                                         key=_first)
        if out.hints is None:
            out = out._replace(hints=_hints_of(json_text.loads(hints or "[]")),
                               post_ids=_taken(dialect, ids, new_posts))
    return out


def _taken(dialect: str, ids: Any, new_posts: int) -> list[int] | None:
    """The ids the live read took: PostgreSQL's as JSON, or the *new_posts* after
    SQLite's top id (None: none asked for)."""
    if not new_posts:
        return None
    if dialect == "postgresql":
        return json_text.loads(ids) if ids else None
    top = int(ids or 0)
    return list(range(top + 1, top + 1 + new_posts))


def _stored_combatant(row: list[Any]) -> tuple[object, ...]:
    """A combatant's row from JSON, typed as the columns give it (JSON has one number
    type and SQLite's booleans are 0 and 1)."""
    cid, key, name, side, player, hp, max_hp, initiative, down, sheet, conditions = row
    return (cid, key, name, side, player, hp, max_hp,
            None if initiative is None else float(initiative),
            None if down is None else bool(down), sheet, conditions)


def _first(row: tuple[object, ...]) -> object:
    return row[0]


class KnownPost(NamedTuple):
    """A stored post as a batch first reads it: what tells whether a record changes it
    (SCALE-6: an ORM object per post seen again cost more than the query; only the posts
    a batch changes are loaded as :class:`~pbp.store.models.Post`)."""

    id: int
    platform_id: str
    content_hash: str | None
    deleted_at: datetime | None
    posted_at: datetime


def known_posts(session: Session, thread_id: int, platform_ids: Iterable[str]) -> dict[str, KnownPost]:
    """The thread's stored posts among *platform_ids*, by platform id (one query per 500),
    read on the connection (Core) once the session's own changes are flushed."""
    ids = sorted(set(platform_ids))
    known: dict[str, KnownPost] = {}
    session.flush()
    connection = session.connection()
    for start in range(0, len(ids), CHUNK):
        known.update((r.platform_id, KnownPost(*r)) for r in connection.execute(
            _KNOWN, {"thread": thread_id, "ids": ids[start:start + CHUNK]}))
    return known


def _stored_as_json(dialect: str) -> Any:
    """The thread's stored posts among the ``ids`` as one JSON text (an array of
    :class:`KnownPost` arrays, null for none), a scalar subquery of the thread's row."""
    return (select(_json_rows(dialect, Post.id, Post.platform_id, Post.content_hash,
                              Post.deleted_at, Post.posted_at))
            .where(Post.thread_id == Thread.id,
                   Post.platform_id.in_(bindparam("ids", expanding=True)))
            .scalar_subquery())


#: the thread with its campaign and its stored posts among a batch's (each dialect's JSON)
_THREAD_AND_KNOWN = {d: select(Thread, _stored_as_json(d)).options(joinedload(Thread.campaign))
                     .where(Thread.id == bindparam("thread")) for d in ("postgresql", "sqlite")}


def thread_and_known(session: Session, thread_id: int, platform_ids: Iterable[str]
                     ) -> tuple[Thread | None, dict[str, KnownPost]]:
    """(the thread with its campaign, :func:`known_posts`) in one statement. Why (SCALE-6):
    an ingest batch asks both first, and on PostgreSQL a statement costs its round trip
    (some 250 us of CPU here) more than its rows; the posts come as one JSON text, read
    at once. More ids than a chunk: two statements, as before."""
    ids = sorted(set(platform_ids))
    dialect = session.get_bind().dialect.name
    if len(ids) > CHUNK or dialect not in _THREAD_AND_KNOWN:
        thread = session.get(Thread, thread_id, options=[joinedload(Thread.campaign)])
        return thread, known_posts(session, thread_id, ids) if thread is not None else {}
    row = session.execute(_THREAD_AND_KNOWN[dialect], {"thread": thread_id, "ids": ids}).first()
    if row is None:
        return None, {}
    known = {}
    for pid, platform_id, content_hash, deleted_at, posted_at in json_text.loads(row[1] or "[]"):
        known[platform_id] = KnownPost(pid, platform_id, content_hash, _when(deleted_at),
                                       _when(posted_at))   # type: ignore[arg-type]
    return row[0], known


def _when(text: str | None) -> datetime | None:
    """A stored naive UTC time, as JSON gives it, as the aware time the column gives."""
    return None if text is None else datetime.fromisoformat(text).replace(tzinfo=UTC)


def posts_by_id(session: Session, post_ids: Iterable[int]) -> dict[int, Post]:
    """The posts of *post_ids* as ORM objects (one query per 500)."""
    ids = sorted(set(post_ids))
    out: dict[int, Post] = {}
    for start in range(0, len(ids), CHUNK):
        out.update((p.id, p) for p in session.scalars(_POSTS, {"ids": ids[start:start + CHUNK]}))
    return out


def posts_with_rolls(session: Session, post_ids: Iterable[int]) -> set[int]:
    """Which of *post_ids* have a roll (an edit or deletion after one is flagged)."""
    ids = sorted(set(post_ids))
    found: set[int] = set()
    for start in range(0, len(ids), CHUNK):
        found.update(session.scalars(_ROLLED, {"ids": ids[start:start + CHUNK]}))
    return found


def combatants_as_stored(session: Session, encounter_id: int) -> list[tuple[object, ...]]:
    """The encounter's combatants by id, each (id, key, name, side, player, hp, max_hp,
    initiative, down, sheet JSON text, conditions JSON text)."""
    # on the connection (Core): no entity in the statement, nothing for the ORM to do, and
    # no table an ingest batch writes before it reads the roster
    # all the rows at once (iterating a result fetches them one by one: SCALE-6)
    return list(map(tuple, session.connection().execute(
        _COMBATANTS, {"encounter": encounter_id}).all()))


def live_rounds(session: Session, thread_id: int, since: datetime | None = None
                ) -> list[tuple[Encounter, Round | None, int | None]]:
    """The thread's encounters not finished, latest started first (the order
    :func:`pbp.rounds.declare.live_encounter` picks from), each with its rounds not
    cancelled, latest first (the order :func:`pbp.rounds.declare.round_at` picks from), and
    each round's top roll index (None: no roll yet): (encounter, round or None, top) rows,
    one statement (SCALE-6: three before). *since*: the earliest moment asked about; rounds
    before the one open at *since* cannot be the answer and are not read (a long fight's
    every round was read for every batch)."""
    return [(e, r, top) for e, r, top in session.execute(_LIVE_ROUNDS, {"thread": thread_id,
                                                                         "since": since})]
