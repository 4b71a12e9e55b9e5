"""forum-d20, rule by rule (RULES.md FD-1..FD-19; source 001_*.txt).

Dice are forced: with initiative fixed on the sheet, a melee attack rolls
[attack d20, defense d20, damage dice...] in that order.
"""

from __future__ import annotations

import pytest

from pbp.render import event_text
from pbp.render.view import EventLine
from pbp.rules import conditions as C
from pbp.rules.model import Condition, Weapon
from pbp.rules.objects import make_object, object_dc, object_hp
from pbp.rules.registry import get

from .helpers import A, act, decl, fighter, find, hp, mods, one, rejected, run

FD = "forum-d20"
SWORD = Weapon("sword", "1d8", threat=19, multiplier=2)
AXE = Weapon("axe", "1d8", threat=20, multiplier=3)
BOW = Weapon("bow", "1d6", category="bow")


def hero(**kw):
    stats = {"luta": 5, "pontaria": 4, "level": 4, "str_mod": 3, "dex_mod": 2}
    stats.update(kw.pop("stats", {}))
    return fighter("hero", init=kw.pop("init", 20), stats=stats,
                   weapons=kw.pop("weapons", (SWORD, BOW)), **kw)


def orc(**kw):
    stats = {"luta": 3, "fortitude": 2, "reflexos": 1, "will": 0, "armor": 2}
    stats.update(kw.pop("stats", {}))
    return fighter("orc", init=kw.pop("init", 10), side="enemies", stats=stats,
                   weapons=kw.pop("weapons", (Weapon("club", "1d6"),)), **kw)


# -- FD-1 surprise -------------------------------------------------------------------------

def test_fd_1_surprised_cannot_attack_in_round_1_and_is_flat_footed() -> None:
    """FD-1: a surprised character cannot attack in round 1 and is Flat-footed."""
    res = run(FD, [hero(), orc()], [decl("orc", act(A.ATTACK, "hero")),
                                    decl("hero", act(A.ATTACK, "orc", weapon="sword"))],
              forced=[10, 10, 1], surprised=("orc",))
    assert [e.rule for e in rejected(res)] == ["FD-1"]
    assert res.encounter.combatant("orc").has(C.FLAT_FOOTED)
    defense = one(res, "defense.rolled")
    assert mods(defense)["flat-footed"] == -2
    # round 2: the orc attacks normally; flat-footed ended just before its count (FD-6)
    res2 = run(FD, res.encounter.combatants, [decl("orc", act(A.ATTACK, "hero"))],
               forced=[10, 10, 1], round=2, surprised=("orc",))
    # 10 + Luta 3 = 13 meets the hero's defense roll 10 (no Fortitude, no armor): a hit
    assert not rejected(res2) and one(res2, "attack.hit").params["total"] == 13
    assert hp(res2, "hero") == 30 - 1
    assert not res2.encounter.combatant("orc").has(C.FLAT_FOOTED)


# -- FD-2 latency --------------------------------------------------------------------------

def test_fd_2_late_post_forfeits_combat_action_and_takes_total_defense() -> None:
    """FD-2: late -> the combat action is forfeited, total defense (+4) until the next turn."""
    late = hero(player="p1", init=20)
    res = run(FD, [late, orc()], [decl("hero", act(A.ATTACK, "orc"), act(A.MOVE, distance=3),
                                       late=True),
                                  decl("orc", act(A.ATTACK, "hero"))],
              forced=[10, 10, 1])
    changed = one(res, "action.changed")
    assert changed.rule == "FD-2" and "forfeited" in changed.message
    assert find(res, "move") and not find(res, "attack.hit", actor="hero")
    defense = one(res, "defense.rolled", target="hero")
    assert mods(defense)["total defense"] == 4


