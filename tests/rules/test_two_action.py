"""two-action (TA-1..TA-6): every rule with forced dice, plus Hypothesis properties."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.dice import DiceBox
from pbp.errors import ConfigError
from pbp.rules.engine import resolve, validate
from pbp.rules.model import Condition, Encounter, Weapon
from pbp.rules.registry import get
from pbp.rules.two_action_tables import situational

from .helpers import (
    A,
    act,
    assert_hp_only_through_damage,
    assert_junk_is_refused,
    assert_rule_ids_named_here,
    assert_same_seed_same_events,
    codes,
    decl,
    fighter,
    find,
    hp,
    one,
    rejected,
    run,
)
from .strategies import declarations_with, encounters, junk_options, junk_round

RS = "two-action"
SABRE = Weapon("sabre", "1d6", skill="fencing")
BOW = Weapon("bow", "1d8", category="bow", skill="archery")


def ivan(**kw):
    kw.setdefault("stats", {"reaction": 3, "fencing": 4, "archery": 2})
    kw.setdefault("weapons", (SABRE, BOW))
    return fighter("ivan", player="p1", **kw)


def orc(**kw):
    kw.setdefault("stats", {"reaction": 1, "parry": 2, "axe": 3, "shield": 6})
    kw.setdefault("weapons", (Weapon("axe", "1d8", skill="axe"),))
    return fighter("orc", side="monsters", init=kw.pop("init", 5), **kw)


# -- TA-1 -----------------------------------------------------------------------------------

def test_ta1_initiative_is_d20_plus_reaction_high_to_low_and_kept():
    res = run(RS, [ivan(init=None), orc(init=None)], [], forced=[5, 15])
    assert [e.params["value"] for e in find(res, "initiative.rolled")] == [8, 16]
    assert all(e.rule == "TA-1" for e in find(res, "initiative.rolled"))
    assert res.encounter.order == ("orc", "ivan")
    again = run(RS, res.encounter.combatants, [], order=res.encounter.order, round=2)
    assert not find(again, "initiative.rolled")          # the order is kept all fight
    assert again.encounter.order == ("orc", "ivan")


def test_ta1_reaction_written_in_russian_is_read():
    c = fighter("olga", init=None, stats={"reflexos": 4})   # "Реакция" canonicalises to reflexos
    assert get(RS).initiative_expression(c) == "1d20+4"


def test_ta1_ties_roll_off_by_default():
    a = fighter("a", init=None, stats={"reaction": 2})
    b = fighter("b", init=None, stats={"reaction": 2})
    res = run(RS, [a, b], [], forced=[10, 10, 3, 17])
    offs = find(res, "initiative.rolloff")
    assert len(offs) == 2 and {e.rule for e in offs} == {"TA-1"}
    assert res.encounter.order == ("b", "a")


def test_ta1_ties_narrators_call_keeps_roster_order_and_says_so():
    a = fighter("a", init=None, stats={"reaction": 2})
    b = fighter("b", init=None, stats={"reaction": 2})
    res = run(RS, [a, b], [], forced=[10, 10], houserules={"initiative": {"ties": "narrator"}})
    tie = one(res, "initiative.tie")
    assert tie.rule == "TA-1" and "narrator may reorder" in tie.message
    assert res.encounter.order == ("a", "b")
    assert not find(res, "initiative.rolloff")


def test_ta1_delay_and_ready_cannot_change_the_order():
    res = run(RS, [ivan(), orc()], [decl("ivan", act(A.DELAY), act(A.READY, text="wait"))])
    bad = rejected(res, "TA-1")
    assert len(bad) == 2 and "skills or magic" in bad[0].params["reason"]


# -- TA-2 -----------------------------------------------------------------------------------

def test_ta2_two_actions_a_turn_the_third_is_refused():
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.MOVE), act(A.OTHER, text="drink potion"),
                    act(A.MOVE, text="run"))])
    bad = rejected(res, "TA-2")
    assert len(bad) == 1 and bad[0].params["action_index"] == 2
    assert "only 2 actions" in bad[0].params["reason"]
    end = one(res, "turn.end", actor="ivan")
    assert end.params["budget"]["spent"] == {"action": 2}


def test_ta2_cast_needs_a_prepared_spell():
    res = run(RS, [ivan(), orc()], [decl("ivan", act(A.CAST, spell="fireball"))])
    assert rejected(res, "TA-2")[0].params["problem"] == "cast.unprepared"
    assert not find(res, "cast")


def test_ta2_prepare_then_cast_in_one_turn_uses_both_actions():
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.OTHER, prepare="Fireball"), act(A.CAST, spell="fireball"))])
    assert not rejected(res)
    assert one(res, "cast").params["spell"] == "fireball"
    assert not res.encounter.combatant("ivan").has("prepared:fireball")   # used up


def test_ta2_a_spell_prepared_last_round_can_be_cast_now():
    prepared = Condition("prepared:fireball", note="fireball")
    res = run(RS, [ivan(conditions=[prepared]), orc()],
              [decl("ivan", act(A.CAST, spell="fireball"), act(A.MOVE))])
    assert not rejected(res) and find(res, "cast")


def test_ta2_only_items_on_the_belt_or_in_a_pocket_are_prepared():
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.OTHER, item="healing potion", stowed="pocket"),
                    act(A.OTHER, item="rope", stowed="backpack"))])
    refused = rejected(res, "TA-2")
    assert len(refused) == 1 and refused[0].params["action_index"] == 1


def test_ta1_houserule_values_are_checked():
    with pytest.raises(ConfigError, match="initiative.ties"):
        get(RS, {"initiative": {"ties": "rolloff"}})


@pytest.mark.parametrize("kind", [A.BONUS, A.REACTION, A.FULL_ROUND])
def test_ta2_no_bonus_reaction_or_full_round_actions(kind):
    res = run(RS, [ivan(), orc()], [decl("ivan", act(kind, text="x"))])
    assert rejected(res, "TA-2")


# -- TA-3 -----------------------------------------------------------------------------------

def test_ta3_defender_wins_the_opposed_check_and_parries_no_damage():
    # ivan 1d20+4 = 14; orc parries with its sheet's parry skill: 15+2 = 17
    res = run(RS, [ivan(), orc()], [decl("ivan", act(A.ATTACK, "orc", weapon="sabre"))],
              forced=[10, 15])
    parried = one(res, "attack.parried")
    assert parried.rule == "TA-3" and parried.params["total"] == 14
    assert parried.params["defense"] == 17 and "cancelled" in parried.message
    assert hp(res, "orc") == 30 and not find(res, "damage")


def test_ta3_attacker_wins_and_damage_applies():
    res = run(RS, [ivan(), orc()], [decl("ivan", act(A.ATTACK, "orc", weapon="sabre"))],
              forced=[15, 5, 4])
    assert one(res, "attack.hit").rule == "TA-3"
    assert one(res, "damage").params["amount"] == 4 and hp(res, "orc") == 26


def test_ta3_declared_parry_skill_is_used():
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="sabre")),
               decl("orc", act(A.MOVE, parry="shield"))], forced=[15, 14])
    ev = one(res, "attack.parried")          # 15 + 4 = 19 against 14 + shield 6 = 20
    assert ev.params["parry"] == "shield" and ev.params["parry_from"] == "its declared parry"


def test_ta3_defensive_skill_from_last_turn_replaces_the_parry():
    guarded = Condition("defensive", note="shield")
    res = run(RS, [ivan(), orc(conditions=[guarded])],
              [decl("ivan", act(A.ATTACK, "orc", weapon="sabre")),
               decl("orc", act(A.MOVE, parry="axe"))], forced=[10, 9])
    ev = one(res, "attack.parried")          # 14 against 9 + shield 6 = 15
    assert ev.params["parry"] == "shield" and "last turn" in ev.params["parry_from"]


def test_ta3_defend_sets_a_defensive_skill_until_the_next_turn():
    res = run(RS, [ivan(), orc()], [decl("orc", act(A.DEFEND, skill="shield"))])
    orc_after = res.encounter.combatant("orc")
    assert orc_after.condition("defensive").note == "shield"
    nxt = run(RS, res.encounter.combatants, [decl("orc", act(A.MOVE))],
              order=res.encounter.order, round=2)
    assert not nxt.encounter.combatant("orc").has("defensive")
    assert one(nxt, "condition.ended", target="orc").rule == "TA-3"


def test_ta3_tie_goes_to_the_attacker_unless_the_narrator_says_otherwise():
    fight = [ivan(), orc()]
    d = [decl("ivan", act(A.ATTACK, "orc", weapon="sabre"))]
    res = run(RS, fight, d, forced=[10, 12, 3])          # 14 against 14
    assert find(res, "attack.hit")
    res = run(RS, fight, d, forced=[10, 12],
              houserules={"checks": {"opposed_ties": "defender"}})
    assert find(res, "attack.parried")


# -- TA-4 -----------------------------------------------------------------------------------

def test_ta4_missed_shot_at_a_place_lands_in_a_neighbouring_cell():
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, weapon="bow", place="the rope at C4"))], forced=[3])
    ev = one(res, "attack.scattered")
    assert ev.rule == "TA-4" and ev.params["total"] == 5 and ev.params["dc"] == 10
    assert "neighbouring cell" in ev.message and "narrator" in ev.message


def test_ta4_shot_at_an_object_on_target_damages_it():
    barrel = fighter("barrel", init=None, hp=5, is_object=True)
    res = run(RS, [ivan(), orc(), barrel],
              [decl("ivan", act(A.ATTACK, "barrel", weapon="bow"))], forced=[9, 3])
    assert one(res, "check").rule == "TA-4"
    assert hp(res, "barrel") == 2


# -- TA-5 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("category,bonus", [
    ("thrown", 0), ("bow", 10), ("blowpipe", 10), ("crossbow", 10), ("rocket", 20),
    ("firearm", 30), ("beam", 40)])
def test_ta5_weapon_bonus_table(category, bonus):
    gun = Weapon("gun", "1d4", category=category, skill="archery")
    res = run(RS, [ivan(weapons=(gun,)), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="gun"))], forced=[12, 1, 20, 1])
    ev = (find(res, "attack.evaded") + find(res, "attack.hit"))[0]
    assert ev.code == ("attack.hit" if 3 + bonus >= 21 else "attack.evaded")
    assert ev.rule == "TA-5" and ev.params["weapon_bonus"] == bonus
    assert ev.params["total"] == 1 + 2 + bonus          # opposed: d20 + skill + bonus
    assert ev.params["defense"] == 21                    # d20 + Reaction 1


def test_ta5_hit_check_failure_is_a_miss_before_the_opposed_check():
    res = run(RS, [ivan(), orc()], [decl("ivan", act(A.ATTACK, "orc", weapon="bow"))],
              forced=[5])
    ev = one(res, "attack.miss")
    assert ev.rule == "TA-5" and ev.params["total"] == 7 and ev.params["defense"] == 10
    assert len(res.encounter.combatants) == 2 and hp(res, "orc") == 30


def test_ta5_natural_20_before_modifiers_is_a_critical_and_hits():
    # cover -5 and a DC of 30: the total (20 + 2 - 5 = 17) fails, the natural 20 still counts
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="bow", dc=30,
                                situational={"cover": True}))], forced=[20, 15, 2, 6])
    assert one(res, "attack.critical").rule == "TA-5"
    assert one(res, "attack.hit").params["critical"] is True


def test_ta5_high_total_without_natural_20_is_no_critical():
    # 19 + archery 2 + inspiration 3 + mastery 1 = 25: no critical, the natural counts
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="bow", inspiration=3, mastery=1))],
              forced=[19, 15, 2, 6])
    assert not find(res, "attack.critical")
    hit = one(res, "attack.hit")
    assert hit.params["critical"] is False and hit.params["total"] == 15 + 2 + 4 + 10


def test_ta5_unknown_weapon_type_is_refused():
    sling = Weapon("sling", "1d4", category="ranged")
    res = run(RS, [ivan(weapons=(sling,)), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="sling"))])
    assert rejected(res, "TA-5")[0].params["problem"] == "weapon.type"


# -- TA-6 -----------------------------------------------------------------------------------

def test_ta6_modifiers_add_up_and_count_once_on_the_hit_check():
    """TA-6: the table's modifiers are "to accuracy": they add up on the hit check (TA-5),
    and the opposed check adds only the weapon bonus (not the modifiers a second time)."""
    sit = {"above": True, "cover": True, "obstacles": True, "in_melee": True, "size": 2,
           "light": -2}
    # +1 -5 -2 -3 +2 -2 = -9; hit check 19 + archery 2 - 9 = 12 >= 10
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="bow", situational=sit))],
              forced=[19, 10, 5, 3])
    ev = one(res, "attack.hit")
    assert ev.params["situational"] == -9
    hit_check, opposed, reaction = ev.rolls
    assert hit_check.total == 19 + 2 - 9
    # opposed: d20 10 + archery 2 + bow +10 = 22 (with TA-6 again it would be 13)
    assert opposed.total == ev.params["total"] == 10 + 2 + 10
    assert reaction.total == ev.params["defense"] == 5 + 1


def test_ta6_counted_once_decides_an_opposed_check():
    """TA-6 once: cover (-5) on the hit check only. Opposed 4 + archery 2 + bow 10 = 16
    beats the orc's Reaction 14 + 1 = 15; with cover counted twice (11) it would be evaded."""
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="bow", situational={"cover": True}))],
              forced=[15, 4, 14, 3])
    assert one(res, "attack.hit").params["total"] == 16
    assert not find(res, "attack.evaded")


