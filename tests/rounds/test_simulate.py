"""Persistence-free round simulation over timestamped posts (``pbp simulate``, and
``pbp bench`` on a thread scenario): late posts and speech limits bench-tested."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pbp.cli import cli
from pbp.rounds.simulate import is_thread_scenario, load_thread, simulate

THREAD = Path(__file__).parent / "data" / "thread-forum-d20.yaml"


def test_simulation_reports_late_posts_speech_limits_and_edits(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sim = simulate(load_thread(THREAD))
    assert list(tmp_path.iterdir()) == []                     # nothing persisted
    by = {(d["round"], d["actor"]): d for d in sim.declarations}
    assert by[(1, "bram")]["late"] and {"code": "late"} in by[(1, "bram")]["notes"]
    aria = by[(1, "aria")]
    assert aria["speech_limit"] == 3
    assert {"code": "edited-after-roll"} in aria["notes"]
    kinds = [r.key.split(":", 1)[1] for r in sim.replies]
    assert kinds == ["opening", "reminder:2h", "resolution", "reminder:2h", "resolution"]
    assert "late post (PBP-2)" in sim.replies[2].body and sim.verified


def test_simulation_is_reproducible_and_follows_the_seed():
    a = simulate(load_thread(THREAD))
    b = simulate(load_thread(THREAD))
    c = simulate(load_thread(THREAD), seed="other")
    assert [r.body for r in a.replies] == [r.body for r in b.replies]
    assert [r.body for r in a.replies] != [r.body for r in c.replies]


def test_pbp_simulate_and_pbp_bench_on_a_thread_scenario():
    assert is_thread_scenario(THREAD)
    out = CliRunner().invoke(cli, ["simulate", str(THREAD), "--lang", "ru", "--platform", "bbcode"])
    assert out.exit_code == 0, out.output
    assert "пост с опозданием (PBP-2)" in out.output and "verified against the revealed seeds: yes" in out.output
    js = CliRunner().invoke(cli, ["simulate", str(THREAD), "--json"])
    data = json.loads(js.output)
    assert data["verified"] and data["replies"][0]["kind"] == "opening"
    bench = CliRunner().invoke(cli, ["bench", str(THREAD)])
    assert bench.exit_code == 0, bench.output
    assert "late post (PBP-2)" in bench.output
