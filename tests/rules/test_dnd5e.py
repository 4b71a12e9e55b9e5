"""dnd5e (DND-1..DND-7): every rule with forced dice."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.dice import DiceBox
from pbp.rules.engine import resolve, validate
from pbp.rules.model import Condition, Encounter, Weapon
from pbp.rules.registry import get

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

RS = "dnd5e"
RAPIER = Weapon("rapier", "1d8+3", skill="attack")


def aria(**kw):
    kw.setdefault("stats", {"dex": 16, "armor": 14, "speed": 30, "attack": 5})
    kw.setdefault("weapons", (RAPIER,))
    return fighter("aria", player="p1", init=kw.pop("init", 20), **kw)


def goblin(n: int, **kw):
    c = fighter(f"goblin-{n}", side="monsters", init=kw.pop("init", 5),
                stats=kw.pop("stats", {"dex": 14, "armor": 15, "attack": 4}),
                weapons=(Weapon("scimitar", "1d6+2", skill="attack"),), **kw)
    return c.__class__(**{**c.__dict__, "name": f"Goblin {n}"})


# -- DND-1 ----------------------------------------------------------------------------------

def test_dnd1_surprise_then_initiative_then_turns_in_order_then_next_round_same_order():
    res = run(RS, [aria(init=None), goblin(1, init=None)],
              [decl("goblin-1", act(A.MOVE, distance=5)), decl("aria", act(A.MOVE))],
              forced=[5, 15], surprised=("aria",))
    seq = codes(res)
    assert seq.index("initiative.order") < seq.index("surprise") < seq.index("turn.start")
    assert res.encounter.order == ("goblin-1", "aria")
    turns = [e.actor for e in find(res, "turn.start")]
    assert turns == ["goblin-1", "aria"]
    assert one(res, "action.rejected", actor="aria").rule == "DND-2"
    nxt = run(RS, res.encounter.combatants,
              [decl("aria", act(A.MOVE)), decl("goblin-1", act(A.MOVE, distance=5))],
              order=res.encounter.order, round=res.encounter.round)
    assert nxt.encounter.round == 3 and not find(nxt, "initiative.rolled")
    assert [e.actor for e in find(nxt, "turn.start")] == ["goblin-1", "aria"]


# -- DND-2 ----------------------------------------------------------------------------------

def test_dnd2_surprised_creature_cannot_move_act_or_react_on_its_first_turn():
    res = run(RS, [aria(), goblin(1), goblin(2)],
              [decl("goblin-1", act(A.ATTACK, "aria"), act(A.MOVE, distance=5),
                    act(A.REACTION, "aria", weapon="scimitar")),
               decl("goblin-2", act(A.ATTACK, "aria"))],
              forced=[2, 1], surprised=("goblin-1",))
    refused = rejected(res, "DND-2")
    assert len(refused) == 3 and all(e.actor == "goblin-1" for e in refused)
    assert any("react" in e.params["reason"] for e in refused)
    # surprise is per creature: goblin-2 attacks normally
    assert one(res, "attack.miss", actor="goblin-2")
    assert one(res, "surprise.over", actor="goblin-1").rule == "DND-2"
    assert res.encounter.surprised == ()


def test_dnd2_surprise_ends_after_the_first_turn_even_without_a_declaration():
    res = run(RS, [aria(), goblin(1)], [], surprised=("goblin-1",))
    assert res.encounter.surprised == ()
    nxt = run(RS, res.encounter.combatants, [decl("goblin-1", act(A.ATTACK, "aria"))],
              order=res.encounter.order, round=2, forced=[1])
    assert not rejected(nxt)


# -- DND-3 ----------------------------------------------------------------------------------

def test_dnd3_initiative_is_d20_plus_dex_modifier():
    rs = get(RS)
    assert rs.initiative_expression(aria()) == "1d20+3"              # Dex 16
    assert rs.initiative_expression(fighter("x", stats={"dex_mod": -1})) == "1d20-1"
    res = run(RS, [aria(init=None)], [], forced=[11])
    assert one(res, "initiative.rolled").params["value"] == 14


def test_dnd3_one_roll_for_a_group_of_identical_creatures():
    res = run(RS, [aria(init=None), goblin(1, init=None), goblin(2, init=None)], [],
              forced=[10, 7, 19])
    rolled = {e.actor: e for e in find(res, "initiative.rolled")}
    assert rolled["goblin-1"].params["value"] == rolled["goblin-2"].params["value"] == 9
    assert rolled["goblin-2"].params["shared_with"] == "goblin-1"
    assert rolled["goblin-2"].rolls == ()
    assert sum(len(e.rolls) for e in find(res, "initiative.rolled")) == 2
    assert not find(res, "initiative.tie")          # a group acts together, no tie
    assert res.encounter.order == ("aria", "goblin-1", "goblin-2")


def test_dnd3_different_creatures_and_player_characters_roll_alone():
    boss = goblin(3, init=None, stats={"dex": 14, "armor": 17, "attack": 6})
    twin = fighter("bram", player="p2", init=None, stats=dict(aria().stats))
    twin2 = fighter("bram-2", player="p2", init=None, stats=dict(aria().stats))
    res = run(RS, [goblin(1, init=None), boss, twin, twin2], [], forced=[7, 8, 9, 10])
    assert [e.params["value"] for e in find(res, "initiative.rolled")] == [9, 10, 12, 13]


def test_dnd3_ties_are_the_narrators_call_by_default():
    res = run(RS, [aria(init=None), goblin(1, init=None, stats={"dex": 16, "armor": 15})], [],
              forced=[10, 10])
    tie = one(res, "initiative.tie")
    assert tie.rule == "DND-3" and "narrator may reorder" in tie.message
    assert res.encounter.order == ("aria", "goblin-1")


def test_dnd3_ties_between_one_players_characters_are_that_players_call():
    a = fighter("a", player="p1", init=None, stats={"dex": 12})
    b = fighter("b", player="p1", init=None, stats={"dex": 12})
    res = run(RS, [a, b], [], forced=[9, 9])
    assert "p1 may swap" in one(res, "initiative.tie").message


def test_dnd3_roll_off_policy_and_a_group_rolls_off_as_one():
    res = run(RS, [aria(init=None, stats={"dex": 14}), goblin(1, init=None),
                   goblin(2, init=None)], [], forced=[10, 10, 4, 15],
              houserules={"initiative": {"ties": "roll-off"}})
    offs = find(res, "initiative.rolloff")
    assert len(offs) == 2 and {e.rule for e in offs} == {"DND-3"}
    assert res.encounter.order == ("goblin-1", "goblin-2", "aria")


def test_dnd3_delay_is_refused_the_order_is_fixed():
    res = run(RS, [aria(), goblin(1)], [decl("aria", act(A.DELAY))])
    assert rejected(res, "DND-3")[0].params["problem"] == "initiative.fixed"


# -- DND-4 ----------------------------------------------------------------------------------

def test_dnd4_move_before_and_after_the_action_within_speed():
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.MOVE, distance=10), act(A.ATTACK, "goblin-1"),
                    act(A.MOVE, distance=20))], forced=[1])
    assert not rejected(res)
    assert one(res, "turn.end", actor="aria").params["budget"]["spent"]["move"] == 30


def test_dnd4_moving_beyond_speed_and_a_second_action_are_refused():
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.MOVE, distance=25), act(A.ATTACK, "goblin-1"),
                    act(A.CAST, text="fire bolt"), act(A.MOVE, distance=10))], forced=[1])
    refused = rejected(res, "DND-4")
    assert [e.params["action_index"] for e in refused] == [2, 3]
    assert "5 ft left" in refused[1].params["reason"]


def test_dnd4_no_full_round_actions():
    res = run(RS, [aria(), goblin(1)], [decl("aria", act(A.FULL_ROUND, text="charge"))])
    assert rejected(res, "DND-4")


# -- DND-5 ----------------------------------------------------------------------------------

def test_dnd5_bonus_action_needs_a_granting_feature():
    res = run(RS, [aria(), goblin(1)], [decl("aria", act(A.BONUS, text="hide"))])
    assert rejected(res, "DND-5")[0].params["problem"] == "bonus.not-granted"


def test_dnd5_at_most_one_bonus_action_when_granted():
    rogue = aria(abilities=("bonus:Cunning Action",))
    res = run(RS, [rogue, goblin(1)],
              [decl("aria", act(A.BONUS, text="hide", granted_by="cunning action"),
                    act(A.BONUS, text="dash"))])
    refused = rejected(res, "DND-5")
    assert len(refused) == 1 and refused[0].params["action_index"] == 1


def test_dnd5_bonus_action_must_come_from_a_feature_it_has():
    rogue = aria(abilities=("bonus:cunning action",))
    res = run(RS, [rogue, goblin(1)],
              [decl("aria", act(A.BONUS, text="heal", granted_by="healing word"))])
    assert "cunning-action" in rejected(res, "DND-5")[0].params["reason"]


def test_dnd5_what_forbids_actions_forbids_bonus_actions():
    rogue = aria(abilities=("bonus:cunning action",))
    res = run(RS, [rogue, goblin(1)], [decl("aria", act(A.BONUS, text="hide"))],
              surprised=("aria",))
    assert "surprised" in rejected(res, "DND-5")[0].params["reason"]


def test_dnd5_an_incapacitating_condition_forbids_bonus_actions_and_reactions_too():
    rogue = aria(abilities=("bonus:cunning action",), conditions=[Condition("stunned")])
    res = run(RS, [rogue, goblin(1)],
              [decl("aria", act(A.ATTACK, "goblin-1"), act(A.BONUS, text="hide"),
                    act(A.REACTION, text="shield"), act(A.MOVE, distance=10))])
    assert [e.rule for e in rejected(res)] == ["DND-4", "DND-5", "DND-7"]
    assert "stunned" in rejected(res, "DND-5")[0].params["reason"]
    assert find(res, "move", actor="aria")


# -- DND-6 ----------------------------------------------------------------------------------

def test_dnd6_speech_is_free_one_interaction_is_free_second_costs_the_action():
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.FREE, speech=True, text="Halt!"),
                    act(A.FREE, gesture=True, text="points"),
                    act(A.FREE, text="draw the rapier"), act(A.FREE, text="open the door"),
                    act(A.ATTACK, "goblin-1"))])
    changed = one(res, "action.changed")
    assert changed.rule == "DND-6" and changed.params["action_index"] == 3
    assert one(res, "turn.end", actor="aria").params["budget"]["spent"] == {
        "interaction": 1, "action": 1, "free": 2}
    refused = rejected(res)
    assert len(refused) == 1 and refused[0].params["action_index"] == 4
    assert refused[0].rule == "DND-4"


def test_dnd6_narrator_can_make_an_interaction_cost_the_action():
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.FREE, costs_action=True, text="force the stuck door"),
                    act(A.ATTACK, "goblin-1"))])
    assert rejected(res, "DND-4")[0].params["action_index"] == 1


def test_dnd6_second_interaction_after_the_action_is_refused():
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.ATTACK, "goblin-1"), act(A.FREE, text="draw dagger"),
                    act(A.FREE, text="open door"))], forced=[1])
    refused = rejected(res, "DND-6")
    assert len(refused) == 1 and "already used" in refused[0].params["reason"]


# -- DND-7 ----------------------------------------------------------------------------------

def test_dnd7_one_reaction_a_round():
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.REACTION, "goblin-1", weapon="rapier"),
                    act(A.REACTION, text="shield")),
               decl("goblin-1", act(A.MOVE, distance=10, away_from="aria"))], forced=[1])
    refused = rejected(res, "DND-7")
    assert len(refused) == 1 and refused[0].params["action_index"] == 1
    assert one(res, "attack.miss", actor="aria").params["total"] == 1 + 5  # the OA, vs AC 15
    assert res.encounter.combatant("aria").has("reaction-used")


def test_dnd7_opportunity_attack_goes_off_when_the_target_moves_away():
    """DND-7 (002: a reaction is an instant answer to its trigger, on your turn or
    another's; the opportunity attack is the commonest; a creature whose turn it
    interrupted goes on after it): Aria's opportunity attack waits for the goblin to move
    away from her. Her own turn (first, initiative 20) does not carry it out; it
    goes off as the goblin moves, before the move, and the goblin's turn goes on."""
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.REACTION, "goblin-1", weapon="rapier",
                                text="opportunity attack")),
               decl("goblin-1", act(A.MOVE, distance=10, away_from="aria"))],
              forced=[15, 4])
    seq = [(e.code, e.actor) for e in res.events
           if e.code in ("turn.start", "reaction.triggered", "attack.hit", "attack.miss", "move")]
    assert seq == [("turn.start", "aria"), ("turn.start", "goblin-1"),
                   ("reaction.triggered", "aria"), ("attack.hit", "aria"), ("move", "goblin-1")]
    assert one(res, "reaction.triggered").rule == "DND-7"
    assert "opportunity attack" in one(res, "reaction.triggered").message
    assert one(res, "attack.hit").params["total"] == 15 + 5        # against AC 15
    assert hp(res, "goblin-1") == 30 - (4 + 3)                       # rapier 1d8+3
    assert res.encounter.combatant("aria").has("reaction-used")