def test_ta6_distance_beyond_ten_times_the_skill_costs_one_per_excess():
    assert situational({"distance": 20}, skill=2) == (0, [])
    assert situational({"distance": 21}, skill=2) == (-1, [])
    assert situational({"distance": 41}, skill=2) == (-2, [])


def test_ta6_every_bad_modifier_is_reported_at_once():
    sit = {"size": 5, "light": -7, "wind": 1}
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="bow", situational=sit))])
    reasons = [e.params["reason"] for e in rejected(res, "TA-6")]
    assert len(reasons) == 3
    assert any("between -3 and +3" in r for r in reasons)
    assert any("'wind'" in r for r in reasons)


def test_ta6_numbers_come_from_the_houserules():
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="bow", situational={"cover": True}))],
              forced=[19, 10, 5, 3], houserules={"situational": {"cover": -1}})
    assert one(res, "attack.hit").params["situational"] == -1


def test_ta_validation_reports_every_problem_at_once():
    enc = Encounter(RS, (ivan(), orc()))
    problems = validate(enc, decl("ivan", act(A.CAST, spell="haste"), act(A.BONUS),
                                  act(A.ATTACK, "orc", weapon="bow",
                                      situational={"size": 9, "light": 2}),
                                  act(A.MOVE), act(A.MOVE), act(A.MOVE)))
    assert [p.rule for p in problems] == ["TA-2", "TA-2", "TA-6", "TA-6", "TA-2"]


