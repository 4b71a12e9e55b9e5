"""SCALE-6: the bulk insert of an ingest batch (:func:`pbp.rounds.bulk.insert_rows`) stores
exactly the values it is given, on SQLite (multi-row VALUES) and on PostgreSQL (one JSON
document a table, pbp.rounds.bulk_pg, or one array a column, unnested, sent in binary): the
values below are the ones a text array or a JSON document must quote or escape, and the
ids it returns name the rows it wrote."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine, select

from pbp.rounds.bulk import insert_rows
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world

TRICKY = ['a "quoted", {braced} \\ back\\slash', "", "NULL", "ünïcødé, кириллица", " lead",
          "line\nbreak\ttab\x1f\u2028 🎲 /slash"]


def roll(rid: int, index: int) -> dict[str, object]:
    text = TRICKY[index % len(TRICKY)]
    return {"round_id": rid, "roll_index": 1000 + index, "kind": "tag", "written": text,
            "expression": "1d20", "total": index - 3, "faces": [{"k": text, "n": None}, index],
            "breakdown": text, "markdown": text, "hidden": index % 2 == 0,
            "created_at": at(1, index), "label": None if index % 3 else text}


def test_scale_6_a_bulk_insert_stores_what_it_is_given_and_returns_its_ids(engine: Engine) -> None:
    """A batch of 1, of 30 and of 200 rows (200 is three pages on SQLite, at 999 bound
    values a statement and a dozen columns a row): each row read back by the id returned for its
    (round, index) holds the values given (quotes, braces, backslashes, the word NULL,
    non-Latin text, None in a nullable column, JSON with None inside, negative totals)."""
    w = make_world(engine)
    rid = w.open(at(0))
    for indexes in ([0], list(range(1, 31)), list(range(31, 231))):
        rows = [roll(rid, i) for i in indexes]
        with session_scope(engine) as s:
            made = insert_rows(s, m.RollRecord, rows, ("id", "round_id", "roll_index"))
        assert sorted((r, ix) for _, r, ix in made) == [(rid, 1000 + i) for i in indexes]
        with session_scope(engine) as s:
            for id_, _, ix in made:
                got = s.execute(select(m.RollRecord).where(m.RollRecord.id == id_)).scalar_one()
                want = roll(rid, ix - 1000)
                assert {k: getattr(got, k) for k in want} == want


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)   # SQLite has no arrays
def test_scale_6_postgresql_arrays_go_in_binary(engine: Engine, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    """On PostgreSQL the unnested columns go as binary arrays: psycopg's text array dumper
    (which quotes and escapes every value, JSON above all) is not asked for any column
    holding a value. It was, unnoticed, when the array type was an ARRAY subclass: the
    dialect swapped in its own ARRAY, whose processor returned a plain list."""
    assert engine.dialect.name == "postgresql"
    from psycopg.types import array

    texts: list[list[object]] = []
    real = array.ListDumper.dump

    def dump(self: array.ListDumper, obj: list[object]) -> object:
        texts.append(obj)
        return real(self, obj)

    monkeypatch.setattr(array.ListDumper, "dump", dump)
    w = make_world(engine)
    rid = w.open(at(0))
    rows = [roll(rid, i) for i in range(1, 31)]
    with session_scope(engine) as s:
        made = insert_rows(s, m.RollRecord, rows, ("id", "round_id", "roll_index"))
    assert len(made) == 30
    assert [t for t in texts if any(v is not None for v in t)] == []


def _stored(engine: Engine, table: str) -> list[dict[str, object]]:
    """The rows as the database holds them (raw text of JSON and datetimes, no ORM), in
    the order written, without the id and the timestamps taken at insert time."""
    with engine.connect() as c:
        got = c.exec_driver_sql(f"SELECT * FROM {table} ORDER BY id").mappings().all()
    return [{k: v for k, v in r.items() if k != "id"} for r in got]


def test_scale_6_rows_written_past_sqlalchemy_match_its_own_insert(engine: Engine) -> None:
    """Rows nobody reads back go to the driver's executemany on SQLite (built from the
    column types' own processors and the model's Python-side defaults). Stored, each is
    the same as the row ``table.insert()`` writes from the same values: JSON with quotes
    and non-Latin text, a datetime, a None, and the columns left out (their defaults: the
    empty lists, ``source`` 'post', the False flags, the timestamps set)."""
    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        combatant_ids = list(s.scalars(select(m.Combatant.id).order_by(m.Combatant.id)))[:3]
    full = {"round_id": rid, "post_id": None, "source": "narrator",
            "actions": [{"kind": "attack", "text": TRICKY[0]}], "errors": [{"m": TRICKY[3]}],
            "speech": ["«Morra!»", TRICKY[0]], "speech_count": 2, "lang": "pt",
            "late": True, "notes": [{"code": "late"}], "created_at": at(1, 4),
            "updated_at": at(1, 5)}
    sparse = {"round_id": rid, "post_id": None, "lang": None, "created_at": at(1, 4),
              "updated_at": at(1, 5)}
    rows = [{**full, "combatant_id": combatant_ids[0]},
            {**sparse, "combatant_id": combatant_ids[1]},
            {**full, "combatant_id": combatant_ids[2], "errors": None, "tables": TRICKY[5],
             "speech": [None, 1.5, -2, True]}]   # JSON null, a top-level string, scalars
    with session_scope(engine) as s:
        insert_rows(s, m.Declaration, rows)   # the driver's executemany on SQLite
    ours = _stored(engine, "declarations")
    with session_scope(engine) as s:
        s.execute(m.Declaration.__table__.delete())
        for row in rows:   # SQLAlchemy's own insert, one row at a time
            s.execute(m.Declaration.__table__.insert(), [row])
    assert ours == _stored(engine, "declarations")
    assert len(ours) == 3
    left_out = ours[1]   # what the defaults are, read from the model
    assert (left_out["source"], left_out["speech_count"], bool(left_out["late"]),
            bool(left_out["deleted"])) == ("post", 0, False, False)
    assert all(left_out[k] in ("[]", []) for k in ("actions", "errors", "speech", "notes"))
    with session_scope(engine) as s:   # and the ORM reads both back as written
        got = s.scalars(select(m.Declaration).order_by(m.Declaration.id)).all()
        assert [g.actions for g in got] == [full["actions"], [], full["actions"]]
        assert (got[2].errors, got[2].tables, got[2].speech) == (None, TRICKY[5],
                                                                 [None, 1.5, -2, True])
        assert got[0].speech == full["speech"] and got[0].updated_at == at(1, 5)


def _as_text(engine: Engine, sql: str) -> list[str]:
    """Each row as PostgreSQL writes a row value out: a JSON ``null`` reads ``null``, an SQL
    NULL reads nothing, a timestamp to the microsecond, text quoted and escaped."""
    with engine.connect() as c:
        return [r[0] for r in c.exec_driver_sql(sql)]


_POSTS_AS_TEXT = (
    "SELECT ROW(p.thread_id, p.platform_id, p.author, p.posted_at, p.body, p.text, p.fmt, "
    "p.content_hash, p.url, p.revisions_seen, p.edited_at, p.deleted_at, p.first_seen_at, "
    "p.last_seen_at, p.round_id, p.is_ours)::text FROM posts p ORDER BY p.platform_id",
    "SELECT ROW(p.platform_id, r.number, r.content_hash, r.body, r.text, r.change, r.edited_at, "
    "r.seen_at, r.after_roll)::text FROM post_revisions r JOIN posts p ON p.id = r.post_id "
    "ORDER BY p.platform_id, r.number")
_ROLLED_AS_TEXT = (
    "SELECT ROW(r.round_id, r.roll_index, r.post_id, r.tag_index, r.position, r.kind, r.actor, "
    "r.label, r.written, r.expression, r.total, r.\"natural\", r.faces, r.breakdown, r.markdown, "
    "r.hidden, r.seal, r.created_at)::text FROM rolls r WHERE r.roll_index >= 1000 "
    "ORDER BY r.round_id, r.roll_index",
    "SELECT ROW(r.round_id, r.roll_index, rp.platform_id, rp.author, rp.revision)::text "
    "FROM roll_posts rp JOIN rolls r ON r.id = rp.roll_id ORDER BY r.roll_index",
    "SELECT ROW(d.round_id, d.combatant_id, d.post_id, d.source, d.actions, d.errors, d.speech, "
    "d.speech_count, d.speech_limit, d.lang, d.quoted_rolls, d.tables, d.late, "
    "d.edited_after_roll, d.deleted, d.superseded, d.notes, d.created_at, d.updated_at)::text "
    "FROM declarations d WHERE d.updated_at = '2026-11-30 13:05:00' ORDER BY d.combatant_id")


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)   # its own statements
def test_scale_6_postgresql_one_statement_writes_what_sqlalchemy_writes(engine: Engine) -> None:
    """SCALE-6 on PostgreSQL: the batch's posts with their revisions, then its rolls with the
    posts they were rolled for and its declarations, each in one statement (one JSON
    document a table, pbp.rounds.bulk_pg). Stored, every row is the row SQLAlchemy's own
    ``table.insert()`` writes from the same values, read back as PostgreSQL's text of the
    row: quotes, braces, backslashes, the word NULL, non-Latin text, microseconds, a JSON
    column given None (JSON ``null``, not SQL NULL), None inside JSON, a None text
    column, the columns left out (their Python-side defaults, those taken at insert time
    aside: given here); each revision names its own
    post and each roll post its own roll."""
    from sqlalchemy import text

    from pbp.rounds import bulk_pg

    w = make_world(engine)
    rid = w.open(at(0))
    assert at(1, 5).isoformat() == "2026-11-30T13:05:00+00:00"   # the queries' filter
    with session_scope(engine) as s:
        combatant_ids = list(s.scalars(select(m.Combatant.id).order_by(m.Combatant.id)))[:3]
    posts = [{"thread_id": w.thread_id, "platform_id": f"p{i}-{TRICKY[i]}", "author": TRICKY[i],
              "posted_at": at(1, i) + timedelta(microseconds=1234 * i), "body": TRICKY[i - 1], "text": TRICKY[i],
              "content_hash": f"h{i}", "url": None if i % 2 else TRICKY[0], "edited_at": None,
              "round_id": rid, "first_seen_at": at(2), "last_seen_at": at(2, 1)} for i in range(len(TRICKY))]
    revisions = [(p["platform_id"], {"number": 1, "content_hash": p["content_hash"],
                                     "body": p["body"], "text": p["text"], "edited_at": None,
                                     "seen_at": at(2)})
                 for p in posts]
    rolls = [{**roll(rid, i), "faces": None if i == 2 else roll(rid, i)["faces"]} for i in range(4)]
    roll_posts = [(rid, 1000 + i, {"platform_id": TRICKY[i], "author": TRICKY[i - 1]})
                  for i in range(3)]   # the fourth roll is no post's
    decls = [{"round_id": rid, "combatant_id": cid, "post_id": None, "source": "narrator",
              "actions": [{"kind": "attack", "text": TRICKY[i], "rolled": None}],
              "errors": None if i == 1 else [{"m": TRICKY[3]}], "speech": [TRICKY[i]],
              "lang": None if i else "pt", "created_at": at(1, 4) + timedelta(microseconds=99),
              "updated_at": at(1, 5)} for i, cid in enumerate(combatant_ids)]

    with session_scope(engine) as s:
        made = bulk_pg.insert_posts(s.connection(), posts, revisions)
        assert made is not None and sorted(pid for _, pid in made) == sorted(
            p["platform_id"] for p in posts)
        assert bulk_pg.insert_rolled(s.connection(), rolls, roll_posts, decls) is True
    ours = [_as_text(engine, q) for q in _POSTS_AS_TEXT + _ROLLED_AS_TEXT]

    with session_scope(engine) as s:   # again, through SQLAlchemy's own inserts
        for table, ours_only in (("roll_posts", ""), ("rolls", " WHERE roll_index >= 1000"),
                                 ("declarations", " WHERE updated_at = '2026-11-30 13:05:00'"),
                                 ("post_revisions", ""), ("posts", "")):
            s.execute(text(f"DELETE FROM {table}{ours_only}"))
        ids = dict((pid, i) for i, pid in s.execute(
            m.Post.__table__.insert().returning(m.Post.id, m.Post.platform_id), posts))
        for pid, rev in revisions:
            s.execute(m.PostRevision.__table__.insert(), [{**rev, "post_id": ids[pid]}])
        roll_ids = dict(((rd, ix), i) for i, rd, ix in s.execute(
            m.RollRecord.__table__.insert().returning(
                m.RollRecord.id, m.RollRecord.round_id, m.RollRecord.roll_index), rolls))
        for rd, ix, rp in roll_posts:
            s.execute(m.RollPost.__table__.insert(), [{**rp, "roll_id": roll_ids[(rd, ix)]}])
        for d in decls:
            s.execute(m.Declaration.__table__.insert(), [d])
    theirs = [_as_text(engine, q) for q in _POSTS_AS_TEXT + _ROLLED_AS_TEXT]
    assert ours == theirs
    assert [len(t) for t in ours] == [len(TRICKY), len(TRICKY), 4, 3, 3]
    assert ",null," in ours[2][2] and any(",,"in r for r in ours[4])   # JSON null; SQL NULL


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_scale_6_postgresql_a_value_too_long_still_fails(engine: Engine) -> None:
    """SCALE-6: a text column is never cast to its sized type on the way in (that would cut
    the value): a 121-character author in a 120-character column fails the statement, as
    it did, and nothing of it is stored."""
    from sqlalchemy.exc import DataError

    from pbp.rounds import bulk_pg

    w = make_world(engine)
    w.open(at(0))
    post = {"thread_id": w.thread_id, "platform_id": "long", "author": "x" * 121,
            "posted_at": at(1), "body": "b", "text": "b", "content_hash": "h", "url": None}
    with pytest.raises(DataError), session_scope(engine) as s:
        bulk_pg.insert_posts(s.connection(), [post], [("long", {"number": 1, "content_hash": "h",
                                                               "body": "b", "text": "b"})])
    with engine.connect() as c:
        assert c.exec_driver_sql("SELECT count(*) FROM posts").scalar() == 0


def test_scale_6_a_text_holding_a_nul_is_stored_whole(engine: Engine) -> None:
    """A NUL character (a hostile post can hold one): SQLite stores the text whole; on
    PostgreSQL, whose text never holds a NUL, the statement fails, and nothing is stored."""
    w = make_world(engine)
    rid = w.open(at(0))
    row = {**roll(rid, 1), "label": "before\x00after", "written": "x\x00"}
    if engine.dialect.name == "postgresql":
        from sqlalchemy.exc import DataError

        with pytest.raises(DataError), session_scope(engine) as s:
            insert_rows(s, m.RollRecord, [row], ("id", "round_id", "roll_index"))
        return
    with session_scope(engine) as s:
        made = insert_rows(s, m.RollRecord, [row], ("id", "round_id", "roll_index"))
    with session_scope(engine) as s:
        got = s.get(m.RollRecord, made[0][0])
        assert got is not None and (got.label, got.written) == ("before\x00after", "x\x00")


def test_scale_6_the_row_function_written_for_a_plan_is_the_plan_read_column_by_column() -> None:
    """SCALE-6: the function written out for an insert's plan gives each row the tuple
    the plan read column by column gives (its defaults filled in, its processors applied)
    for rows holding every column, a few, or none of the optional ones."""
    from sqlalchemy.dialects import sqlite

    from pbp.rounds.bulk import _plain_insert, _values

    dialect = sqlite.dialect()
    full = {"round_id": 1, "combatant_id": 2, "post_id": None, "source": "narrator",
            "actions": [{"kind": "attack", "text": TRICKY[0]}], "errors": [], "speech": [TRICKY[5]],
            "speech_count": 1, "lang": "pt", "late": True, "notes": [{"code": "late"}],
            "created_at": at(1, 4), "updated_at": at(1, 5)}
    sparse = {"round_id": 1, "combatant_id": 3, "created_at": at(1, 4), "updated_at": at(1, 5)}
    for row in (full, sparse):
        made = _plain_insert(m.Declaration.__table__, frozenset(row), dialect)
        assert made is not None
        _sql, plan, function = made
        assert function(row) == _values(plan, row)
        assert len(function(row)) == len(plan) >= len(row)


def test_scale_6_a_datetime_is_written_as_the_dialects_own_processing_writes_it() -> None:
    """SCALE-6: the quick text of a datetime (an aware UTC one taken as it is) is the text
    SQLAlchemy's own processing of the column makes on SQLite, and the naive UTC that
    :class:`UTCDateTime` makes for PostgreSQL: UTC with and without microseconds, a year
    before 1000, a zone with summer time, a fixed offset; a naive datetime is refused."""
    from datetime import UTC, datetime, timezone
    from zoneinfo import ZoneInfo

    from sqlalchemy.dialects import sqlite

    from pbp.rounds.bulk_pg import _naive_utc
    from pbp.rounds.bulk_sqlite import quicker as _quicker
    from pbp.store.types import UTCDateTime

    dialect = sqlite.dialect()
    column = m.Post.__table__.c.posted_at
    own = column.type.dialect_impl(dialect).bind_processor(dialect)
    quick = _quicker(column.type, own, dialect)
    assert quick is not own
    for value in (datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
                  datetime(999, 1, 2, tzinfo=UTC),
                  datetime(2026, 6, 1, 12, tzinfo=ZoneInfo("Europe/Lisbon")),
                  datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=-3))), None):
        naive = UTCDateTime().process_bind_param(value, dialect)
        for _ in range(2):   # the second time, the same object: the text kept (SCALE-6)
            assert quick(value) == own(value)
            assert _naive_utc(value) == (None if naive is None else naive.isoformat())
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    for one, other in ((now, now + timedelta(seconds=1)), (now, None), (None, now)):
        quick(one), _naive_utc(one)   # the kept text is one's: another time is not given it
        assert quick(other) == own(other)
        assert _naive_utc(other) == (None if other is None else other.replace(tzinfo=None).isoformat())
    with pytest.raises(ValueError):
        quick(datetime(2026, 1, 2))
    with pytest.raises(ValueError):
        _naive_utc(datetime(2026, 1, 2))


def test_scale_6_a_json_or_boolean_value_is_written_as_the_columns_own_processing_writes_it(
        ) -> None:
    """SCALE-6: the quick processors of a JSON column (an empty list, a list or dict
    straight to the engine's serializer) and a boolean column give SQLite exactly what
    the column's own processing gives, for every kind of value a row may hold; a value
    the column refuses is refused the same way."""
    from pbp.rounds.bulk_sqlite import quicker
    from pbp.store.db import make_engine

    dialect = make_engine("sqlite://").dialect   # the service's serializer (orjson)
    for column, values in (
            (m.Declaration.__table__.c.notes, ([], [{"code": "late"}], {}, {"a": [1, "é", None]},
                                                None, "text", 5, 2.5, True, [[]], ({"x": 1},))),
            (m.Post.__table__.c.is_ours, (True, False, None, 1, 0))):
        own = column.type.dialect_impl(dialect).bind_processor(dialect)
        quick = quicker(column.type, own, dialect)
        assert quick is not own, column
        for value in values:
            assert quick(value) == own(value), (column, value)
            assert type(quick(value)) is type(own(value)), (column, value)
    with pytest.raises(TypeError):
        own("yes")
    with pytest.raises(TypeError):
        quick("yes")
