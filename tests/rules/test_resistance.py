"""resistance (RES-1..RES-9): every rule with forced dice."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.dice import DiceBox
from pbp.errors import ConfigError
from pbp.rules.engine import resolve, validate
from pbp.rules.model import Condition, Encounter, Weapon
from pbp.rules.registry import get
from pbp.rules.resistance_dice import DIFFICULTIES, apply_wear, step_down
from pbp.scenario_files import loads

from .helpers import (
    A,
    act,
    assert_junk_is_refused,
    assert_rule_ids_named_here,
    assert_same_seed_same_events,
    decl,
    fighter,
    find,
    one,
    rejected,
    run,
)
from .strategies import declarations_with, encounters, junk_options, junk_round

RS = "resistance"
KNIFE = Weapon("knife", "1")


def ana(**kw):
    stats = {"vigor": 8, "will": 6, "luta": 2, "reflexos": 1, "strong": 2}
    stats.update(kw.pop("stats", {}))
    kw.setdefault("weapons", (KNIFE,))
    return fighter("ana", player="p1", init=kw.pop("init", 10), stats=stats, **kw)


def zed(**kw):
    stats = {"vigor": 6, "will": 6, "luta": 1, "armor": 1}
    stats.update(kw.pop("stats", {}))
    return fighter("zed", side="npc", init=kw.pop("init", 5), stats=stats, **kw)


def die(res, key, which="vigor"):
    c = res.encounter.combatant(key)
    return c.stat(which), c.stat(f"{which}_wear")


# -- RES-1 ----------------------------------------------------------------------------------

def test_res1_resistances_are_dice_d4_to_d12_and_d6_by_default():
    rs = get(RS)
    assert rs.initiative_expression(fighter("x", stats={"reflexos": 2})) == "1d6+2"
    res = run(RS, [ana(stats={"vigor": 7}), zed()],
              [decl("ana", act(A.OTHER, difficulty="easy"))])
    assert rejected(res, "RES-1")[0].params["problem"] == "die.invalid"
    assert step_down(12) == (10, False) and step_down(4) == (0, True)


# -- RES-2 ----------------------------------------------------------------------------------

def test_res2_roll_is_die_plus_characteristic_plus_synergy_and_helpers():
    helper1, helper2 = fighter("h1", init=3), fighter("h2", init=2)
    res = run(RS, [ana(), zed(), helper1, helper2],
              [decl("ana", act(A.OTHER, difficulty=9, characteristic="Luta", synergy="strong",
                               helpers=["h1", "h2"]))], forced=[3])
    check = one(res, "check")
    assert check.params["total"] == 3 + 2 + 1 + 2
    assert check.params["result"] == "failure"         # 8 < 9


def test_res2_synergy_needs_the_characteristic_and_helpers_must_be_in_the_fight():
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.OTHER, difficulty=4, synergy="charm", helpers=["nobody"]))])
    problems = {e.params["problem"] for e in rejected(res, "RES-2")}
    assert problems == {"synergy.missing", "helper.invalid"}


# -- RES-3 ----------------------------------------------------------------------------------

def test_res3_difficulty_table():
    assert DIFFICULTIES == {"very easy": 2, "easy": 3, "medium": 4, "complicated": 5,
                            "very complicated": 6, "hard": 7, "very hard": 8,
                            "extremely hard": 9, "legendary": 10}


def test_res3_success_when_total_reaches_the_difficulty():
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.OTHER, difficulty="medium", characteristic="luta"))],
              forced=[2])
    assert one(res, "check").params["result"] == "success"
    assert die(res, "ana") == (8, 0)


def test_res3_failure_steps_the_die_down_one_size():
    res = run(RS, [ana(stats={"vigor_wear": 3}), zed()],
              [decl("ana", act(A.OTHER, difficulty="hard", characteristic="luta"))], forced=[4])
    assert one(res, "check").params["result"] == "failure"
    step = one(res, "die.stepped")
    assert step.rule == "RES-3" and (step.params["die_before"], step.params["die_after"]) == (8, 6)
    assert die(res, "ana") == (6, 0)


def test_res3_unknown_difficulty_is_refused():
    res = run(RS, [ana(), zed()], [decl("ana", act(A.OTHER, difficulty="tricky"))])
    assert "very easy" in rejected(res, "RES-3")[0].params["reason"]


# -- RES-4 ----------------------------------------------------------------------------------

def test_res4_opposed_loser_steps_down():
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.OTHER, "zed", opposed=True, characteristic="luta"))],
              forced=[2, 6])                       # 4 against 7
    assert one(res, "opposed.won").actor == "zed"
    assert one(res, "die.stepped").target == "ana" and die(res, "ana") == (6, 0)
    assert die(res, "zed") == (6, 0)


def test_res4_tie_nobody_steps_by_default():
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.OTHER, "zed", opposed=True, characteristic="luta"))],
              forced=[2, 3])                       # 4 against 4
    assert "nobody steps down" in one(res, "opposed.tie").message
    assert not find(res, "die.stepped")


def test_res4_tie_reroll_is_a_houserule():
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.OTHER, "zed", opposed=True, characteristic="luta"))],
              forced=[2, 3, 5, 1], houserules={"opposed": {"ties": "reroll"}})
    assert len(find(res, "opposed.tie")) == 1
    assert one(res, "opposed.won").actor == "ana" and die(res, "zed") == (4, 0)


# -- RES-5 ----------------------------------------------------------------------------------

def test_res5_threshold_is_the_die_size_wear_absorbed_before_stepping():
    assert apply_wear(8, 0, 8).steps == 0 and apply_wear(8, 7, 1).wear == 8
    assert apply_wear(8, 8, 1) == apply_wear(8, 0, 9)
    assert apply_wear(8, 0, 9).die == 6
    assert apply_wear(8, 0, 8, mode="reaches").die == 6


def test_res5_wear_accumulates_without_stepping():
    # ana 5 + 2 = 7 against zed 1 + 1 = 2: 5 + knife 1 - armor 1 = 5 wear on d6
    res = run(RS, [ana(), zed()], [decl("ana", act(A.ATTACK, "zed"))], forced=[5, 1])
    wear = one(res, "wear")
    assert wear.rule == "RES-5" and wear.params["amount"] == 5 and not wear.params["steps"]
    assert die(res, "zed") == (6, 5) and not find(res, "die.stepped")


def test_res5_far_opponent_needs_a_move_or_reach():
    far = Condition("far:zed", source="zed")
    res = run(RS, [ana(conditions=[far]), zed(conditions=[Condition("far:ana")])],
              [decl("ana", act(A.ATTACK, "zed"))])
    assert rejected(res, "RES-5")[0].params["problem"] == "distance.far"
    spear = Weapon("spear", "2", reach=1)
    res = run(RS, [ana(conditions=[far], weapons=(spear,)), zed()],
              [decl("ana", act(A.ATTACK, "zed"))], forced=[1, 6])
    assert not rejected(res)


def test_res5_moves_change_the_distance_between_two_combatants():
    res = run(RS, [ana(), zed()], [decl("ana", act(A.MOVE, "zed", to="far"))])
    assert res.encounter.combatant("ana").has("far:zed")
    assert res.encounter.combatant("zed").has("far:ana")
    back = run(RS, res.encounter.combatants, [decl("ana", act(A.MOVE, "zed", to="near"))],
               forced=[1, 1])
    assert not back.encounter.combatant("zed").has("far:ana")


# -- RES-6 ----------------------------------------------------------------------------------

def test_res6_initiative_is_resistance_plus_characteristic_rolled_each_exchange():
    res = run(RS, [ana(init=None), zed(init=None, stats={"reflexos": 3})], [],
              forced=[6, 2])                       # ana 6 + 1 = 7, zed 2 + 3 = 5
    assert [e.params["value"] for e in find(res, "initiative.rolled")] == [7, 5]
    assert one(res, "initiative.cleared").rule == "RES-6"
    nxt = run(RS, res.encounter.combatants, [], forced=[1, 6])
    assert [e.actor for e in find(nxt, "initiative.rolled")] == ["ana", "zed"]
    assert one(nxt, "initiative.order").params["order"] == ["zed", "ana"]


def test_res6_attack_or_move_not_both():
    res = run(RS, [ana(), zed()], [decl("ana", act(A.ATTACK, "zed"), act(A.MOVE))],
              forced=[1, 6])
    refused = rejected(res, "RES-6")
    assert len(refused) == 1 and refused[0].params["action_index"] == 1


# -- RES-7 ----------------------------------------------------------------------------------

def test_res7_untrained_only_attack_brutal_and_block():
    res = run(RS, [ana(), zed()], [decl("ana", act(A.ATTACK, "zed", maneuver="disarm"))])
    assert rejected(res, "RES-7")[0].params["problem"] == "maneuver.untrained"
    res = run(RS, [ana(stats={"martial_arts": 1}), zed()],
              [decl("ana", act(A.ATTACK, "zed", maneuver="disarm", bonus=1))], forced=[1, 6])
    assert not rejected(res)


def test_res7_untrained_defender_can_only_block():
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.ATTACK, "zed")), decl("zed", act(A.DEFEND, maneuver="dodge"))],
              forced=[1, 6])
    blocked = one(res, "attack.blocked")             # 1 + 2 = 3 against 6 + 1 = 7
    assert blocked.params["defense_rule"] == "RES-7" and "blocks instead" in blocked.message
    refused = rejected(res, "RES-7")                 # and at zed's own turn, once
    assert len(refused) == 1 and refused[0].actor == "zed"


def test_res7_brutal_attack_adds_to_damage_and_lowers_own_defense():
    # ana 5+2 = 7 vs zed 2+1 = 3: 4 + knife 1 + strong 2 - armor 1 = 6 (d6 holds 6)
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.ATTACK, "zed", maneuver="brutal"))], forced=[5, 2])
    assert one(res, "attack.hit").params["damage"] == 6
    assert res.encounter.combatant("ana").condition("brutal-attack").value == 2
    # zed strikes back in the same exchange: ana's defense 4 + 2 - 2 = 4 against zed 4 + 1 = 5
    res = run(RS, [ana(), zed()],
              [decl("ana", act(A.ATTACK, "zed", maneuver="brutal")),
               decl("zed", act(A.ATTACK, "ana"))], forced=[1, 6, 4, 4])
    hit = one(res, "attack.hit", actor="zed")
    assert hit.params["defense"] == 4


def test_res7_brutal_attack_needs_big_or_strong():
    res = run(RS, [ana(stats={"strong": 0}), zed()],
              [decl("ana", act(A.ATTACK, "zed", maneuver="brutal"))])
    assert rejected(res, "RES-7")[0].params["problem"] == "maneuver.brutal"


# -- RES-8 ----------------------------------------------------------------------------------

def test_res8_damage_is_difference_plus_weapon_minus_armor():
    sword = Weapon("sword", "3")
    res = run(RS, [ana(weapons=(sword,)), zed(stats={"armor": 2, "vigor": 12})],
              [decl("ana", act(A.ATTACK, "zed"))], forced=[8, 2])    # 10 against 3
    assert one(res, "attack.hit").params["damage"] == 7 + 3 - 2


def test_res8_unarmed_attacker_minus_two_but_not_in_social_conflicts():
    res = run(RS, [ana(weapons=()), zed(stats={"armor": 0, "vigor": 12})],
              [decl("ana", act(A.ATTACK, "zed"))], forced=[8, 2])
    assert one(res, "attack.hit").params["damage"] == 7 - 2
    res = run(RS, [ana(weapons=(), stats={"diplomacy": 2}), zed(stats={"armor": 3, "will": 12})],
              [decl("ana", act(A.ATTACK, "zed", conflict="social"))], forced=[6, 2])
    hit = one(res, "attack.hit")
    assert hit.params["damage"] == (6 + 2) - 2 and hit.params["conflict"] == "social"
    assert one(res, "wear").params["resistance"] == "will"


def test_res8_defenders_trained_maneuver_and_attackers_power_count():
    res = run(RS, [ana(), zed(stats={"martial_arts": 1, "armor": 0, "vigor": 12})],
              [decl("ana", act(A.ATTACK, "zed", power=2)),
               decl("zed", act(A.DEFEND, maneuver="deflect", reduction=3))], forced=[8, 1])
    hit = one(res, "attack.hit")            # 10 against 2: 8 + knife 1 + power 2 - deflect 3
    assert hit.params["damage"] == 8 and "deflect -3" in hit.message


def test_res_validation_reports_every_problem_at_once():
    enc = Encounter(RS, (ana(stats={"strong": 0}), zed()))
    problems = validate(enc, decl("ana", act(A.ATTACK, "zed", maneuver="brutal", synergy="charm",
                                             helpers=["ghost"]),
                                  act(A.MOVE), act(A.REACTION)))
    assert {p.rule for p in problems} == {"RES-2", "RES-6", "RES-7"}
    assert len(problems) == 4


def test_res8_no_damage_unless_the_attack_beats_the_defense():
    res = run(RS, [ana(), zed()], [decl("ana", act(A.ATTACK, "zed"))], forced=[1, 2])
    assert one(res, "attack.blocked").rule == "RES-8"             # 3 against 3
    assert not find(res, "wear") and die(res, "zed") == (6, 0)


# -- RES-9 ----------------------------------------------------------------------------------

def test_res9_damage_that_steps_a_die_ends_the_conflict():
    res = run(RS, [ana(), zed(stats={"vigor_wear": 5})],
              [decl("ana", act(A.ATTACK, "zed")), decl("zed", act(A.ATTACK, "ana"))],
              forced=[5, 1])                                       # 5 wear on 5 worn of d6
    assert one(res, "die.stepped").rule == "RES-9"
    assert one(res, "conflict.ended").rule == "RES-9"
    assert "conflict is over" in one(res, "turn.skipped", actor="zed").params["reason"]
    assert res.encounter.combatant("zed").down


def test_res9_large_damage_steps_several_sizes():
    big = Weapon("maul", "6")
    res = run(RS, [ana(weapons=(big,), stats={"vigor": 12}), zed(stats={"vigor": 10})],
              [decl("ana", act(A.ATTACK, "zed"))], forced=[12, 1])
    # 14 against 2: 12 + 6 - 1 = 17 on a d10: steps to d8 (7 left), then stays
    step = one(res, "die.stepped")
    assert (step.params["die_before"], step.params["die_after"]) == (10, 8)
    res = run(RS, [ana(weapons=(big,), stats={"vigor": 12, "luta": 9}), zed(stats={"vigor": 10})],
              [decl("ana", act(A.ATTACK, "zed"))], forced=[12, 1])
    assert one(res, "die.stepped").params["steps"] == 2               # 24 damage: d10 -> d6


def test_res9_combatant_mode_lets_the_others_go_on():
    third = fighter("kim", init=1, stats={"vigor": 6, "luta": 1})
    res = run(RS, [ana(), zed(stats={"vigor_wear": 5}), third],
              [decl("ana", act(A.ATTACK, "zed")), decl("kim", act(A.ATTACK, "ana"))],
              forced=[5, 1, 1, 8], houserules={"conflict": {"step_ends": "combatant"}})
    assert not find(res, "conflict.ended") and res.encounter.combatant("zed").down
    # RES-8: Kim's d6 1 + Luta 1 = 2 against Ana's d8 8 + Luta 2 = 10: Ana holds
    blocked = one(res, "attack.blocked", actor="kim")
    assert (blocked.params["total"], blocked.params["defense"]) == (2, 10)
    assert not find(res, "attack.hit", actor="kim")


def test_res9_a_d4_that_steps_down_is_out():
    res = run(RS, [ana(), zed(stats={"vigor": 4})], [decl("ana", act(A.ATTACK, "zed"))],
              forced=[8, 1])
    assert one(res, "die.stepped").params["broken"] is True
    assert one(res, "combatant.down").rule == "RES-9"


def test_res5_threshold_mode_reaches_is_a_houserule_and_bad_values_are_refused():
    res = run(RS, [ana(), zed(stats={"vigor_wear": 1})], [decl("ana", act(A.ATTACK, "zed"))],
              forced=[5, 1], houserules={"threshold": {"mode": "reaches"}})   # 1 + 5 = 6
    assert one(res, "die.stepped").params["die_after"] == 4
    with pytest.raises(ConfigError, match="threshold.mode"):
        get(RS, {"threshold": {"mode": "over"}})


@pytest.mark.parametrize("rid", ["resistance", "two-action"])
def test_pbp3_no_speech_limit(rid):
    assert get(rid).speech_limit is None


# -- properties (Hypothesis) ------------------------------------------------------------------

RES_STATS = ("luta", "reflexos", "strong", "big", "martial_arts", "diplomacy", "armor", "wits",
             "liar")
PROPS = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

res_options = st.fixed_dictionaries({}, optional={
    "maneuver": st.sampled_from(("attack", "brutal", "block", "disarm", "")),
    "characteristic": st.sampled_from(RES_STATS + ("nonsense",)),
    "synergy": st.sampled_from(RES_STATS),
    "helpers": st.lists(st.sampled_from(("c0", "c1", "c2", "zz")), max_size=2),
    "difficulty": st.one_of(st.integers(-2, 14), st.sampled_from(("hard", "easy", "odd"))),
    "opposed": st.booleans(),
    "against": st.sampled_from(RES_STATS),
    "conflict": st.sampled_from(("physical", "social")),
    "to": st.sampled_from(("near", "far", "sideways")),
    "unarmed": st.booleans(),
    "power": st.integers(0, 3),
})


@st.composite
def res_fight(draw):
    enc = draw(encounters(RS, stat_names=RES_STATS))
    cs = []
    for c in enc.combatants:
        stats = dict(c.stats)
        for res in ("vigor", "will"):
            stats[res] = draw(st.sampled_from((4, 6, 8, 10, 12, 12, 7)))
            stats[f"{res}_wear"] = draw(st.integers(0, 6))
        ws = tuple(dataclasses.replace(w, damage=draw(st.sampled_from(("1", "2", "1d4", w.damage))))
                   for w in c.weapons)
        cs.append(dataclasses.replace(c, stats=stats, weapons=ws))
    rules = draw(st.sampled_from(({}, {"conflict": {"step_ends": "combatant"}},
                                  {"threshold": {"mode": "reaches"}},
                                  {"opposed": {"ties": "reroll"}})))
    return dataclasses.replace(enc, combatants=tuple(cs), houserules=rules)


@PROPS
@given(st.data())
def test_res_properties_never_raises_dice_change_only_through_events(data):
    enc = start = data.draw(res_fight())
    events = []
    for r in range(2):
        res = resolve(enc, data.draw(declarations_with(enc, res_options)), DiceBox(f"res-{r}"))
        events.extend(res.events)
        enc = res.encounter
    for c in start.combatants:
        assert enc.combatant(c.key).hp == c.hp                # no HP in this system
        for which in ("vigor", "will"):
            current, wear = c.stat(which), c.stat(f"{which}_wear")
            for e in events:
                if e.target != c.key or e.params.get("resistance") != which:
                    continue
                if e.code == "wear":
                    assert (e.params["die_before"], e.params["wear_before"]) == (current, wear)
                    assert e.params["amount"] > 0
                    current, wear = e.params["die_after"], e.params["wear_after"]
                elif e.code == "die.stepped" and e.rule in ("RES-3", "RES-4"):
                    assert e.params["die_before"] == current
                    current, wear = e.params["die_after"], 0
            after = enc.combatant(c.key)
            assert (after.stat(which), after.stat(f"{which}_wear")) == (current, wear)
    for e in events:
        if e.code == "turn.end":
            b = e.params["budget"]
            assert b["spent"].get("action", 0) <= 1                        # RES-6
        if e.code == "action.rejected":
            assert e.params["reason"]


@PROPS
@given(st.data())
def test_res_properties_same_seed_same_events(data):
    enc = data.draw(res_fight())
    decls = data.draw(declarations_with(enc, res_options))
    assert_same_seed_same_events(enc, decls)


JUNK = junk_options(("c0", "c1", "vigor", "will", "hard", "far", "brutal", "block"))
RES_OPTIONS = ("characteristic", "synergy", "helpers", "difficulty", "opposed", "against",
               "conflict", "to", "unarmed", "power", "bonus", "damage", "maneuver", "resistance",
               "reduction", "target_synergy")


@PROPS
@given(st.data())
def test_res_properties_junk_options_are_refused_never_raise(data):
    enc = data.draw(res_fight())
    assert_junk_is_refused(data, enc, lambda e: junk_round(e, RES_OPTIONS, JUNK))



def test_resistance_scenario_sheets_take_the_campaigns_own_skills():
    """Skills/Characteristics are free-form in this ruleset: a scenario sheet may name any."""
    text = ("ruleset: resistance\ncombatants:\n  - key: a\n    stats: {Vigor: 8, Luta: 2, Carpentry: 3}\n"
            "  - key: b\n    side: foes\n")
    stats = loads(text).encounter.combatant("a").stats
    assert set(stats) >= {"carpentry", "luta"}

# The golden scenario (examples/resistance.yaml) is checked in tests/rules/test_golden.py,
# pbp/config/rulesets/resistance.toml against the class defaults in tests/rules/test_engine.py.


# -- the ruleset's bookkeeping ----------------------------------------------------------------

def test_every_res_rule_id_is_named_by_a_test_here():
    assert_rule_ids_named_here("RES", 9, "resistance", __file__)
