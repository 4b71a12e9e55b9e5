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
    """A batch of 1 and of 30 rows: each row read back by the id returned for its
    (round, index) holds the values given (quotes, braces, backslashes, the word NULL,
    non-Latin text, None in a nullable column, JSON with None inside, negative totals)."""
    w = make_world(engine)
    rid = w.open(at(0))
    for indexes in ([0], list(range(1, 31))):
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
