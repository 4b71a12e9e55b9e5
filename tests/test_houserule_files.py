"""Houserule files (pbp/config/rulesets/<id>.toml) and scenario files are read outside the
pure rules package; a file that is not there is an error naming it, never a silent {}."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbp import houserule_files, scenario_files
from pbp.errors import ConfigError, UnreadableInput
from pbp.rules import registry
from pbp.rules.houserules import merge


def test_a_missing_houserule_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        houserule_files.load("forum-d20", config_dir=tmp_path)
    assert str(tmp_path / "forum-d20.toml") in str(err.value)


def test_an_unknown_ruleset_is_named_before_any_file_is_looked_for(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown ruleset 'nope'"):
        houserule_files.load("nope", config_dir=tmp_path)


def test_a_broken_houserule_file_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "dnd5e.toml").write_text("speech_limit = = 2\n")
    with pytest.raises(ConfigError, match="dnd5e.toml"):
        houserule_files.read_file("dnd5e", tmp_path)


def test_every_ruleset_ships_its_houserule_file() -> None:
    for rid in registry.known():
        assert houserule_files.path_for(rid).is_file(), rid
        assert houserule_files.load(rid) == houserule_files.read_file(rid)


def test_merging_is_pure_and_checks_the_keys_pbp3() -> None:
    """PBP-3: a narrator may change the speech limit; a misspelt key is named."""
    assert merge("forum-d20", {"speech_limit": 3}, {"speech_limit": 1}) == {"speech_limit": 1}
    with pytest.raises(ConfigError, match="speech_limt"):
        merge("forum-d20", {"speech_limt": 3})


def test_a_scenario_naming_a_ruleset_without_a_file_says_so(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setattr(houserule_files, "DEFAULT_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"forum-d20\.toml") as err:
        scenario_files.loads("ruleset: forum-d20\ncombatants:\n  - key: a\n", "s.yaml")
    assert err.value.where is not None and err.value.where.startswith("s.yaml")


def test_scenario_yaml_errors_name_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(UnreadableInput) as err:
        scenario_files.loads("ruleset: forum-d20\ncombatants:\n  - key: a\n    hp: many\n", "f.yaml")
    assert err.value.where == "f.yaml:4 (combatants[0])"
    with pytest.raises(UnreadableInput, match="cannot read the scenario"):
        scenario_files.load(tmp_path / "absent.yaml")
