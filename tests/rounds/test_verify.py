"""``pbp verify``: an untouched round passes; a stored roll changed behind the service's
back fails, naming the roll; a thrown-away roll shows as a gap; overrides are listed."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from pbp.cli import cli
from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import ImmutableRoll, session_scope

from .world import at, make_world, post


def drop_roll_trigger(conn) -> None:  # type: ignore[no-untyped-def]
    on = " ON rolls" if conn.dialect.name == "postgresql" else ""
    conn.execute(text(f"DROP TRIGGER rolls_immutable{on}"))


def _resolved(engine):  # type: ignore[no-untyped-def]
    w = make_world(engine)
    w.ingest([post("p0", "bob", at(0, 5), ".ri+2")], now=at(0, 5))
    rid = w.open(at(0, 10))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]"),
              post("p2", "GM", at(2), "Goblin Rot: attacks Bram with the dagger")], now=at(2))
    w.resolve(rid, at(25))
    return w, rid


def test_verify_passes_on_an_untouched_round(engine, db_url):
    _w, rid = _resolved(engine)
    with session_scope(engine) as s:
        report = service.verify_round(s, rid)
        kinds = {r.kind for r in s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rid))}
    assert report.ok, report.lines()
    assert report.rolls >= 5 and kinds == {"initiative", "tag", "engine"}
    result = CliRunner().invoke(cli, ["verify", "--db", db_url, "--round", str(rid)])
    assert result.exit_code == 0, result.output
    assert "all match the seed" in result.output
    every = CliRunner().invoke(cli, ["verify", "--db", db_url, "--encounter", str(_w.encounter_id)])
    assert every.exit_code == 0 and f"round 1 (id {rid})" in every.output


def test_verify_fails_naming_the_roll_when_a_stored_roll_is_altered(engine, db_url):
    _w, rid = _resolved(engine)
    with session_scope(engine) as s:
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "tag"))
        index = roll.roll_index
        roll.total = roll.total + 3
        with pytest.raises(ImmutableRoll):   # the ORM refuses ...
            s.flush()
        s.rollback()
    with engine.begin() as conn:             # ... the database too, so the operator drops
        drop_roll_trigger(conn)              # its trigger and goes around both
        conn.execute(text("UPDATE rolls SET total = total + 3 WHERE round_id = :r AND roll_index = :i"),
                     {"r": rid, "i": index})
    with session_scope(engine) as s:
        report = service.verify_round(s, rid)
    assert not report.ok
    assert any(p.startswith(f"roll #{index} (aria, tag 0 of post") for p in report.problems)
    result = CliRunner().invoke(cli, ["verify", "--db", db_url, "--round", str(rid)])
    assert result.exit_code == 1
    assert f"FAIL roll #{index} (aria" in result.output


def test_verify_reports_a_thrown_away_roll_and_a_wrong_seed(engine):
    _w, rid = _resolved(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM rolls WHERE round_id = :r AND roll_index = 1"), {"r": rid})
        conn.execute(text("UPDATE rounds SET seed = 'another' WHERE id = :r"), {"r": rid})
    with session_scope(engine) as s:
        problems = service.verify_round(s, rid).problems
    assert any("roll #1 missing" in p for p in problems)
    assert any("commitment published was" in p for p in problems)


def test_verify_checks_the_text_as_published(engine, tmp_path, db_url):
    w, rid = _resolved(engine)
    body = w.reply(f"{rid}:resolution").body + w.reply(f"{rid}:opening").body
    published = tmp_path / "thread.txt"
    published.write_text(body, encoding="utf-8")
    ok = CliRunner().invoke(cli, ["verify", "--db", db_url, "--round", str(rid),
                                  "--published", str(published)])
    assert ok.exit_code == 0, ok.output
    with session_scope(engine) as s:
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "tag"))
    published.write_text(body.replace(roll.breakdown, "1d20 (20) + 5 = 25"), encoding="utf-8")
    bad = CliRunner().invoke(cli, ["verify", "--db", db_url, "--round", str(rid),
                                   "--published", str(published)])
    assert bad.exit_code == 1 and "is not in the published replies" in bad.output


def test_a_narrator_roll_override_is_explicit_marked_and_listed(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]")],
             now=at(1))
    with session_scope(engine) as s:
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "tag"))
        s.add(m.Override(encounter_id=w.encounter_id, round_id=rid, kind="roll",
                         target=str(roll.roll_index), reason="the tag was a typo",
                         payload={"roll_index": roll.roll_index, "after": 2, "rolled": roll.total,
                                  "actor": "aria"}))
        index = roll.roll_index
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "-> 2 (the narrator set this roll)" in body   # DICE-5: marked next to the roll
    assert "the tag was a typo" not in body    # issue 11 item 7: the reason is private
    with session_scope(engine) as s:
        report = service.verify_round(s, rid)
    assert report.ok, report.lines()                       # the roll itself is untouched
    assert report.overrides and f"roll #{index} set to 2" in report.overrides[0]
