"""pbp bench on bad input: one line naming what and where, exit status 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pbp.cli import cli

GOOD = """\
ruleset: forum-d20
combatants:
  - key: a
    stats: {Luta: 3}
    weapons: [{name: sword, damage: 1d8}]
  - key: b
    side: enemies
rounds:
  - declarations:
      - actor: a
        actions:
          - {kind: attack, target: b, roll: "1d20+Luta"}
"""


def bench(tmp_path: Path, text: str, *args: str):
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return CliRunner().invoke(cli, ["bench", str(path), *args])


def test_good_scenario_runs(tmp_path: Path) -> None:
    result = bench(tmp_path, GOOD)
    assert result.exit_code == 0, result.output
    assert "Round 1" in result.stdout
    assert "post tag: 1d20 (" in result.stdout and "+ 3 =" in result.stdout  # Luta from the sheet


@pytest.mark.parametrize("text, args, words", [
    (GOOD.replace("forum-d20", "gurps"), (), ["unknown ruleset 'gurps'", "forum-d20", ":1"]),
    (GOOD.replace("Luta: 3", "Lutta: 3"), (), ["unknown stat 'Lutta'", ":4"]),
    (GOOD.replace("kind: attack", "kind: atack"), (), ["unknown action kind 'atack'", ":12"]),
    (GOOD.replace("target: b", "target: zz"), (), ["target 'zz' is not a combatant", ":12"]),
    (GOOD.replace("    side: enemies", "    sied: enemies"), (), ["unknown key 'sied'", ":7"]),
    (GOOD.replace('"1d20+Luta"', '"1000000d1000000"'), (), ["more than 1000 dice", ":12"]),
    (GOOD.replace('"1d20+Luta"', '"1d20+Pontaria"'), (), ["'Pontaria'", "not a stat", ":12"]),
    (GOOD.replace("damage: 1d8", "damage: 1d8+Forca"), (), ["'Forca'", ":5"]),
    (GOOD.replace("1d8", "1d0"), (), ["0-sided", ":5"]),
    (GOOD.replace("- {kind", "- {kind: [").replace("}\n", "\n", 1) + "\n", (), ["not valid YAML"]),
    (GOOD + "houserules: {latncy: 1}\n", (), ["unknown houserule 'latncy'"]),
    ("- just a list\n", (), ["expected a mapping"]),
    (GOOD, ("--dice", "19,x"), ["--dice '19,x'"]),
    (GOOD, ("--dice", "25"), ["--dice: forced face 25 does not fit a d20"]),
    (GOOD + "dice: [30]\n", (), ["(dice): forced face 30 does not fit a d20"]),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, text: str, args: tuple[str, ...],
                                          words: list[str]) -> None:
    result = bench(tmp_path, text, *args)
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pbp: error:") and "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["bench", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2 and "cannot read the scenario" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("old, new, words", [
    ("stats: {Luta: 3}", "stats: [1, 2]", ["'stats' must be a mapping", ":4"]),
    ("damage: 1d8}", "damage: 1d8, threat: x}", ["'threat' must be a whole number", ":5"]),
    ("    side: enemies", "    side: enemies\n    hp: lots", ["'hp' must be a whole number", ":8"]),
    ("    side: enemies", "    side: enemies\n    conditions: [{name: prone, rounds: x}]",
     ["'rounds' must be a whole number"]),
    ("    side: enemies", "    side: enemies\n    object: {size: huge2}", ["unknown object size"]),
    ("- actor: a", "- actor: a\n        late: maybe", ["'late' must be true or false"]),
    ("ruleset: forum-d20", "ruleset: forum-d20\nhouserules: {speech_limit: x}",
     ["houserule 'speech_limit'", "int-valued"]),
    ("ruleset: forum-d20", "ruleset: forum-d20\ndice: [0]", ["'dice' must list faces"]),
])
def test_wrong_value_types_are_one_line_errors(tmp_path: Path, old: str, new: str,
                                               words: list[str]) -> None:
    assert old in GOOD
    result = bench(tmp_path, GOOD.replace(old, new, 1))
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    for word in words:
        assert word in lines[0], lines[0]