def test_fd_2_missing_post_and_waiver_and_roll_penalty_mode() -> None:
    """FD-2: a missing post also takes total defense; the narrator may waive it; a
    roll-penalty houserule replaces it with -N on rolls."""
    res = run(FD, [hero(player="p1"), orc()], [])
    assert one(res, "latency.penalty").rule == "FD-2"
    assert res.encounter.combatant("hero").has(C.DEFENDING)
    waived = run(FD, [hero(player="p1"), orc()],
                 [decl("hero", act(A.ATTACK, "orc"), late=True, penalty_waived=True)],
                 forced=[10, 10, 1])
    assert find(waived, "latency.waived") and not find(waived, "latency.penalty")
    # FD-3: 10 + Luta 5 = 15 meets the orc's 10 + Fortitude 2 + armor 2 = 14: a hit
    hit = one(waived, "attack.hit")
    assert (hit.params["total"], hit.params["defense"]) == (15, 14)
    assert hp(waived, "orc") == 30 - (1 + 4 // 2 + 3)                # FD-7
    penalty = run(FD, [hero(player="p1"), orc()],
                  [decl("hero", act(A.ATTACK, "orc", weapon="sword"), late=True)],
                  forced=[10, 10, 1], houserules={"latency": {"mode": "roll-penalty",
                                                              "penalty": 3}})
    miss = one(penalty, "attack.miss")                               # 15 - 3 = 12 < 14
    assert mods(miss)["late post"] == -3 and miss.params["total"] == 12


# -- FD-3 attack roll meets or exceeds ------------------------------------------------------

@pytest.mark.parametrize("defense_face, hit", [(10, True), (11, False)])
def test_fd_3_attack_hits_when_it_meets_the_defense_roll(defense_face: int, hit: bool) -> None:
    """FD-3: d20 + Luta hits when >= the defense roll (ties hit)."""
    # attack 10 + 5 luta = 15; defense face + fortitude 2 + armor 2 + 1 = 15 or 16
    res = run(FD, [hero(), orc(stats={"fortitude": 3})],
              [decl("hero", act(A.ATTACK, "orc", weapon="sword"))], forced=[10, defense_face, 4])
    event = one(res, "attack.hit" if hit else "attack.miss")
    assert event.params["total"] == 15 and event.rule == "FD-3"
    assert not find(res, "attack.miss" if hit else "attack.hit")
    assert (hp(res, "orc") < 30) is hit


# -- FD-4 defense roll --------------------------------------------------------------------

def test_fd_4_defense_skill_fortitude_vs_melee_reflexes_vs_ranged_will_vs_mental() -> None:
    """FD-4: Fortitude vs melee, Reflexes vs ranged, Will vs mental (no armor unless helmet)."""
    target = orc(stats={"fortitude": 5, "reflexos": 1, "will": 3, "armor": 2})
    melee = run(FD, [hero(), target], [decl("hero", act(A.ATTACK, "orc", weapon="sword"))],
                forced=[10, 10, 1])
    assert one(melee, "defense.rolled").params["total"] == 10 + 5 + 2
    ranged = run(FD, [hero(), target], [decl("hero", act(A.ATTACK, "orc", weapon="bow"))],
                 forced=[10, 10, 1])
    assert one(ranged, "defense.rolled").params["kind"] == "reflexos"
    assert one(ranged, "defense.rolled").params["total"] == 10 + 1 + 2
    mental = run(FD, [hero(), target],
                 [decl("hero", act(A.ATTACK, "orc", weapon="sword", mental=True))],
                 forced=[10, 10, 1])
    assert one(mental, "defense.rolled").params["total"] == 10 + 3
    helmet = run(FD, [hero(), orc(stats={"will": 3, "armor": 2}, abilities=("mental-helmet",))],
                 [decl("hero", act(A.ATTACK, "orc", weapon="sword", mental=True))],
                 forced=[10, 10, 1])
    assert one(helmet, "defense.rolled").params["total"] == 10 + 3 + 2


def test_fd_4_player_rolls_defense_in_next_post_when_narrator_says_so() -> None:
    """FD-4: who rolls a player's defense is the narrator's call; 'player' defers the attack."""
    from pbp.dice import DiceBox

    rules = {"defense_roller": "player"}
    victim = hero(player="p1", init=5)
    res = run(FD, [victim, orc(init=10)], [decl("orc", act(A.ATTACK, "hero")),
                                           decl("hero")], forced=[15], houserules=rules)
    assert one(res, "attack.pending").rule == "FD-4"
    assert hp(res, "hero") == 30 and res.encounter.pending
    posted = DiceBox("p", forced=[3]).roll("1d20+2")  # the player's tag: 5
    res2 = run(FD, res.encounter.combatants,
               [decl("hero", act(A.REACTION, defense=True, rolled=posted))],
               forced=[2], houserules=rules, round=2, order=res.encounter.order,
               pending=res.encounter.pending)
    defense = one(res2, "defense.rolled")
    assert defense.params["total"] == 5  # the posted roll, not a new one
    assert not find(res2, "defense.by-pbp")  # STALL-6: the player's own roll is not marked
    assert find(res2, "attack.hit", actor="orc") and hp(res2, "hero") < 30
    assert not res2.encounter.pending


# -- FD-5 powers ----------------------------------------------------------------------------

def test_fd_5_power_costs_a_move_and_adds_int_to_attack_and_damage() -> None:
    """FD-5: a move action + Control test creates a power lasting INT-mod rounds; +INT to
    attack and damage; a power attack without a power is refused."""
    caster = hero(stats={"controle": 3, "int_mod": 2},
                  weapons=(Weapon("fire fists", "1d6", category="power"),))
    res = run(FD, [caster, orc()],
              [decl("hero", act(A.CAST, power="fire fists"),
                    act(A.ATTACK, "orc", weapon="fire fists"))],
              forced=[8, 10, 5, 4])  # control 8+3=11 >= 10; attack 10; defense 5; damage 4
    created = one(res, "power.created")
    assert created.rule == "FD-5" and created.params["rounds"] == 2
    hit = one(res, "attack.hit")
    assert mods(hit)["power fire fists"] == 2 and hit.params["total"] == 10 + 5 + 2
    # damage = 4 + level 4 // 2 + STR 3 + INT 2 = 11
    assert one(res, "damage").params["amount"] == 11
    assert one(res, "turn.end").params["budget"]["spent"].get("combat") == 1
    refused = run(FD, [caster, orc()], [decl("hero", act(A.ATTACK, "orc", weapon="fire fists"))])
    assert [e.rule for e in rejected(refused)] == ["FD-5"]
    failed = run(FD, [caster, orc()], [decl("hero", act(A.CAST, power="fire fists"))],
                 forced=[2])
    assert one(failed, "power.failed").params["total"] == 5
    assert not failed.encounter.combatant("hero").has(C.POWER)


# -- FD-6 durations -----------------------------------------------------------------------

def test_fd_6_effects_end_just_before_the_count_where_they_began() -> None:
    """FD-6: a 1-round effect begun at count 15 ends in the next round just before count 15."""
    scared = Condition(C.FLAT_FOOTED, rounds=1, started_round=1, started_count=15)
    a = fighter("a", init=20)
    b = fighter("b", init=15)
    c = fighter("c", init=10, conditions=(scared,))
    res = run(FD, [a, b, c], [decl("a", act(A.FREE)), decl("b", act(A.FREE))], round=2)
    seq = [(e.code, e.actor or e.target) for e in res.events
           if e.code in ("turn.start", "condition.ended")]
    assert seq == [("turn.start", "a"), ("condition.ended", "c"), ("turn.start", "b")]
    assert one(res, "condition.ended").rule == "FD-6"
    assert get(FD).round_seconds == 120  # FD-6: about two minutes


# -- FD-7 damage --------------------------------------------------------------------------

def test_fd_7_damage_adds_half_level_and_str_or_dex_and_is_at_least_one() -> None:
    """FD-7: weapon dice + level/2 + STR (melee) or DEX (ranged); a hit deals at least 1."""
    melee = run(FD, [hero(), orc()], [decl("hero", act(A.ATTACK, "orc", weapon="sword"))],
                forced=[15, 2, 5])
    assert one(melee, "damage").params["amount"] == 5 + 2 + 3
    ranged = run(FD, [hero(), orc()], [decl("hero", act(A.ATTACK, "orc", weapon="bow"))],
                 forced=[15, 2, 5])
    assert one(ranged, "damage").params["amount"] == 5 + 2 + 2
    weak = hero(stats={"str_mod": -5, "level": 0})
    res = run(FD, [weak, orc()], [decl("hero", act(A.ATTACK, "orc", weapon="sword"))],
              forced=[15, 2, 1])
    assert one(res, "damage").params["amount"] == 1 and hp(res, "orc") == 29


# -- FD-8 naturals ------------------------------------------------------------------------

def test_fd_8_natural_1_misses_and_natural_20_hits_on_attack_and_defense() -> None:
    """FD-8: natural 1 always misses, 20 always hits; the same for defense rolls."""
    huge = hero(stats={"luta": 40})
    nat1 = run(FD, [huge, orc()], [decl("hero", act(A.ATTACK, "orc", weapon="sword"))],
               forced=[1, 1])
    assert one(nat1, "attack.auto-miss").rule == "FD-8"
    wall = orc(stats={"fortitude": 50})
    nat20 = run(FD, [hero(weapons=(AXE,)), wall], [decl("hero", act(A.ATTACK, "orc", weapon="axe"))],
                forced=[20, 19, 3])
    assert one(nat20, "attack.auto-hit").rule == "FD-8"
    def20 = run(FD, [huge, orc()], [decl("hero", act(A.ATTACK, "orc", weapon="sword"))],
                forced=[15, 20])
    assert one(def20, "attack.miss").rule == "FD-8"
    def1 = run(FD, [hero(stats={"luta": -10}), orc()],
               [decl("hero", act(A.ATTACK, "orc", weapon="sword"))], forced=[2, 1, 3])
    assert one(def1, "attack.hit").rule == "FD-8"


# -- FD-9 criticals -----------------------------------------------------------------------

def test_fd_9_threat_range_and_multiplier_multiply_all_damage() -> None:
    """FD-9: a hit inside the threat range multiplies dice and bonuses by the multiplier."""
    res = run(FD, [hero(weapons=(SWORD, AXE)), orc()],
              [decl("hero", act(A.ATTACK, "orc", weapon="sword"))], forced=[19, 2, 5])
    assert one(res, "attack.critical").params["multiplier"] == 2
    assert one(res, "damage").params["amount"] == (5 + 2 + 3) * 2
    axe = run(FD, [hero(weapons=(AXE,)), orc()],
              [decl("hero", act(A.ATTACK, "orc", weapon="axe"))], forced=[19, 2, 5])
    assert not find(axe, "attack.critical")  # 19 is outside x3 axe's range (20)
    axe20 = run(FD, [hero(weapons=(AXE,)), orc()],
                [decl("hero", act(A.ATTACK, "orc", weapon="axe"))], forced=[20, 2, 5])
    assert one(axe20, "damage").params["amount"] == (5 + 2 + 3) * 3
    missed = run(FD, [hero(stats={"luta": -30}), orc(stats={"fortitude": 10})],
                 [decl("hero", act(A.ATTACK, "orc", weapon="sword"))], forced=[19, 10])
    assert not find(missed, "attack.critical")  # threat only counts on a hit


# -- FD-10 economy ------------------------------------------------------------------------

def test_fd_10_free_slot_becomes_second_move_and_full_action_needs_both() -> None:
    """FD-10: one free + one combat + one move; the free may become a second move; combat +
    move may become one full action; there are no quick actions."""
    res = run(FD, [hero(), orc()],
              [decl("hero", act(A.MOVE, distance=5), act(A.MOVE, distance=5),
                    act(A.MOVE, distance=5), act(A.QUICK))])
    assert one(res, "action.converted").rule == "FD-10"
    assert len(find(res, "move")) == 2
    assert [e.rule for e in rejected(res)] == ["FD-10", "FD-10"]
    full = run(FD, [hero(), orc()], [decl("hero", act(A.FULL_ROUND), act(A.MOVE, distance=3))])
    assert [e.params["problem"] for e in rejected(full)] == ["budget.exceeded"]
    late_full = run(FD, [hero(), orc()], [decl("hero", act(A.MOVE, distance=3),
                                                act(A.FULL_ROUND))])
    assert rejected(late_full, "FD-10")


# -- FD-11 ranged into melee ---------------------------------------------------------------

def test_fd_11_shooting_into_melee_is_minus_4_and_a_natural_1_hits_an_ally() -> None:
    """FD-11: -4 at a target engaged in melee; a natural 1 hits an ally in that melee."""
    engaged = Condition(C.ENGAGED)
    ally = fighter("ally", init=5, conditions=(engaged,))
    res = run(FD, [hero(), ally, orc(conditions=(engaged,))],
              [decl("hero", act(A.ATTACK, "orc", weapon="bow"))], forced=[12, 2, 3])
    assert mods(one(res, "attack.hit"))["shooting into melee"] == -4
    stray = run(FD, [hero(), ally, orc(conditions=(engaged,))],
                [decl("hero", act(A.ATTACK, "orc", weapon="bow"))], forced=[1, 10, 3])
    assert one(stray, "attack.misdirected").target == "ally"
    assert hp(stray, "ally") == 30 - (3 + 2 + 2) and hp(stray, "orc") == 30


# -- FD-12 extra attacks --------------------------------------------------------------------

def test_fd_12_extra_attacks_share_the_combat_action_at_cumulative_minus_4() -> None:
    """FD-12: extra attacks come from the same combat action, each -4 cumulative."""
    fast = hero(stats={"attacks": 3})
    res = run(FD, [fast, orc(hp=200)],
              [decl("hero", *[act(A.ATTACK, "orc", weapon="sword") for _ in range(4)])],
              forced=[10, 5, 1, 10, 5, 1, 10, 5, 1])
    swings = [e for e in res.events if e.code in ("attack.hit", "attack.miss")]
    assert [e.params["total"] for e in swings] == [15, 11, 7]
    # against the orc's defense roll 5 + Fortitude 2 + armor 2 = 9 each time
    assert [e.code for e in swings] == ["attack.hit", "attack.hit", "attack.miss"]
    assert hp(res, "orc") == 200 - 2 * (1 + 4 // 2 + 3)
    assert [e.rule for e in rejected(res)] == ["FD-12"]
    split = run(FD, [fast, orc()], [decl("hero", act(A.ATTACK, "orc"), act(A.MOVE, distance=2),
                                         act(A.ATTACK, "orc"))], forced=[10, 5, 1])
    assert [e.params["problem"] for e in rejected(split)] == ["extra-attack.split"]


# -- FD-13 touch ----------------------------------------------------------------------------

def test_fd_13_touch_attack_is_against_reflexes_without_armor() -> None:
    """FD-13: a touch attack is opposed by the target's Reflexes test, armor ignored."""
    res = run(FD, [hero(), orc(stats={"reflexos": 1, "fortitude": 6, "armor": 5})],
              [decl("hero", act(A.ATTACK, "orc", weapon="sword", touch=True))],
              forced=[10, 10, 1])
    defense = one(res, "defense.rolled")
    assert defense.rule == "FD-13" and defense.params["kind"] == "reflexos"
    assert defense.params["total"] == 11


# -- FD-14 maneuvers ------------------------------------------------------------------------

def test_fd_14_trip_grapple_push_and_ties_to_the_defender() -> None:
    """FD-14: opposed Luta; trip -> prone, grapple -> grappled (-2 attack, flat-footed, no
    move), push 1.5 m + 1.5 m per 5 points; ties go to the defender by default."""
    trip = run(FD, [hero(), orc()], [decl("hero", act(A.MANEUVER, "orc", maneuver="trip"))],
               forced=[10, 5])
    assert one(trip, "maneuver.won").rule == "FD-14"
    assert trip.encounter.combatant("orc").has(C.PRONE)
    tie = run(FD, [hero(), orc()], [decl("hero", act(A.MANEUVER, "orc", maneuver="trip"))],
              forced=[10, 12])  # 15 vs 15
    assert find(tie, "maneuver.lost") and not tie.encounter.combatant("orc").has(C.PRONE)
    push = run(FD, [hero(), orc()], [decl("hero", act(A.MANEUVER, "orc", maneuver="push"))],
               forced=[20, 1])  # 25 vs 4: margin 21 -> 1.5 + 4 * 1.5
    assert one(push, "maneuver.push").params["distance"] == 7.5
    grab = run(FD, [hero(), orc()], [decl("hero", act(A.MANEUVER, "orc", maneuver="grapple"))],
               forced=[15, 2])
    held = grab.encounter.combatant("orc")
    assert held.has(C.GRAPPLED) and grab.encounter.combatant("hero").has(C.GRAPPLING)
    after = run(FD, grab.encounter.combatants,
                [decl("orc", act(A.MOVE, distance=3), act(A.ATTACK, "hero"))],
                forced=[10, 10, 1], round=2)
    assert rejected(after, "FD-14")
    swing = one(after, "attack.miss")      # 10 + Luta 3 - 2 - 2 = 9 against the hero's 10
    assert mods(swing)["grappled"] == -2 and mods(swing)["flat-footed"] == -2


def test_fd_14_feint_leaves_the_target_flat_footed_against_the_next_attack() -> None:
    """FD-14: Deception (free) vs the target's initiative: flat-footed vs your next attack."""
    res = run(FD, [hero(stats={"enganacao": 5}), orc(init=10)],
              [decl("hero", act(A.MANEUVER, "orc", maneuver="feint"),
                    act(A.ATTACK, "orc", weapon="sword"))], forced=[10, 10, 10, 1])
    assert one(res, "maneuver.won").params["opposed"] == 10
    defense = one(res, "defense.rolled")
    assert mods(defense)["flat-footed (feint)"] == -2
    assert not res.encounter.combatant("orc").has(C.FEINTED)  # used up
    assert one(res, "turn.end").params["budget"]["spent"].get("combat") == 1  # feint is free


def test_fd_14_ready_goes_off_before_the_trigger_and_takes_its_count() -> None:
    """FD-14: a readied action fires as a reaction before the trigger's turn; the readier's
    initiative becomes that count."""
    res = run(FD, [hero(init=20), orc(init=10)],
              [decl("hero", act(A.READY, trigger={"actor": "orc"},
                                action={"kind": "attack", "target": "orc", "weapon": "sword"})),
               decl("orc", act(A.MOVE, distance=3))], forced=[10, 1, 1])
    seq = [e.code for e in res.events if e.code in ("ready", "ready.triggered", "attack.hit",
                                                     "attack.miss", "move")]
    assert seq[:3] == ["ready", "ready.triggered", "attack.hit"] and seq[-1] == "move"
    assert res.encounter.combatant("hero").initiative == 10
    assert res.encounter.order.index("hero") < res.encounter.order.index("orc")


def test_fd_14_ready_goes_off_when_its_trigger_happens_not_at_the_turn_start() -> None:
    """FD-14 ("say the action and in which circumstances ... as a reaction to those
    circumstances"): readied for the orc's attack, the shot waits through the orc's move
    and goes off just before the attack; "your initiative becomes the count at which you
    made the readied action": the orc's count, 10."""
    sword = {"kind": "attack", "target": "orc", "weapon": "sword"}
    res = run(FD, [hero(init=20), orc(init=10)],
              [decl("hero", act(A.READY, trigger={"actor": "orc", "does": "attack"},
                                action=sword)),
               decl("orc", act(A.MOVE, distance=3), act(A.ATTACK, "hero"))],
              forced=[10, 5, 4, 2, 10])
    seq = [(e.code, e.actor) for e in res.events
           if e.code in ("turn.start", "ready.triggered", "attack.hit", "attack.miss", "move")]
    assert seq == [("turn.start", "hero"), ("turn.start", "orc"), ("move", "orc"),
                   ("ready.triggered", "hero"), ("attack.hit", "hero"), ("attack.miss", "orc")]
    # hero: 10 + Luta 5 = 15 against the orc's 5 + Fortitude 2 + armor 2 = 9
    assert one(res, "attack.hit").params["total"] == 15
    assert hp(res, "orc") == 30 - (4 + 4 // 2 + 3)                  # FD-7: 1d8 + level/2 + STR
    assert one(res, "ready.triggered").params["count"] == "10"
    assert res.encounter.combatant("hero").initiative == 10
    assert res.encounter.order == ("hero", "orc")


def test_fd_14_a_trigger_that_never_happens_sets_nothing_off_and_the_order_stays() -> None:
    """FD-14: readied for the orc's attack, and the orc only moves: nothing goes off, the
    hero keeps initiative 20, and the readied action waits (until the hero's next turn)."""
    sword = {"kind": "attack", "target": "orc", "weapon": "sword"}
    res = run(FD, [hero(init=20), orc(init=10)],
              [decl("hero", act(A.READY, trigger={"actor": "orc", "does": "attack"},
                                action=sword)),
               decl("orc", act(A.MOVE, distance=3))])
    assert not find(res, "ready.triggered") and hp(res, "orc") == 30
    assert res.encounter.combatant("hero").initiative == 20
    assert res.encounter.readied["hero"].trigger.does == "attack"
    nxt = run(FD, res.encounter.combatants,
              [decl("hero", act(A.FREE)), decl("orc", act(A.ATTACK, "hero"))], round=2,
              readied=res.encounter.readied, order=res.encounter.order, forced=[2, 10])
    assert one(nxt, "ready.lapsed").actor == "hero"                 # at the hero's next turn
    assert not find(nxt, "ready.triggered") and not nxt.encounter.readied


def test_fd_14_ready_can_go_off_in_the_next_round_before_the_readiers_turn() -> None:
    """FD-14: the readied action may be used "at any moment before your next turn": readied
    in round 1 after the orc acted, it goes off at the orc's attack in round 2."""
    sword = {"kind": "attack", "target": "orc", "weapon": "sword"}
    res = run(FD, [hero(init=5), orc(init=10)],
              [decl("hero", act(A.READY, trigger={"actor": "orc", "does": "attack"},
                                action=sword)),
               decl("orc", act(A.FREE, text="shouts"))])
    assert not find(res, "ready.triggered") and res.encounter.readied
    nxt = run(FD, res.encounter.combatants,
              [decl("hero", act(A.FREE)), decl("orc", act(A.ATTACK, "hero"))], round=2,
              readied=res.encounter.readied, order=res.encounter.order,
              forced=[10, 5, 4, 2, 10])
    assert one(nxt, "ready.triggered").params["count"] == "10"
    assert one(nxt, "attack.hit").actor == "hero" and hp(nxt, "orc") == 30 - 9
    assert nxt.encounter.combatant("hero").initiative == 10
    assert nxt.encounter.order.index("hero") < nxt.encounter.order.index("orc")


def test_fd_14_what_a_ready_carries_out_must_be_an_action() -> None:
    """FD-14: "say the action you will attempt": an unreadable one is refused at once, with
    the reason naming what is wrong, instead of failing when the trigger comes."""
    res = run(FD, [hero(), orc()],
              [decl("hero", act(A.READY, trigger={"actor": "orc"}, action={"kind": "sing"}))])
    refused = rejected(res)
    assert len(refused) == 1 and refused[0].params["problem"] == "effect.unreadable"
    assert refused[0].rule == "FD-14" and "sing" in refused[0].params["reason"]
    assert not res.encounter.readied


def test_fd_14_a_trigger_must_say_a_known_kind_of_action() -> None:
    """FD-14: an unknown circumstance is refused with its reason, naming it."""
    res = run(FD, [hero(), orc()],
              [decl("hero", act(A.READY, trigger={"actor": "orc", "does": "sneezes"},
                                action={"kind": "attack", "target": "orc"}))])
    refused = rejected(res, "FD-14")
    assert len(refused) == 1 and "sneezes" in refused[0].params["reason"]


# -- FD-15 move actions ---------------------------------------------------------------------

def test_fd_15_move_is_9m_plus_dex_and_standing_or_drawing_can_be_free() -> None:
    """FD-15: move 9 m + 1 m per DEX mod; stand up free with Acrobatics; draw free with
    Quick Draw."""
    far = run(FD, [hero(), orc()], [decl("hero", act(A.MOVE, distance=12))])
    assert rejected(far, "FD-15")[0].params["speed"] == 11
    ok = run(FD, [hero(), orc()], [decl("hero", act(A.MOVE, distance=11))])
    assert not rejected(ok)
    nimble = hero(stats={"acrobacia": 2}, abilities=("quick-draw",),
                  conditions=(Condition(C.PRONE),))
    res = run(FD, [nimble, orc()], [decl("hero", act(A.MOVE, move="stand"),
                                         act(A.MOVE, move="draw"), act(A.MOVE, distance=10),
                                         act(A.MOVE, distance=10))])
    assert not rejected(res) and not res.encounter.combatant("hero").has(C.PRONE)
    clumsy = run(FD, [hero(conditions=(Condition(C.PRONE),)), orc()],
                 [decl("hero", act(A.MOVE, move="stand"), act(A.MOVE, move="draw"),
                       act(A.MOVE, distance=3))])
    assert len(rejected(clumsy, "FD-10")) == 1  # stand + draw used move and the free slot


# -- FD-16 delay ----------------------------------------------------------------------------

def test_fd_16_delay_floor_ties_by_bonus_and_new_initiative() -> None:
    """FD-16: delay down to -10 below the bonus at most ("a +3 initiative bonus may wait
    until count -13"); delayers at one count: higher bonus first; the new count is the
    initiative for the rest of combat."""
    a = fighter("a", init=20, stats={"initiative": 3})
    b = fighter("b", init=18, stats={"initiative": 6})
    c = fighter("c", init=5)
    res = run(FD, [a, b, c], [decl("a", act(A.DELAY, until=2), act(A.FREE, text="a acts")),
                              decl("b", act(A.DELAY, until=2), act(A.FREE, text="b acts")),
                              decl("c", act(A.FREE))])
    starts = [e.actor for e in res.events if e.code == "turn.start"]
    assert starts == ["a", "b", "c", "b", "a"]
    assert res.encounter.combatant("a").initiative == 2
    floor = run(FD, [a, c], [decl("a", act(A.DELAY, until=-30), act(A.FREE))])
    assert one(floor, "action.changed").rule == "FD-16"
    assert floor.encounter.combatant("a").initiative == -13  # the source's own example
    exact = run(FD, [a, c], [decl("a", act(A.DELAY, until=-13), act(A.FREE))])
    assert not find(exact, "action.changed") and one(exact, "delay").params["count"] == "-13"
    slow = fighter("s", init=4, stats={"initiative": -2})              # -10 - (-2) = -8
    low = run(FD, [slow, c], [decl("s", act(A.DELAY, until=-9), act(A.FREE))])
    assert low.encounter.combatant("s").initiative == -8


# -- FD-17 speech limit ---------------------------------------------------------------------

def test_fd_17_three_speeches_by_default_and_spoken_spells_are_not_free() -> None:
    """FD-17: the engine exposes the limit (3 by default, a houserule may change it);
    a spell spoken aloud is not a free action."""
    assert get(FD).speech_limit == 3
    assert get(FD, {"speech_limit": 5}).speech_limit == 5
    assert get(FD, {"speech_limit": 0}).speech_limit is None
    res = run(FD, [hero(), orc()], [decl("hero", act(A.FREE, spell=True, text="Fireball!"))])
    assert rejected(res, "FD-17")
    assert one(res, "round.start").params["speech_limit"] == 3


# -- FD-18 conditions -----------------------------------------------------------------------

@pytest.mark.parametrize("cond, weapon, expected", [
    (C.PRONE, "sword", {"prone": -4}),
    (C.PRONE, "bow", {"prone": 4}),
    (C.COVER, "bow", {"cover": 4}),
    (C.COVER, "sword", {}),
    (C.BLINDED, "sword", {"blinded": -4}),
    (C.HIGHER_GROUND, "sword", {"higher ground": 1}),
    (C.FLAT_FOOTED, "sword", {"flat-footed": -2}),
])
def test_fd_18_defense_modifiers(cond: str, weapon: str, expected: dict[str, int]) -> None:
    """FD-18: Prone -4 (+4 vs ranged), Cover +4 vs ranged, Blinded -4, Higher ground +1,
    Flat-footed -2 on the defense roll."""
    target = orc(conditions=(Condition(cond, value=1 if cond == C.BLINDED else 0),))
    res = run(FD, [hero(), target], [decl("hero", act(A.ATTACK, "orc", weapon=weapon))],
              forced=[10, 10, 1], houserules={"conditions": {"auto_recovery": False}})
    got = {k: v for k, v in mods(one(res, "defense.rolled")).items()
           if k not in ("fortitude", "reflexos", "armor")}
    assert got == expected


def test_fd_18_flanked_frightened_fatigued() -> None:
    """FD-18: Flanked -2 and -1 per extra enemy; Frightened -2 only against the source;
    Fatigued minus its CON-mod value on tests."""
    flanked = orc(conditions=(Condition(C.FLANKED, value=3),))
    res = run(FD, [hero(), flanked], [decl("hero", act(A.ATTACK, "orc"))], forced=[10, 10, 1])
    assert mods(one(res, "defense.rolled"))["flanked"] == -4
    scared = hero(conditions=(Condition(C.FRIGHTENED, source="orc"),))
    other = fighter("imp", init=1, side="enemies")
    vs_source = run(FD, [scared, orc(), other], [decl("hero", act(A.ATTACK, "orc"),)],
                    forced=[10, 10, 1])
    # 10 + Luta 5 - 2 = 13 against the orc's 10 + Fortitude 2 + armor 2 = 14
    assert mods(one(vs_source, "attack.miss"))["frightened"] == -2
    vs_other = run(FD, [scared, orc(), other], [decl("hero", act(A.ATTACK, "imp"))],
                   forced=[10, 10, 1])
    swing = one(vs_other, "attack.hit")    # 15 against the imp's bare 10
    assert "frightened" not in mods(swing)
    tired = hero(conditions=(Condition(C.FATIGUED, value=2),))
    res = run(FD, [tired, orc()], [decl("hero", act(A.ATTACK, "orc"))], forced=[5, 10, 10, 1],
              houserules={"conditions": {"recovery_dc": 30}})
    assert one(res, "check").params["result"] == "failure"
    swing = one(res, "attack.miss")        # 10 + 5 - 2 = 13 against 14
    assert mods(swing)["fatigued"] == -2


@pytest.mark.parametrize("cond, value, natural, misses", [
    (C.CONCEALED, 20, 8, True), (C.CONCEALED, 20, 13, True), (C.CONCEALED, 20, 10, False),
    (C.INVISIBLE, 0, 14, True), (C.INVISIBLE, 0, 15, False),
])
def test_fd_18_concealment_miss_chances(cond: str, value: int, natural: int,
                                        misses: bool) -> None:
    """FD-18: 20% concealment misses on natural 8, 9, 12, 13; invisible (50%) on even."""
    target = orc(conditions=(Condition(cond, value=value),), stats={"fortitude": -20})
    res = run(FD, [hero(weapons=(AXE,)), target],
              [decl("hero", act(A.ATTACK, "orc", weapon="axe"))], forced=[natural, 2, 3])
    assert bool(find(res, "attack.miss-chance")) is misses
    assert (hp(res, "orc") == 30) is misses


def test_fd_18_blinded_attacker_hits_only_on_odd_and_fortitude_ends_it() -> None:
    """FD-18: Blinded hits only on an odd natural roll; a Fortitude test ends it."""
    blind = hero(conditions=(Condition(C.BLINDED),), stats={"fortitude": 0}, weapons=(AXE,))
    res = run(FD, [blind, orc(stats={"fortitude": -20})],
              [decl("hero", act(A.ATTACK, "orc", weapon="axe"))], forced=[3, 12, 2, 3])
    assert one(res, "check").params["result"] == "failure"  # 3 < 15: still blind
    assert one(res, "attack.miss-chance").rule == "FD-18"
    cured = run(FD, [blind, orc()], [decl("hero")], forced=[18])
    assert not cured.encounter.combatant("hero").has(C.BLINDED)


# -- FD-19 objects --------------------------------------------------------------------------

def test_fd_19_objects_have_a_fixed_dc_and_size_based_hp() -> None:
    """FD-19: DC 15 still / 20 moving + material + size; HP 50 + 10 x size mod."""
    assert object_dc("large", 2) == 20 and object_dc("tiny", 0, moving=True) == 17
    assert object_hp("colossal") == 170 and object_hp("tiny") == 20 and object_hp("médio") == 50
    door = make_object("door", "Door", size="medium", material=3, reduction=2)
    res = run(FD, [hero(), door], [decl("hero", act(A.ATTACK, "door", weapon="sword"))],
              forced=[13, 6])
    hit = one(res, "attack.hit")
    assert hit.params["defense"] == 18 and hit.rule == "FD-19"
    assert not find(res, "defense.rolled")  # no roll for an object
    assert hp(res, "door") == 50 - (6 + 2 + 3 - 2)
    assert "door" not in res.encounter.order  # objects take no turns
    miss = run(FD, [hero(), door], [decl("hero", act(A.ATTACK, "door"))], forced=[12])
    assert find(miss, "attack.miss")


def test_fd_3_bonuses_from_powers_or_items_add_to_a_posted_roll() -> None:
    """FD-3: d20 + skill + bonuses from powers or items; a posted roll (PBP-4) already
    holds the skill, so only the bonus is added on top."""
    from pbp.dice import DiceBox

    posted = DiceBox("p", forced=[9]).roll("1d20+5")
    res = run(FD, [hero(), orc()], [decl("hero", act(A.ATTACK, "orc", weapon="sword",
                                                     bonus=2, rolled=posted))],
              forced=[1, 1])
    assert one(res, "attack.hit").params["total"] == 14 + 2


def test_fd_14_an_unused_readied_action_lapses_at_the_next_turn() -> None:
    """FD-14: not used before your next turn, the readied action is lost."""
    res = run(FD, [hero(init=20), orc(init=10)],
              [decl("hero", act(A.READY, trigger={"actor": "imp"},
                                action={"kind": "attack", "target": "orc"}))])
    assert rejected(res, "FD-14")  # 'imp' is nobody: a trigger must name a combatant
    res = run(FD, [hero(init=20), orc(init=10), fighter("imp", init=1, hp=0, down=True)],
              [decl("hero", act(A.READY, trigger={"actor": "imp"},
                                action={"kind": "attack", "target": "orc"}))])
    assert res.encounter.readied
    nxt = run(FD, res.encounter.combatants, [decl("hero", act(A.FREE))], round=2,
              readied=res.encounter.readied, order=res.encounter.order)
    assert one(nxt, "ready.lapsed").rule == "FD-14" and not nxt.encounter.readied


def test_fd_18_frightened_lasts_the_sources_cha_mod_rounds() -> None:
    """FD-18: Frightened lasts the frightening character's CHA-mod turns (and FD-4: the
    target resists with a Will test)."""
    witch = hero(stats={"controle": 5, "cha_mod": 3})
    res = run(FD, [witch, orc(stats={"will": 0})],
              [decl("hero", act(A.CAST, "orc", spell="dread", inflict="assustado"))],
              forced=[15, 2])
    fear = res.encounter.combatant("orc").condition(C.FRIGHTENED)
    assert fear is not None and fear.rounds == 3 and fear.source == "hero"
    assert one(res, "check").params["result"] == "failed"
    resisted = run(FD, [witch, orc(stats={"will": 0})],
                   [decl("hero", act(A.CAST, "orc", spell="dread", inflict="frightened"))],
                   forced=[2, 20])
    assert not resisted.encounter.combatant("orc").has(C.FRIGHTENED)


def test_fd_16_delay_after_someone_acts_right_after_them() -> None:
    """FD-16: waiting 'until someone acts' fixes the new initiative just after theirs."""
    res = run(FD, [hero(init=20), orc(init=10), fighter("imp", init=5, side="enemies")],
              [decl("hero", act(A.DELAY, after="orc"), act(A.FREE, text="now")),
               decl("orc", act(A.FREE)), decl("imp", act(A.FREE))])
    starts = [e.actor for e in res.events if e.code == "turn.start"]
    assert starts == ["hero", "orc", "hero", "imp"]
    assert 5 < res.encounter.combatant("hero").initiative < 10


def test_fd_4_player_defense_missing_next_post_is_rolled_by_the_service() -> None:
    """FD-4 with defense_roller = player: no posted defense roll -> the service rolls it."""
    rules = {"defense_roller": "player"}
    res = run(FD, [hero(player="p1", init=5), orc(init=10)],
              [decl("orc", act(A.ATTACK, "hero")), decl("hero")], forced=[15],
              houserules=rules)
    nxt = run(FD, res.encounter.combatants, [decl("hero", act(A.FREE))], forced=[2, 3],
              houserules=rules, round=2, order=res.encounter.order,
              pending=res.encounter.pending)
    defense = one(nxt, "defense.rolled")
    assert defense.rolls[0].label == "defense fortitude" and defense.params["natural"] == 2
    marked = one(nxt, "defense.by-pbp")   # STALL-6: said as rolled by pbp, with the same roll
    assert marked.rule == "STALL-6" and marked.rolls == defense.rolls
    assert marked.target == "hero" and marked.params["total"] == defense.params["total"]


def test_stall6_fd14_a_players_opposed_roll_pbp_makes_is_marked_where_players_roll_defense() -> None:
    """STALL-6 with FD-4's ``defense_roller = "player"``: the orc trips the player's hero;
    the hero's opposed Luta roll (FD-14) is made by pbp at once, so the event says so
    (``by_pbp``) and the reply's line ends "rolled by pbp". Under the default (the service
    rolls defenses) or against a narrator's character nothing is marked."""
    trip = [decl("orc", act(A.MANEUVER, "hero", maneuver="trip"))]
    rules = {"defense_roller": "player"}
    mine = run(FD, [hero(player="p1"), orc(init=30)], trip, forced=[10, 5], houserules=rules)
    won = one(mine, "maneuver.won")      # orc 10 + luta 3 = 13 against hero 5 + luta 5 = 10
    assert won.params["by_pbp"] is True and won.rolls[1].label == "trip (opposed)"
    line = event_text(EventLine(code=won.code, params=dict(won.params), rule=won.rule,
                                message=won.message, actor=won.actor, target=won.target),
                      "en", {"hero": "Hero", "orc": "Orc"})
    assert ", rolled by pbp (STALL-6)" in line
    plain = run(FD, [hero(player="p1"), orc(init=30)], trip, forced=[10, 5])
    assert "by_pbp" not in one(plain, "maneuver.won").params
    npc = run(FD, [hero(), orc(init=30)], trip, forced=[10, 5], houserules=rules)
    assert "by_pbp" not in one(npc, "maneuver.won").params


def test_fd_16_initiative_ties_go_to_the_higher_bonus_then_dex_or_a_roll_off() -> None:
    """FD-16 (and FD-1 step 1): a tie goes to the higher initiative bonus, then Dex; the
    narrator may choose a d20 roll-off instead."""
    slow = fighter("slow", init=None, stats={"initiative": 1, "dex_mod": 5})
    quick = fighter("quick", init=None, stats={"initiative": 3, "dex_mod": 0})
    res = run(FD, [slow, quick], [], forced=[12, 10])  # 13 and 13
    assert res.encounter.order == ("quick", "slow")
    same = fighter("same", init=None, stats={"initiative": 3, "dex_mod": 2})
    res = run(FD, [quick, same], [], forced=[10, 10])
    assert res.encounter.order == ("same", "quick")  # same bonus: Dex decides
    off = run(FD, [quick, same], [], forced=[10, 10, 17, 4],
              houserules={"initiative": {"ties": "roll-off"}})
    assert len(find(off, "initiative.rolloff")) == 2 and off.encounter.order == ("quick", "same")
