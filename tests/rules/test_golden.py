"""Golden scenarios: examples/<id>.yaml run with their forced dice must reproduce
examples/<id>.events.json exactly (like perft counts for a chess engine). After an
intended rules change, regenerate with ``pbp bench examples/<id>.yaml --json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbp.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("rid", ["forum-d20", "beyonders", "dnd5e", "resistance", "two-action"])
def test_golden_scenario_reproduces_its_events(rid: str) -> None:
    result = CliRunner().invoke(cli, ["bench", str(EXAMPLES / f"{rid}.yaml"), "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    want = json.loads((EXAMPLES / f"{rid}.events.json").read_text(encoding="utf-8"))
    for n, (g, w) in enumerate(zip(got["rounds"], want["rounds"], strict=True)):
        assert [e["message"] for e in g["events"]] == [e["message"] for e in w["events"]], n
    assert got == want


@pytest.mark.parametrize("rid, rules", [
    ("forum-d20", {"FD-1", "FD-2", "FD-3", "FD-4", "FD-5", "FD-7", "FD-8", "FD-9", "FD-10",
                   "FD-11", "FD-14", "FD-15", "FD-16", "FD-19"}),
    ("beyonders", {"BEY-1", "BEY-2", "BEY-4", "BEY-6", "BEY-7", "BEY-8", "BEY-9", "BEY-13",
                   "BEY-14", "BEY-15", "BEY-17", "PBP-2"}),
    ("dnd5e", {"DND-2", "DND-3", "DND-4", "DND-5", "DND-6", "DND-7", "PBP-2"}),
    ("resistance", {"RES-3", "RES-4", "RES-5", "RES-6", "RES-7", "RES-8", "RES-9"}),
    ("two-action", {"TA-1", "TA-2", "TA-3", "TA-4", "TA-5", "TA-6", "PBP-2"}),
])
def test_golden_scenarios_exercise_their_signature_rules(rid: str, rules: set[str]) -> None:
    want = json.loads((EXAMPLES / f"{rid}.events.json").read_text(encoding="utf-8"))
    events = [e for r in want["rounds"] for e in r["events"]]
    cited = {e["rule"] for e in events if e["rule"]}
    cited |= {m["rule"] for e in events for m in e["params"].get("mods", []) if m["rule"]}
    assert rules <= cited, rules - cited


def test_text_output_in_three_languages() -> None:
    runner = CliRunner()
    for lang, words in (("en", ["Round 1", "Thug is now flat-footed", "is forfeited"]),
                        ("pt", ["Rodada 1", "Thug agora está desprevenido",
                                "ação perdida: o post chegou depois do prazo"]),
                        ("ru", ["Раунд 1", "«застигнут врасплох»", "действие потеряно"])):
        result = runner.invoke(cli, ["bench", str(EXAMPLES / "forum-d20.yaml"), "--lang", lang])
        assert result.exit_code == 0
        for word in words:
            assert word in result.stdout, (lang, word)


def test_seed_and_dice_options_change_the_fight_deterministically() -> None:
    runner = CliRunner()
    path = str(EXAMPLES / "beyonders.yaml")
    a = runner.invoke(cli, ["bench", path, "--json", "--seed", "s1", "--dice", "20,1"])
    b = runner.invoke(cli, ["bench", path, "--json", "--seed", "s1", "--dice", "20,1"])
    c = runner.invoke(cli, ["bench", path, "--json", "--seed", "s2", "--dice", "20,1"])
    assert a.exit_code == 0 and a.stdout == b.stdout != c.stdout
    first = json.loads(a.stdout)["rounds"][0]["events"]
    rolled = [e for e in first if e["code"] == "initiative.rolled"]
    assert rolled[0]["rolls"][0]["faces"] == [20] and rolled[1]["rolls"][0]["faces"] == [1]
