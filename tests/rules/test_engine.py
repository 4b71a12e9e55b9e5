"""The framework: registry, houserules, stats, JSON round-trip, purity, PBP-4, validation."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from pbp.dice import DiceBox
from pbp.errors import ConfigError, PbpError
from pbp.houserule_files import DEFAULT_DIR, load
from pbp.rules import engine, registry, stats
from pbp.rules.base import Ruleset
from pbp.rules.model import Condition, Declaration, Encounter, Event, Weapon

from .helpers import A, act, decl, fighter, find, one, rejected, run

ROOT = Path(__file__).resolve().parents[2]
MINE = ("forum-d20", "beyonders")


def test_registry_knows_the_rulesets_and_names_them_for_an_unknown_id() -> None:
    assert set(MINE) <= set(registry.known())
    assert isinstance(registry.get("forum-d20"), Ruleset)
    with pytest.raises(ConfigError, match=r"unknown ruleset 'nope' \(known: .*beyonders"):
        registry.get("nope")


@pytest.mark.parametrize("rid", MINE + ("dnd5e", "resistance", "two-action"))
def test_toml_defaults_match_the_ruleset_class(rid: str) -> None:
    """Every number a narrator may change lives in pbp/config/rulesets/<id>.toml, same values."""
    with (ROOT / "pbp" / "config" / "rulesets" / f"{rid}.toml").open("rb") as fh:
        assert tomllib.load(fh) == registry.get(rid).settings


def test_houserules_merge_file_and_overrides_and_refuse_unknown_keys(tmp_path: Path) -> None:
    merged = load("forum-d20", {"latency": {"mode": "roll-penalty"}})
    assert merged["latency"] == {"enabled": True, "mode": "roll-penalty", "penalty": 2,
                                 "total_defense_bonus": 4}
    with pytest.raises(ConfigError, match="unknown houserule 'latncy'.*known: .*latency"):
        load("forum-d20", {"latncy": 1})
    with pytest.raises(ConfigError, match="'latency.mood'"):
        registry.get("forum-d20", {"latency": {"mood": 1}})
    (tmp_path / "forum-d20.toml").write_text("speech_limit = 5\n")
    assert load("forum-d20", config_dir=tmp_path) == {"speech_limit": 5}
    assert DEFAULT_DIR == ROOT / "pbp" / "config" / "rulesets"


@pytest.mark.parametrize("written, canon", [("Dex", "dex"), ("Destreza", "dex"),
                                            ("Ловкость", "dex"), ("Luta", "luta"),
                                            ("FORÇA", "str"), ("forca", "str"),
                                            ("Vontade", "will"), ("Armadura", "armor")])
def test_stat_names_in_three_languages(written: str, canon: str) -> None:
    assert stats.canonical(written) == canon
    assert DiceBox("s", forced=[10]).roll(f"1d20+{written}", stats={canon: 3},
                                         resolve_name=stats.resolve_name).total == 13


def test_json_round_trip_of_encounter_declaration_event() -> None:
    res = run("forum-d20", [fighter("a", weapons=(Weapon("w", "1d6", aliases=("x",)),),
                                    conditions=(Condition("prone", 2, 1, 5.0, "b", 1, "n"),)),
                            fighter("b", side="e", init=5)],
              [decl("a", act(A.ATTACK, "b", weapon="w"))], forced=[10, 10, 3])
    enc = res.encounter
    assert Encounter.from_dict(json.loads(json.dumps(enc.to_dict()))) == enc
    d = decl("a", act(A.ATTACK, "b", rolled=DiceBox("s").roll("1d20+2"), into_melee=True),
             late=True)
    assert Declaration.from_dict(json.loads(json.dumps(d.to_dict()))) == d
    for e in res.events:
        assert Event.from_dict(json.loads(json.dumps(e.to_dict()))).to_dict() == e.to_dict()
    with pytest.raises(PbpError, match="unknown Combatant field"):
        Encounter.from_dict({**enc.to_dict(), "combatants": [{"key": "z", "name": "z",
                                                              "hitpoints": 3}]})


def test_pbp_4_a_posted_roll_is_used_not_rolled_again() -> None:
    """PBP-4: Action.rolled replaces the engine's own roll; only situational modifiers are
    added on top (the tag already holds the skill)."""
    posted = DiceBox("post", forced=[17]).roll("1d20+5")
    box = DiceBox("t", forced=[5, 3])
    enc = Encounter("forum-d20", (fighter("a", stats={"luta": 5}), fighter("b", init=1)))
    res = engine.resolve(enc, [decl("a", act(A.ATTACK, "b", rolled=posted))], box)
    hit = one(res, "attack.hit")
    assert hit.params["total"] == 22 and hit.rolls[0] is posted
    assert [r.label for r in box.rolls] == ["defense fortitude", "damage b"]


def test_validation_reports_every_problem_at_once_with_rule_ids() -> None:
    enc = Encounter("forum-d20", (fighter("a", stats={"dex_mod": 0}), fighter("b", init=1)),
                    round=1)
    d = decl("a", act(A.QUICK), act(A.ATTACK, "ghost"), act(A.MOVE, distance=50),
             act(A.ATTACK, "b", weapon="laser"), act(A.FREE, spell=True))
    problems = engine.validate(enc, d)
    assert [(p.rule, p.action_index) for p in problems] == [
        ("FD-10", 0), ("FD-3", 1), ("FD-15", 2), ("FD-3", 3), ("FD-17", 4)]
    assert all(p.message for p in problems)
    res = run("forum-d20", enc.combatants, [d], round=1)
    assert len(rejected(res)) == 5


def test_engine_is_pure_same_inputs_same_events_input_untouched() -> None:
    enc = Encounter("beyonders", (fighter("a", init=None, weapons=(Weapon("w", "1d6"),)),
                                  fighter("b", init=None, side="e")))
    before = enc.to_dict()
    decls = [decl("a", act(A.ATTACK, "b")), decl("b", act(A.ATTACK, "a"))]
    one_ = engine.resolve(enc, decls, DiceBox("seed"))
    two = engine.resolve(enc, decls, DiceBox("seed"))
    assert [e.to_dict() for e in one_.events] == [e.to_dict() for e in two.events]
    assert enc.to_dict() == before and one_.encounter.round == 2
    other = engine.resolve(enc, decls, DiceBox("other-seed"))
    assert [e.to_dict() for e in other.events] != [e.to_dict() for e in one_.events]


def test_unknown_and_duplicate_declarations_are_reported() -> None:
    res = run("forum-d20", [fighter("a"), fighter("b", init=1)],
              [decl("zed", act(A.FREE)), decl("a", act(A.FREE)), decl("a", act(A.MOVE))])
    assert find(res, "declaration.unknown") and find(res, "declaration.duplicate")
    assert find(res, "move")


def test_houserules_on_resolve_override_the_encounter() -> None:
    res = run("forum-d20", [fighter("a")], [], houserules={"speech_limit": 1})
    assert one(res, "round.start").params["speech_limit"] == 1


def test_event_sentences_are_english_here_and_translated_by_the_catalogs() -> None:
    """The engine speaks English only; pt/ru live in the reply catalogs (one source of
    truth, checked in tests/render/test_translations.py)."""
    from pbp.rules import messages

    assert messages.render("nope", "en", {}) == "nope"
    assert messages.render("damage", "en", {"target": "Ana"}).startswith("Ana takes ?")
    with pytest.raises(ValueError):
        messages.render("damage", "ru", {"target": "Ana"})


@pytest.mark.parametrize("module", ["pbp.rules.stats", "pbp.rules.objects", "pbp.rules.economy",
                                    "pbp.rules.conditions", "pbp.rules.registry",
                                    "pbp.rules.speech", "pbp.rules.condition_names",
                                    "pbp.rules.houserule_tables"])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_roll_initiative_alone_places_everyone_and_keeps_the_round_BEY_4() -> None:
    """BEY-4: 1d20 + Dex, high to low; the opening step rolls only initiative."""
    enc = Encounter("beyonders", (fighter("ana", init=None, stats={"dex": 3}),
                                  fighter("bo", init=None, side="enemies", stats={"dex": 1})))
    placed = engine.roll_initiative(enc, [], DiceBox("s", forced=[5, 15]))
    by_key = {c.key: c.initiative for c in placed.encounter.combatants}
    assert by_key == {"ana": 8.0, "bo": 16.0}
    assert placed.encounter.order == ("bo", "ana")
    assert placed.encounter.round == enc.round
    assert [e.code for e in placed.events].count("initiative.rolled") == 2