def test_dnd7_no_trigger_no_opportunity_attack_the_reaction_lapses():
    """DND-7: the goblin attacks and moves without leaving Aria: no trigger, so no
    opportunity attack at all, and she keeps her reaction."""
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.REACTION, "goblin-1", weapon="rapier")),
               decl("goblin-1", act(A.MOVE, distance=5, away_from="bram"),
                    act(A.ATTACK, "aria"))], forced=[2])
    assert not find(res, "reaction.triggered")
    assert one(res, "attack.miss").actor == "goblin-1"               # 2 + 4 against AC 14
    lapsed = one(res, "reaction.lapsed")
    assert lapsed.actor == "aria" and lapsed.rule == "DND-7"
    assert not res.encounter.combatant("aria").has("reaction-used")
    assert hp(res, "goblin-1") == 30


def test_dnd3_readied_action_goes_off_at_its_trigger_and_the_order_stays():
    """DND-3: the initiative order stays the same all combat, so a readied action going
    off does not move Aria; DND-7: it goes off as a reaction when the trigger happens (the
    goblin moves), not when the goblin's turn starts (it attacks first)."""
    ready = act(A.READY, "goblin-1", weapon="rapier",
                trigger={"actor": "goblin-1", "does": "move", "text": "the goblin moves"})
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", ready),
               decl("goblin-1", act(A.ATTACK, "aria"), act(A.MOVE, distance=5))],
              forced=[2, 15, 4])
    seq = [(e.code, e.actor) for e in res.events
           if e.code in ("ready.triggered", "attack.hit", "attack.miss", "move")]
    assert seq == [("attack.miss", "goblin-1"), ("ready.triggered", "aria"),
                   ("attack.hit", "aria"), ("move", "goblin-1")]
    assert "order stays" in one(res, "ready.triggered").message
    assert res.encounter.order == ("aria", "goblin-1")
    assert res.encounter.combatant("aria").initiative == 20
    assert hp(res, "goblin-1") == 30 - (4 + 3)


