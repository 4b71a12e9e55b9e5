"""The engine's public surface for callers outside the rules package: actions left,
the end of a fight, the PBP-3 speech verdict, the condition names a ruleset knows.

Expected values come from RULES.md: BEY-5 (1 attack/cast, 3 quick, 1 move), BEY-1
(surprise: the surprised side takes no action), FD-10 (one free + one combat + one
move), DND-7 (one reaction, none until the next turn), PBP-3 / FD-17 / BEY-16 (speech
limits), FD-18 / FD-14 / DND-5 (condition names).
"""

from __future__ import annotations

import dataclasses

import pytest

from pbp.errors import ConfigError, UnreadableInput
from pbp.rules import condition_names as N
from pbp.rules import dnd5e, engine, registry, resistance_sheet, two_action
from pbp.rules.model import Condition, Encounter

from .helpers import A, act, decl, fighter


def _enc(ruleset: str, *combatants: object, **kw: object) -> Encounter:
    return Encounter(ruleset=ruleset, combatants=tuple(combatants), **kw)  # type: ignore[arg-type]


# -- actions_left ------------------------------------------------------------------------

def test_actions_left_beyonders_pays_a_declared_quick_action_from_bey5() -> None:
    """BEY-5: 1 attack/cast, 3 quick, 1 move (free unlimited: no limit, not shown)."""
    enc = _enc("beyonders", fighter("ana"), fighter("orc", side="npcs"))
    left = engine.actions_left(enc, {"ana": decl("ana", act(A.QUICK, text="draw"))})
    assert left["ana"] == {"attack": 1, "quick": 2, "move": 1}
    assert left["orc"] == {"attack": 1, "quick": 3, "move": 1}


def test_actions_left_in_a_surprise_round_bey1() -> None:
    """BEY-1: the surprising side gets one of attack / move / two quick; the surprised none."""
    enc = _enc("beyonders", fighter("ana"), fighter("orc", side="npcs"), surprise=True,
               surprised=("orc",))
    left = engine.actions_left(enc, {})
    assert left["orc"] == {}
    assert left["ana"] == {"attack": 1, "quick": 2, "move": 1}


def test_actions_left_forum_d20_fd10_attack_spends_the_combat_action() -> None:
    """FD-10: one free + one combat + one move; no extra attacks (FD-12) with one attack."""
    enc = _enc("forum-d20", fighter("ana"), fighter("orc", side="npcs"))
    left = engine.actions_left(enc, {"ana": decl("ana", act(A.ATTACK, "orc"))})
    assert left["ana"] == {"combat": 0, "move": 1, "free": 1}
    assert left["orc"] == {"combat": 1, "move": 1, "free": 1}


def test_actions_left_dnd5e_a_spent_reaction_is_gone_dnd7() -> None:
    used = fighter("ana", conditions=[Condition(dnd5e.REACTION_USED, source="ana")])
    left = engine.actions_left(_enc("dnd5e", used, fighter("orc", side="npcs")), {})
    assert left["ana"]["action"] == 1 and "reaction" not in left["ana"]
    assert left["orc"]["reaction"] == 1


def test_actions_left_rolls_no_die_and_changes_nothing() -> None:
    enc = _enc("forum-d20", fighter("ana", init=None), fighter("orc", side="npcs"))
    before = enc.to_dict()
    engine.actions_left(enc, {"ana": decl("ana", act(A.ATTACK, "orc"))})
    assert enc.to_dict() == before


# -- fight_over ----------------------------------------------------------------------------

def test_fight_goes_on_while_two_sides_stand() -> None:
    enc = _enc("forum-d20", fighter("ana"), fighter("orc", side="npcs"))
    assert engine.fight_over(enc) is False


def test_fight_is_over_when_one_side_is_down() -> None:
    enc = _enc("forum-d20", fighter("ana"), fighter("bob"),
               fighter("orc", side="npcs", down=True))
    assert engine.fight_over(enc) is True


def test_an_object_does_not_keep_a_fight_going_fd19() -> None:
    door = fighter("door", side="scenery", is_object=True)
    assert engine.fight_over(_enc("forum-d20", fighter("ana"), door)) is True


def test_a_fight_where_everyone_is_down_is_over() -> None:
    enc = _enc("dnd5e", fighter("ana", down=True), fighter("orc", side="npcs", down=True))
    assert engine.fight_over(enc) is True


# -- speech_verdict (PBP-3) ----------------------------------------------------------------

