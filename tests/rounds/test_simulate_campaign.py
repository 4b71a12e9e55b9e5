"""Issue 15's two-week simulated campaign (simulation; STALL-1, STALL-2, STALL-4, STALL-5,
STALL-8, PBP-2/FD-2): examples/campaign-two-weeks.yaml played against the real beat sweep
with a virtual clock, no narrator action at all. Expected values come from the script (who
posts when, the `.away` date, the `.default` order, the `.extend 6h`) and the rules text,
not from a run's output."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text

from pbp.cli import cli
from pbp.rounds.simulate import Simulation, load_thread, simulate
from tests.conftest import POSTGRES_URL, require_port

CAMPAIGN = Path(__file__).parents[2] / "examples" / "campaign-two-weeks.yaml"
START = datetime(2026, 11, 30, 12, tzinfo=UTC)
AWAY_UNTIL = datetime(2026, 12, 6, tzinfo=UTC)   # ".away until 2026-12-06", zone UTC: 00:00
AWAY_POSTED = START + timedelta(hours=20, minutes=10)


def _audit(sim: Simulation, action: str, who: str | None = None) -> list[dict]:
    return [a for a in sim.audit if a["action"] == action and (who is None or a["entity_id"] == who)]


def _resolution(sim: Simulation, number: int) -> str:
    return next(r.body for r in sim.replies if r.kind == "resolution" and r.round == number)


def _check_campaign(sim: Simulation) -> None:
    # the fight ends with no narrator action, inside the two weeks, the players standing
    assert sim.status == "finished"
    up = {c["side"] for c in sim.combatants if not c["down"]}
    assert up == {"players"}
    assert all(c["down"] for c in sim.combatants if c["side"] == "monsters")
    last = sim.rounds[-1]
    assert last["resolved_at"] <= START + timedelta(days=14)
    resolved = [r for r in sim.rounds if r["resolved_at"]]
    assert len(resolved) == len(sim.rounds) >= 4

    # STALL-4: all five post in round 1 (latest at +2:40, grace 10 min): it closes early,
    # before its 24 h deadline, audited as an early resolution; later rounds wait (Dain, Edda)
    r1 = sim.rounds[0]
    assert START + timedelta(hours=2, minutes=50) <= r1["resolved_at"] < r1["deadline"]
    assert _audit(sim, "round.resolve")[0]["after"]["early"] is True
    assert not any(a["after"]["early"] for a in _audit(sim, "round.resolve")[1:])

    # STALL-5: ".extend 6h" in round 3 is within the 12 h limit: granted, deadline 30 h on
    grant = _audit(sim, "round.extension.granted")
    assert [g["round"] for g in grant] == [3]
    r3 = sim.rounds[2]
    assert r3["deadline"] - r3["opens_at"] == timedelta(hours=30)
    assert any(r.kind == "extension" and r.round == 3 for r in sim.replies)

    # STALL-1: Carol is away from round 2 until 2026-12-06; no latency penalty ever, the
    # ruleset's default (defend) stands in, said in the reply; the status block says away
    assert [a["after"]["until"] for a in _audit(sim, "absence.start", "carol")] == [
        AWAY_UNTIL.isoformat()]
    away_rounds = [r["number"] for r in resolved
                   if AWAY_POSTED < r["resolved_at"] and r["deadline"] < AWAY_UNTIL]
    assert len(away_rounds) >= 3
    for n in away_rounds:
        apply = [a for a in _audit(sim, "standing.apply", "cora") if a["round"] == n]
        assert apply and apply[0]["after"]["away"] is True and apply[0]["after"]["text"] == "defend"
        assert "Cora is away until 2026-12-06" in _resolution(sim, n)
    assert not _audit(sim, "round.latency", "cora")
    assert not [e for e in sim.events if e["actor"] == "cora" and e["code"] == "latency.penalty"]
    assert any("Away: Cora" in r.body for r in sim.replies if r.kind == "reminder")

    # STALL-2: Dain's ".default attack the Ogre" (round 1) is applied in every later round,
    # marked in the reply, never a latency penalty
    for r in resolved[1:]:
        if any(c["key"] == "dain" and c["down"] for c in sim.combatants) and r is last:
            break
        apply = [a for a in _audit(sim, "standing.apply", "dain") if a["round"] == r["number"]]
        assert apply and apply[0]["after"]["source"] == "default"
        assert apply[0]["after"]["text"] == "attack the Ogre"
        assert "standing order followed: attack the Ogre" in _resolution(sim, r["number"])
    assert not _audit(sim, "round.latency", "dain")

    # PBP-2 / FD-2: Edda posts in rounds 1-2 only, then the latency rule every round after
    latency_rounds = sorted(a["round"] for a in _audit(sim, "round.latency", "edda"))
    assert latency_rounds == [r["number"] for r in resolved if r["number"] >= 3]
    assert "Edda posted late or not at all" in _resolution(sim, 3)
    assert not _audit(sim, "round.latency", "aria") and not _audit(sim, "round.latency", "bram")

    # enemies act from their sheet's default_action, marked like a standing order
    assert _audit(sim, "standing.apply", "ogre")[0]["after"]["source"] == "sheet"
    assert "standing order followed: attack Bram" in _resolution(sim, 1)

    # STALL-3 (missed_limit 3, no automatic narrator-run): Dain's player posts only in
    # round 1 (his standing order acts after), Edda's in rounds 1-2: a miss per later round,
    # counted in a row; the narrator is told once, at the third (rounds 4 and 5); Carol is
    # away (never a miss), Aria and Bram always post
    numbers = [r["number"] for r in resolved]
    for player, first in (("dave", 2), ("erin", 3)):
        misses = [a for a in _audit(sim, "ladder.missed", player)]
        assert [a["round"] for a in misses] == [n for n in numbers if n >= first]
        assert [a["after"]["missed_in_row"] for a in misses] == list(range(1, len(misses) + 1))
        told = [a for a in sim.audit if a["action"] == "ladder.narrator"
                and a["after"]["player"] == player]
        assert [a["round"] for a in told] == [first + 2]
        assert told[0]["after"]["narrator_run"] is False
    for player in ("carol", "alice", "bob"):
        assert not _audit(sim, "ladder.missed", player)
    assert not _audit(sim, "ladder.narrator_run")

    # every automatic decision kind is in the audit log; reminders also in the replies
    kinds = {a["action"] for a in sim.audit}
    assert {"round.resolve", "round.reminder", "round.latency", "standing.apply",
            "standing.default", "absence.start", "round.extension.granted"} <= kinds
    assert len(_audit(sim, "round.reminder")) == sum(r.kind == "reminder" for r in sim.replies) > 0
    assert not [a for a in sim.audit if a["actor"] != "system"]   # no narrator action
    assert sim.verified                                           # DICE-1: seeds check


def test_simulation_two_week_campaign_stall1_stall2_stall4_stall5_stall8_sqlite():
    """simulation, STALL-1/2/4/5/8: the campaign on the in-memory database."""
    _check_campaign(simulate(load_thread(CAMPAIGN)))


def test_simulation_two_week_campaign_on_postgresql():
    """simulation on PostgreSQL: the same campaign on a fresh database, same outcome."""
    require_port("PostgreSQL", "127.0.0.1", 5432)
    name = f"pbp_sim2_{uuid.uuid4().hex[:8]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        url = POSTGRES_URL.rsplit("/", 1)[0] + "/" + name
        _check_campaign(simulate(load_thread(CAMPAIGN), db_url=url))
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_pbp_simulate_prints_a_narrators_summary():
    """simulation: the CLI prints the replies then the summary a narrator reads."""
    out = CliRunner().invoke(cli, ["simulate", str(CAMPAIGN)])
    assert out.exit_code == 0, out.output
    tail = out.output.split("===== summary =====", 1)[1]
    assert "still standing: players" in tail and "early close, STALL-4" in tail
    assert "Latency penalties: edda x" in tail and "Escalation ladder (STALL-3)" in tail
    assert "Cora (carol): r1 posted; r2 away (ruleset: defend)" in tail
    assert "verified against the revealed seeds: yes" in tail


def test_simulate_refuses_a_database_with_tables(tmp_path):
    """simulation: --db on a database that holds tables is refused, nothing dropped."""
    db = tmp_path / "x.db"
    eng = create_engine(f"sqlite:///{db}")
    with eng.begin() as c:
        c.execute(text("CREATE TABLE keep (id INTEGER)"))
    with pytest.raises(Exception, match="EMPTY database"):
        simulate(load_thread(CAMPAIGN), db_url=f"sqlite:///{db}")
    with eng.connect() as c:
        assert c.execute(text("SELECT count(*) FROM keep")).scalar() == 0