def test_dnd7_reaction_comes_back_at_the_start_of_your_turn():
    used = Condition("reaction-used")
    res = run(RS, [aria(conditions=[used]), goblin(1)],
              [decl("aria", act(A.REACTION, "goblin-1", weapon="rapier"))], forced=[1])
    assert one(res, "condition.ended", target="aria").rule == "DND-7"
    assert not rejected(res)


def test_dnd7_readied_action_is_a_reaction_refused_when_it_was_used():
    ready = act(A.READY, "goblin-1", weapon="rapier", trigger={"actor": "goblin-1"})
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", ready), decl("goblin-1", act(A.MOVE, distance=5))])
    # fires before the goblin's turn and spends aria's reaction
    assert find(res, "ready.triggered") and res.encounter.combatant("aria").has("reaction-used")
    res2 = run(RS, [aria(), goblin(1)],
               [decl("aria", ready, act(A.REACTION, text="parry")),
                decl("goblin-1", act(A.MOVE, distance=5))])
    refused = rejected(res2, "DND-7")
    assert len(refused) == 1 and "already used its reaction" in refused[0].params["reason"]
    assert not find(res2, "attack.hit") and not find(res2, "attack.miss")


def test_dnd_validation_reports_every_problem_at_once():
    enc = Encounter(RS, (aria(), goblin(1)))
    problems = validate(enc, decl("aria", act(A.ATTACK, "goblin-1"), act(A.CAST, text="x"),
                                  act(A.MOVE, distance=45), act(A.BONUS, text="hide"),
                                  act(A.DELAY), act(A.REACTION), act(A.REACTION)))
    assert [p.rule for p in problems] == ["DND-4", "DND-4", "DND-5", "DND-3", "DND-7"]
    assert all(p.message for p in problems)