@pytest.mark.parametrize(("ruleset", "count", "expected"), [
    ("forum-d20", 3, engine.SpeechVerdict(3, True, 0)),     # FD-17: three speeches a post
    ("forum-d20", 5, engine.SpeechVerdict(3, False, 2)),
    ("beyonders", 12, engine.SpeechVerdict(None, True, 0)),  # BEY-16: no limit
    ("dnd5e", 4, engine.SpeechVerdict(3, False, 1)),         # PBP-3: "brief", default 3
    ("two-action", 9, engine.SpeechVerdict(None, True, 0)),  # PBP-3: the others none
    ("resistance", 9, engine.SpeechVerdict(None, True, 0)),
])
def test_speech_verdict_pbp3_defaults(ruleset: str, count: int,
                                      expected: engine.SpeechVerdict) -> None:
    assert engine.speech_verdict(ruleset, {}, count) == expected


def test_speech_verdict_follows_the_houserule_and_the_rounds_table_wins() -> None:
    assert engine.speech_verdict("beyonders", {"speech_limit": 1}, 2) == \
        engine.SpeechVerdict(1, False, 1)
    off = {"speech_limit": 2, "rounds": {"speech_limit": 0}}   # 0: no limit (PBP-3)
    assert engine.speech_verdict("forum-d20", off, 7) == engine.SpeechVerdict(None, True, 0)


def test_speech_verdict_is_frozen_and_refuses_unknown_houserules() -> None:
    v = engine.speech_verdict("forum-d20", {}, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.limit = 9  # type: ignore[misc]
    with pytest.raises(ConfigError, match="speech_limt"):
        engine.speech_verdict("forum-d20", {"speech_limt": 2}, 1)


# -- condition names -------------------------------------------------------------------------

@pytest.mark.parametrize(("ruleset", "written", "key"), [
    ("forum-d20", "Desprevenido", "flat-footed"),          # FD-18, pt
    ("forum-d20", "ЗАСТИГНУТ ВРАСПЛОХ", "flat-footed"),    # FD-18, ru, any case
    ("forum-d20", "caído", "prone"),                       # FD-18, accent
    ("forum-d20", "CAIDO", "prone"),                       # FD-18, no accent
    ("forum-d20", "Agarrado", "grappled"),                 # FD-14
    ("beyonders", "vantagem", "advantage"),                # BEY-3
    ("dnd5e", "Ошеломлён", "stunned"),                     # DND-5
    ("dnd5e", "inconsciente", "unconscious"),              # DND-5
    ("two-action", "Defensivo", "defensive"),              # TA-3
    ("resistance", "Ataque Brutal", "brutal-attack"),      # RES-7
    ("resistance", "Longe: goblin", "far:goblin"),         # RES-5, a named condition
])
def test_condition_names_normalise_in_three_languages(ruleset: str, written: str,
                                                      key: str) -> None:
    assert engine.normalise_condition(ruleset, written) == key


def test_the_panels_old_suggestions_unknown_to_forum_d20_are_refused() -> None:
    """Five of the panel's eleven suggestions name nothing the FD-18 rules read."""
    for name in ("dazed", "helpless", "shaken", "stunned", "unconscious"):
        with pytest.raises(UnreadableInput) as err:
            engine.normalise_condition("forum-d20", name)
        assert f"'{name}'" in str(err.value) and "flat-footed" in str(err.value)


def test_a_name_another_ruleset_reads_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(UnreadableInput, match=r"'grappled' in dnd5e \(known: defending, "
                                              r"incapacitated, .*unconscious\)"):
        engine.normalise_condition("dnd5e", "grappled")


def test_known_conditions_of_forum_d20_hold_the_fd18_list() -> None:
    fd18 = {"frightened", "prone", "concealed", "invisible", "blinded", "cover", "flat-footed",
            "higher-ground", "fatigued", "flanked"}
    assert fd18 <= set(engine.known_conditions("forum-d20"))
    assert "stunned" not in engine.known_conditions("forum-d20")


def test_every_ruleset_has_conditions_and_each_normalises_to_itself() -> None:
    for rid in registry.known():
        known = engine.known_conditions(rid)
        assert known, rid
        assert [engine.normalise_condition(rid, k.upper()) for k in known] == list(known)
    with pytest.raises(ConfigError, match="unknown ruleset 'nope'"):
        engine.known_conditions("nope")


def test_the_tables_agree_with_the_names_the_rulesets_read() -> None:
    """The keys listed here are the very strings the rulesets compare (DND-5, DND-7, TA-3, RES-7)."""
    assert set(dnd5e.NO_ACTIONS) <= set(engine.known_conditions("dnd5e"))
    assert dnd5e.REACTION_USED == N.REACTION_USED
    assert two_action.DEFENSIVE == N.DEFENSIVE
    assert resistance_sheet.BRUTAL == N.BRUTAL
    assert resistance_sheet.far("x") == "far:x"
