"""Issue 12 item 2: the checks every saved value passes (panel, import, scenario), pure."""

from __future__ import annotations

import pytest

from pbp.errors import UnreadableInput
from pbp.rules.sheet_checks import check_conditions, check_hp, check_sheet, weapon_lines
from pbp.scenario_files import loads


def test_every_problem_of_a_sheet_at_once() -> None:
    """issue 12 item 2: dice bomb, unknown condition and HP over max in one answer."""
    problems = check_sheet("forum-d20", hp=99999, max_hp=12,
                           weapons=[{"name": "bomb", "damage": "1000000d1000000"},
                                    {"name": "club", "damage": "1d6+mgt"}],
                           conditions=["Desprevenido", "flibbertigibbet"])
    assert [(p.field, p.code) for p in problems] == [
        ("hp", "hp.over-max"), ("weapons", "weapon.damage"), ("weapons", "weapon.damage"),
        ("conditions", "condition.unknown")]
    assert check_conditions("forum-d20", ["Desprevenido"]) == (["flat-footed"], [])


def test_hp_bounds() -> None:
    """issue 12 item 2: 0..max, over max when confirmed, an HP the sheet had stands."""
    assert [p.code for p in check_hp(13, 12)] == ["hp.over-max"]
    assert check_hp(13, 12, over_max=True) == []
    assert [p.code for p in check_hp(-1, 12)] == ["hp.negative"]
    assert check_hp(-4, 6, was=-4) == []                  # the engine took it below 0
    assert [p.code for p in check_hp(5, -3)] == ["max_hp.range"]
    assert [p.code for p in check_hp(5, 0)] == ["max_hp.range"]


def test_weapon_lines_need_a_colon_a_name_and_dice() -> None:
    """issue 12 item 2: a weapons line without a colon is refused, naming the line."""
    weapons, problems = weapon_lines(["sword: 1d8", "great axe 1d12", ": 1d4", "dagger:"])
    assert weapons == [{"name": "sword", "damage": "1d8"}]
    assert [p.params["line"] for p in problems] == [2, 3, 4]
    assert "great axe 1d12" in problems[0].message and "name: dice" in problems[0].message


def test_a_scenario_refuses_a_max_hp_below_one() -> None:
    """issue 12 item 2: the scenario loader applies the same max_hp bound."""
    with pytest.raises(UnreadableInput, match="max_hp must be 1..100000, not -3"):
        loads("ruleset: forum-d20\ncombatants:\n  - {key: a, hp: 5, max_hp: -3}\nrounds: []\n")
