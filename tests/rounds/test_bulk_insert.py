"""SCALE-6: the bulk insert of an ingest batch (:func:`pbp.rounds.bulk.insert_rows`) stores
exactly the values it is given, on SQLite (multi-row VALUES) and on PostgreSQL (one array a
column, unnested, sent in binary): the values below are the ones a text array would have
to quote or escape, and the ids it returns name the rows it wrote."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select

from pbp.rounds.bulk import insert_rows
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world

TRICKY = ['a "quoted", {braced} \\ back\\slash', "", "NULL", "ünïcødé, кириллица", " lead"]


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
        combatant_ids = list(s.scalars(select(m.Combatant.id).order_by(m.Combatant.id)))[:2]
    full = {"round_id": rid, "post_id": None, "source": "narrator",
            "actions": [{"kind": "attack", "text": TRICKY[0]}], "errors": [{"m": TRICKY[3]}],
            "speech": ["«Morra!»", TRICKY[0]], "speech_count": 2, "lang": "pt",
            "late": True, "notes": [{"code": "late"}], "created_at": at(1, 4),
            "updated_at": at(1, 5)}
    sparse = {"round_id": rid, "post_id": None, "lang": None, "created_at": at(1, 4),
              "updated_at": at(1, 5)}
    rows = [{**full, "combatant_id": combatant_ids[0]},
            {**sparse, "combatant_id": combatant_ids[1]}]
    with session_scope(engine) as s:
        insert_rows(s, m.Declaration, rows)   # the driver's executemany on SQLite
    ours = _stored(engine, "declarations")
    with session_scope(engine) as s:
        s.execute(m.Declaration.__table__.delete())
        for row in rows:   # SQLAlchemy's own insert, one row at a time
            s.execute(m.Declaration.__table__.insert(), [row])
    assert ours == _stored(engine, "declarations")
    assert len(ours) == 2
    left_out = ours[1]   # what the defaults are, read from the model
    assert (left_out["source"], left_out["speech_count"], bool(left_out["late"]),
            bool(left_out["deleted"])) == ("post", 0, False, False)
    assert all(left_out[k] in ("[]", []) for k in ("actions", "errors", "speech", "notes"))
    with session_scope(engine) as s:   # and the ORM reads both back as written
        got = s.scalars(select(m.Declaration).order_by(m.Declaration.id)).all()
        assert [g.actions for g in got] == [full["actions"], []]
        assert got[0].speech == full["speech"] and got[0].updated_at == at(1, 5)