def test_pbp2_late_post_forfeits_the_combat_actions_and_parries_with_the_best_skill():
    res = run(RS, [ivan(), orc()],
              [decl("ivan", act(A.ATTACK, "orc", weapon="sabre"), act(A.MOVE), late=True)])
    assert one(res, "latency.penalty").rule == "PBP-2"
    assert one(res, "action.changed").params["action_index"] == 0
    assert "move" in codes(res) and not find(res, "attack.hit") and not find(res, "attack.parried")
    assert res.encounter.combatant("ivan").condition("defensive").note == "fencing"


# -- properties (Hypothesis) ------------------------------------------------------------------

TA_STATS = ("reaction", "reflexos", "fencing", "archery", "parry", "shield", "axe")
PROPS = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

ta_options = st.fixed_dictionaries({}, optional={
    "skill": st.sampled_from(TA_STATS + ("nonsense",)),
    "parry": st.sampled_from(TA_STATS),
    "prepare": st.sampled_from(("fireball", "mist")),
    "spell": st.sampled_from(("fireball", "mist", "")),
    "place": st.sampled_from(("C4", "the rope")),
    "dc": st.integers(-5, 40),
    "ranged": st.booleans(),
    "situational": st.dictionaries(
        st.sampled_from(("above", "size", "distance", "obstacles", "cover", "in_melee",
                         "light", "wind")),
        st.one_of(st.booleans(), st.integers(-8, 200), st.text(max_size=3)), max_size=4),
})