# -- PBP ------------------------------------------------------------------------------------

def test_pbp3_dnd5e_brief_speech_limit_defaults_to_three():
    assert get(RS).speech_limit == 3
    assert get(RS, {"speech_limit": 5}).speech_limit == 5


def test_pbp2_late_post_loses_the_action_and_dodges_unless_waived():
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.ATTACK, "goblin-1"), act(A.MOVE, distance=10), late=True),
               decl("goblin-1", act(A.ATTACK, "aria"))], forced=[19, 3])
    assert one(res, "latency.penalty").rule == "PBP-2" and hp(res, "goblin-1") == 30
    assert find(res, "move", actor="aria")                       # the move stands
    miss = one(res, "attack.miss", actor="goblin-1")             # Dodge: disadvantage
    assert miss.rolls[0].expression == "2d20kl1" and miss.params["total"] == 3 + 4
    res = run(RS, [aria(), goblin(1)],
              [decl("aria", act(A.ATTACK, "goblin-1"), late=True, penalty_waived=True)],
              forced=[15, 1])
    assert find(res, "attack.hit")


# -- properties (Hypothesis) ------------------------------------------------------------------

DND_STATS = ("dex", "dex_mod", "str", "armor", "speed", "attack", "proficiency")
PROPS = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

dnd_options = st.fixed_dictionaries({}, optional={
    "distance": st.one_of(st.integers(-5, 80), st.none(), st.just("far")),
    "speech": st.booleans(),
    "gesture": st.booleans(),
    "granted_by": st.sampled_from(("cunning action", "healing word", "")),
    "attack": st.booleans(),
})