def _fight(data, seed, rounds=2):
    enc = data.draw(encounters(RS, stat_names=TA_STATS))
    start, events = enc, []
    for r in range(rounds):
        res = resolve(enc, data.draw(declarations_with(enc, ta_options)), DiceBox(f"{seed}-{r}"))
        events.extend(res.events)
        enc = res.encounter
    return start, enc, events


@PROPS
@given(st.data())
def test_ta_properties_never_raises_hp_only_through_damage_budgets_kept(data):
    start, end, events = _fight(data, "ta")
    assert_hp_only_through_damage(start, end, events)
    for e in events:
        if e.code == "turn.end":
            b = e.params["budget"]
            assert all(b["spent"].get(s, 0) <= cap for s, cap in b["slots"].items()
                       if cap is not None)
            assert b["spent"].get("action", 0) <= 2                       # TA-2
        if e.code == "action.rejected":
            assert e.rule is None or e.rule.startswith(("TA-", "PBP-", "FD-", "BEY-")) \
                or e.params.get("problem", "").startswith(("target.", "weapon."))
            assert e.params["reason"]


@PROPS
@given(st.data())
def test_ta_properties_same_seed_same_events(data):
    enc = data.draw(encounters(RS, stat_names=TA_STATS))
    decls = data.draw(declarations_with(enc, ta_options))
    assert_same_seed_same_events(enc, decls)