@st.composite
def dnd_fight(draw):
    enc = draw(encounters(RS, stat_names=DND_STATS))
    cs = []
    for c in enc.combatants:
        extra = tuple(draw(st.lists(st.sampled_from(("bonus:cunning action", "bonus:rage")),
                                    unique=True, max_size=2)))
        conds = c.conditions + ((Condition("reaction-used"),) if draw(st.booleans()) else ())
        cs.append(dataclasses.replace(c, abilities=c.abilities + extra, conditions=conds))
    return dataclasses.replace(enc, combatants=tuple(cs))


@PROPS
@given(st.data())
def test_dnd_properties_never_raises_hp_only_through_damage_budgets_kept(data):
    enc = start = data.draw(dnd_fight())
    events = []
    for r in range(2):
        res = resolve(enc, data.draw(declarations_with(enc, dnd_options)), DiceBox(f"dnd-{r}"))
        events.extend(res.events)
        enc = res.encounter
    assert_hp_only_through_damage(start, enc, events)
    for e in events:
        if e.code == "turn.end":
            b = e.params["budget"]
            assert all(b["spent"].get(s, 0) <= cap for s, cap in b["slots"].items()
                       if cap is not None)
            assert b["spent"].get("action", 0) <= 1 and b["spent"].get("bonus", 0) <= 1
            assert b["spent"].get("reaction", 0) <= 1
        if e.code == "action.rejected":
            assert e.params["reason"]


@PROPS
@given(st.data())
def test_dnd_properties_same_seed_same_events(data):
    enc = data.draw(dnd_fight())
    decls = data.draw(declarations_with(enc, dnd_options))
    assert_same_seed_same_events(enc, decls)


JUNK = junk_options(("c0", "c1", "cunning action", "far"))
DND_OPTIONS = ("distance", "speech", "gesture", "granted_by", "costs_action", "attack", "trigger",
               "action", "after", "until")


@PROPS
@given(st.data())
def test_dnd_properties_junk_options_are_refused_never_raise(data):
    enc = data.draw(dnd_fight())
    assert_junk_is_refused(data, enc, lambda e: junk_round(e, DND_OPTIONS, JUNK))


# The golden scenario (examples/dnd5e.yaml) is checked in tests/rules/test_golden.py,
# pbp/config/rulesets/dnd5e.toml against the class defaults in tests/rules/test_engine.py.


# -- the ruleset's bookkeeping ----------------------------------------------------------------

def test_every_dnd_rule_id_is_named_by_a_test_here():
    assert_rule_ids_named_here("DND", 7, "dnd5e", __file__)