JUNK = junk_options(("c0", "c1", "fireball", "belt", "archery"))
TA_OPTIONS = ("skill", "parry", "prepare", "spell", "place", "dc", "ranged", "situational", "item",
              "stowed")


@PROPS
@given(st.data())
def test_ta_properties_junk_options_are_refused_never_raise(data):
    enc = data.draw(encounters(RS, stat_names=TA_STATS))
    assert_junk_is_refused(data, enc, lambda e: junk_round(e, TA_OPTIONS, JUNK))



def test_two_action_scenario_sheets_take_the_campaigns_own_skills():
    """Skills/Characteristics are free-form in this ruleset: a scenario sheet may name any."""
    from pbp.scenario_files import loads

    text = ("ruleset: two-action\ncombatants:\n  - key: a\n    stats: {Reaction: 2, Rapier: 4, Herbalism: 1}\n"
            "  - key: b\n    side: foes\n")
    stats = loads(text).encounter.combatant("a").stats
    assert set(stats) >= {"rapier", "herbalism"}

# The golden scenario (examples/two-action.yaml) is checked in tests/rules/test_golden.py,
# pbp/config/rulesets/two-action.toml against the class defaults in tests/rules/test_engine.py.


# -- the ruleset's bookkeeping ----------------------------------------------------------------

def test_every_ta_rule_id_is_named_by_a_test_here():
    assert_rule_ids_named_here("TA", 6, "two-action", __file__)
