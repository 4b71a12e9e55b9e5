"""beyonders, rule by rule (RULES.md BEY-1..BEY-17; source 000_*.txt).

With initiative fixed on the sheet, an attack rolls [d20 (two with advantage), damage].
"""

from __future__ import annotations

import pytest

from pbp.dice import DiceBox
from pbp.rules import conditions as C
from pbp.rules.economy import usable_extras
from pbp.rules.engine import resolve
from pbp.rules.model import Condition, Encounter, Weapon
from pbp.rules.registry import get

from .helpers import A, act, decl, fighter, find, hp, mods, one, rejected, run

BEY = "beyonders"
CANE = Weapon("cane", "1d6")
REVOLVER = Weapon("revolver", "2d6", category="firearm")


def klein(**kw):
    stats = {"str": 2, "dex": 4, "luta": 3, "pontaria": 5, "armor": 1, "dodge": 2}
    stats.update(kw.pop("stats", {}))
    return fighter("klein", init=kw.pop("init", 20), stats=stats,
                   weapons=kw.pop("weapons", (CANE, REVOLVER)), **kw)


def cultist(**kw):
    stats = {"str": 3, "dex": 2, "con": 2, "will": 1, "luta": 2, "armor": 2, "dodge": 1}
    stats.update(kw.pop("stats", {}))
    return fighter("cultist", init=kw.pop("init", 10), side="cult", stats=stats,
                   weapons=kw.pop("weapons", (Weapon("knife", "1d4"),)), **kw)


def audrey(**kw):
    return fighter("audrey", init=kw.pop("init", 15), stats={"str": 1, "dex": 3, "dodge": 3},
                   **kw)


def budget(res, actor):
    return [e for e in res.events if e.code == "turn.end" and e.actor == actor][-1].params["budget"]


# -- BEY-1..3 surprise -----------------------------------------------------------------------

def test_bey_1_surprise_round_one_choice_and_surprised_do_nothing() -> None:
    """BEY-1: surprising side: ONE of attack/cast, move, or 2 quick; surprised: no action."""
    res = run(BEY, [klein(), audrey(), cultist()],
              [decl("klein", act(A.ATTACK, "cultist"), act(A.MOVE, distance=1)),
               decl("audrey", act(A.QUICK), act(A.QUICK), act(A.QUICK)),
               decl("cultist", act(A.ATTACK, "klein"), act(A.FREE))],
              forced=[15, 15, 3], surprise=True, surprised=("cultist",))
    assert one(res, "round.surprise").rule == "BEY-1"
    assert one(res, "round.start").params["round"] == 0
    rules = [(e.actor, e.rule) for e in rejected(res)]
    assert rules == [("klein", "BEY-1"), ("audrey", "BEY-1"), ("cultist", "BEY-1"),
                     ("cultist", "BEY-1")]
    assert find(res, "attack.hit", actor="klein")
    assert res.encounter.round == 1 and not res.encounter.surprise


def test_bey_2_unseen_attackers_leave_the_surprised_flat_footed() -> None:
    """BEY-2: unperceived attackers -> surprised side Flat-footed (no Dex, no Dodge) for
    the surprise round only."""
    seen = run(BEY, [klein(), cultist()], [decl("klein", act(A.ATTACK, "cultist"))],
               forced=[9, 9, 3], surprise=True, surprised=("cultist",))
    unseen = run(BEY, [klein(), cultist()], [decl("klein", act(A.ATTACK, "cultist"))],
                 forced=[9, 9, 3], surprise=True, surprised=("cultist",), unseen=True)
    # BEY-3 advantage keeps a 9: 9 + Str 2 + Luta 3 = 14, not above 15 (seen) but above 12
    swing_seen = one(seen, "attack.miss")
    swing_unseen = one(unseen, "attack.hit")
    assert swing_seen.params["defense"] == 10 + 2 + 2 + 1
    assert swing_unseen.params["defense"] == 10 + 2 and swing_unseen.rule == "BEY-2"
    after = resolve(unseen.encounter, [decl("klein", act(A.ATTACK, "cultist"))],
                    DiceBox("t", forced=[5, 3]))
    assert not after.encounter.combatant("cultist").has(C.FLAT_FOOTED)
    assert one(after, "attack.miss").params["defense"] == 15       # 5 + 5 = 10, not above 15


def test_bey_3_advantage_in_the_surprise_round_only() -> None:
    """BEY-3: the surprising side rolls with advantage (2d20 keep high) in the surprise
    round only; flanking keeps granting it later."""
    res = run(BEY, [klein(), cultist()], [decl("klein", act(A.ATTACK, "cultist", weapon="cane"))],
              forced=[3, 17, 4], surprise=True, surprised=("cultist",))
    hit = one(res, "attack.hit")
    assert hit.params["natural"] == 17 and "2d20kh1" in hit.rolls[0].expression
    later = run(BEY, [klein(), cultist()], [decl("klein", act(A.ATTACK, "cultist"))],
                forced=[3, 17, 4], round=1)
    assert (find(later, "attack.miss") + find(later, "attack.hit"))[0].params["natural"] == 3
    flanked = run(BEY, [klein(), cultist(conditions=(Condition(C.FLANKED, value=2),))],
                  [decl("klein", act(A.ATTACK, "cultist"))], forced=[3, 17, 4], round=1)
    assert one(flanked, "attack.hit").params["natural"] == 17


# -- BEY-4 initiative ------------------------------------------------------------------------

def test_bey_4_initiative_is_d20_plus_dex_and_dot_commands() -> None:
    """BEY-4: 1d20 + Dex, high to low; `.ri+Dex` posted roll used; `.init`; `.init clr`."""
    a = klein(init=None)
    b = cultist(init=None)
    res = run(BEY, [b, a], [], forced=[10, 8])
    rolled = {e.actor: e.params["value"] for e in find(res, "initiative.rolled")}
    assert rolled == {"cultist": 12, "klein": 12}
    assert res.encounter.order == ("klein", "cultist")  # tie: higher Dex first
    posted = DiceBox("p", forced=[19]).roll("1d20+4")
    box = DiceBox("q", forced=[2])
    res2 = resolve(Encounter(BEY, (b, a)),
                   [decl("klein", act(A.OTHER, initiative=True, rolled=posted))], box)
    assert res2.encounter.combatant("klein").initiative == 23
    assert len(box.rolls) == 1  # only the cultist rolled: the posted roll was not re-rolled
    shown = resolve(res2.encounter, [decl("klein", act(A.FREE, command="init"))], DiceBox("r"))
    assert find(shown, "initiative.order", rule="BEY-4")
    cleared = resolve(res2.encounter, [decl("klein", act(A.FREE, command="init-clear"))],
                      DiceBox("s"))
    assert find(cleared, "initiative.cleared") and len(find(cleared, "initiative.rolled")) == 2


# -- BEY-5, 9, 10, 12 economy ---------------------------------------------------------------

def test_bey_5_one_attack_or_cast_three_quick_one_move_free_unlimited() -> None:
    """BEY-5: 1 attack-or-cast (one slot), 3 quick, 1 move, unlimited free."""
    res = run(BEY, [klein(), cultist()],
              [decl("klein", act(A.ATTACK, "cultist"), act(A.CAST, text="and cast"),
                    act(A.QUICK), act(A.QUICK), act(A.QUICK), act(A.MOVE, distance=2),
                    act(A.MOVE, distance=2), *[act(A.FREE) for _ in range(10)])],
              forced=[5, 3])
    assert [(e.rule, e.params["problem"]) for e in rejected(res)] == [
        ("BEY-9", "conversion.refused"), ("BEY-5", "budget.exceeded")]
    spent = budget(res, "klein")["spent"]
    assert spent == {"attack": 1, "quick": 3, "move": 1, "free": 10}


def test_bey_9_attack_converts_to_two_quick_never_to_move_or_up() -> None:
    """BEY-9: 1 attack/cast -> 2 quick; never into a move; quick never into an attack."""
    res = run(BEY, [klein(), cultist()],
              [decl("klein", *[act(A.QUICK) for _ in range(6)], act(A.ATTACK, "cultist"))])
    assert one(res, "action.converted").rule == "BEY-9"
    # 6th quick: 3 + 2 = 5; the attack slot went into the conversion
    assert [e.rule for e in rejected(res)] == ["BEY-5", "BEY-5"]
    move = run(BEY, [klein(), cultist()],
               [decl("klein", act(A.MOVE, distance=1), act(A.MOVE, distance=1))])
    assert [e.params["problem"] for e in rejected(move)] == ["conversion.refused"]
    up = run(BEY, [klein(), cultist()],
             [decl("klein", act(A.ATTACK, "cultist"), act(A.ATTACK, "cultist"))], forced=[5, 1])
    assert rejected(up, "BEY-9")


def test_bey_10_nothing_carries_over_to_the_next_round() -> None:
    """BEY-10: unused actions do not carry over."""
    first = run(BEY, [klein(), cultist()], [decl("klein", act(A.FREE))])
    assert budget(first, "klein")["spent"] == {"free": 1}
    second = resolve(first.encounter, [decl("klein", *[act(A.QUICK) for _ in range(6)])],
                     DiceBox("t"))
    assert budget(second, "klein")["slots"]["quick"] == 5  # 3 + 2 from the attack, no more
    assert rejected(second, "BEY-5")


def test_bey_12_external_extra_actions_diminish() -> None:
    """BEY-12: n extras give k usable, the largest k with 1+2+...+k <= n."""
    assert [usable_extras(n) for n in (1, 2, 3, 5, 6, 10)] == [1, 1, 2, 2, 3, 4]
    res = run(BEY, [klein(extra_actions={"quick": 3, "move": 2, "cast": 1}), cultist()],
              [decl("klein", act(A.FREE))])
    assert budget(res, "klein")["slots"] == {"attack": 2, "quick": 5, "move": 2, "free": None}


# -- BEY-6 riding another's turn -------------------------------------------------------------

def test_bey_6_quick_on_another_turn_takes_effect_with_it_never_interrupting() -> None:
    """BEY-6: quick/move/free may be used on another's turn; the other's action is tested
    first, then both take effect together. Attacks may not."""
    res = run(BEY, [klein(init=20), audrey(init=5), cultist(init=10)],
              [decl("audrey", act(A.QUICK, on_turn_of="cultist", text="flame jump"),
                    act(A.ATTACK, "cultist", on_turn_of="cultist")),
               decl("cultist", act(A.ATTACK, "audrey"))], forced=[15, 2])
    seq = [e.code for e in res.events if e.code in ("attack.hit", "attack.miss", "simultaneous",
                                                     "action.noted")]
    # BEY-13: the cultist's 15 + Str 3 + Luta 2 = 20 exceeds Audrey's 10 + Dex 3 + Dodge 3 = 16
    assert seq == ["attack.hit", "simultaneous", "action.noted"]
    assert one(res, "attack.hit").params["total"] == 20 and hp(res, "audrey") == 30 - 2
    assert one(res, "simultaneous").rule == "BEY-6"
    assert [e.rule for e in rejected(res)] == ["BEY-6"]
    assert budget(res, "audrey")["spent"] == {"quick": 1}


# -- BEY-7 movement --------------------------------------------------------------------------

def test_bey_7_one_move_up_to_speed_items_cost_movement() -> None:
    """BEY-7: Speed = Str + Dex; an item on the body costs 1, beside you 2; leftover lost."""
    assert get(BEY).speed(klein()) == 6
    ok = run(BEY, [klein(), cultist()], [decl("klein", act(A.MOVE, distance=4, items=["body"]))])
    assert one(ok, "move").params["lost"] == 1
    far = run(BEY, [klein(), cultist()],
              [decl("klein", act(A.MOVE, distance=5, items=["beside"]))])
    assert rejected(far, "BEY-7")[0].params["speed"] == 6


# -- BEY-8 and BEY-16 full-round ---------------------------------------------------------------

def test_bey_8_full_round_uses_everything_and_completes_next_turn() -> None:
    """BEY-8: a full-round action uses attack, 3 quick and move; free stays; it completes
    at the start of the actor's next turn."""
    ritual = act(A.FULL_ROUND, text="ritual",
                 action={"kind": "attack", "target": "cultist", "weapon": "cane"})
    res = run(BEY, [klein(), cultist()], [decl("klein", ritual, act(A.FREE), act(A.QUICK))])
    assert one(res, "full-round.started").rule == "BEY-8"
    assert [e.rule for e in rejected(res)] == ["BEY-5"]
    assert not find(res, "attack.hit") and not find(res, "attack.miss")
    nxt = resolve(res.encounter, [decl("klein", act(A.QUICK))], DiceBox("t", forced=[19, 4]))
    seq = [e.code for e in nxt.events if e.code in ("turn.start", "full-round.completed",
                                                    "attack.hit", "action.noted")]
    assert seq == ["turn.start", "full-round.completed", "attack.hit", "action.noted"]
    late = run(BEY, [klein(), cultist()], [decl("klein", act(A.QUICK), ritual)])
    assert rejected(late, "BEY-8")


def test_bey_16_speech_unrestricted_and_cancelling_a_cast_costs_a_free_action() -> None:
    """BEY-16: no speech limit; cancelling your own casting costs 1 free action."""
    assert get(BEY).speech_limit is None
    res = run(BEY, [klein(), cultist()],
              [decl("klein", act(A.FULL_ROUND, text="ritual",
                                 action={"kind": "attack", "target": "cultist"}))])
    nxt = resolve(res.encounter, [decl("klein", act(A.FREE, cancel_cast=True))],
                  DiceBox("t", forced=[19, 4]))
    assert one(nxt, "cast.cancelled").rule == "BEY-16"
    assert not find(nxt, "full-round.completed") and hp(nxt, "cultist") == 30
    assert budget(nxt, "klein")["spent"] == {"free": 1}
    wrong = resolve(res.encounter, [decl("klein", act(A.QUICK, cancel_cast=True))], DiceBox("u"))
    assert rejected(wrong, "BEY-16")


# -- BEY-11 ------------------------------------------------------------------------------------

def test_bey_11_a_round_is_about_six_seconds() -> None:
    """BEY-11: about 6 seconds a round (narration; a houserule may change it)."""
    res = run(BEY, [klein(), cultist()], [])
    assert one(res, "round.start").params["seconds"] == 6
    assert get(BEY, {"round_seconds": 10}).round_seconds == 10


# -- BEY-13..15 attack vs defense ------------------------------------------------------------

@pytest.mark.parametrize("face, hit", [(11, True), (10, False)])
def test_bey_13_attack_must_strictly_exceed_physical_defense(face: int, hit: bool) -> None:
    """BEY-13: 1d20 + attribute + skill must EXCEED 10 + Armor + Dex + Dodge; no dodge roll."""
    # cane: str 2 + luta 3 = +5; defense 10 + 2 + 2 + 1 = 15
    res = run(BEY, [klein(), cultist()], [decl("klein", act(A.ATTACK, "cultist", weapon="cane"))],
              forced=[face, 3])
    event = one(res, "attack.hit" if hit else "attack.miss")
    assert event.params["defense"] == 15 and event.params["total"] == face + 5
    assert not find(res, "attack.miss" if hit else "attack.hit") and event.rule == "BEY-13"
    assert not find(res, "defense.rolled")
    assert len(event.rolls) == 1


def test_bey_14_firearms_ignore_dex_and_dodge_unless_quick_dodge() -> None:
    """BEY-14: firearms test 10 + Armor only; Quick Dodge restores the full defense."""
    res = run(BEY, [klein(), cultist()],
              [decl("klein", act(A.ATTACK, "cultist", weapon="revolver"))], forced=[3, 3, 3])
    event = one(res, "attack.miss")
    assert event.params["defense"] == 12 and event.rule == "BEY-14"
    assert event.params["total"] == 3 + 4 + 5 and event.code == "attack.miss"  # 12 vs 12
    dodger = run(BEY, [klein(), cultist(abilities=("quick-dodge",))],
                 [decl("klein", act(A.ATTACK, "cultist", weapon="revolver"))], forced=[3, 3, 3])
    assert (find(dodger, "attack.miss"))[0].params["defense"] == 15


def test_bey_15_constitution_and_will_defense_when_the_ability_names_it() -> None:
    """BEY-15: some abilities test Constitution or Will Defense instead."""
    con = run(BEY, [klein(), cultist()],
              [decl("klein", act(A.CAST, "cultist", defense="con"))], forced=[1, 3])
    will = run(BEY, [klein(), cultist(stats={"will_defense": 17})],
               [decl("klein", act(A.CAST, "cultist", defense="will"))], forced=[1, 3])
    assert find(con, "attack.miss")[0].params["defense"] == 12
    assert find(con, "attack.miss")[0].rule == "BEY-15"
    assert find(will, "attack.miss")[0].params["defense"] == 17


# -- BEY-17 team battle ------------------------------------------------------------------------

def test_bey_17_team_battle_resolves_in_initiative_or_dex_order_and_ambush_only_moves_up() -> None:
    """BEY-17: everyone declares at once, resolved in initiative order (Dex order without
    initiative); an ambush after combat started gets no extra actions, only acts first."""
    fighters = [cultist(init=None), klein(init=None), audrey(init=None)]
    res = run(BEY, fighters, [decl("audrey", act(A.FREE)), decl("cultist", act(A.FREE)),
                              decl("klein", act(A.FREE))], houserules={"initiative": {"mode": "dex"}})
    assert not find(res, "initiative.rolled", mode="roll")
    starts = [e.actor for e in res.events if e.code == "turn.start"]
    assert starts == ["klein", "audrey", "cultist"]  # Dex 4, 3, 2
    ambush = resolve(res.encounter, [decl("klein", act(A.FREE)),
                                     decl("cultist", act(A.ATTACK, "klein", ambush=True),
                                          act(A.ATTACK, "audrey"))],
                     DiceBox("t", forced=[5, 1]))
    assert one(ambush, "ambush").rule == "BEY-17"
    starts = [e.actor for e in ambush.events if e.code == "turn.start"]
    assert starts[0] == "cultist"
    assert rejected(ambush)  # still only one attack: no surprise-round extras
    assert ambush.encounter.order == res.encounter.order  # only this round


def test_beyonders_latency_forfeits_the_attack_and_takes_total_defense() -> None:
    """PBP-2 (FD-2's default) in beyonders: late -> attack/cast lost, +4 Physical Defense."""
    res = run(BEY, [klein(player="p"), cultist()],
              [decl("klein", act(A.ATTACK, "cultist"), act(A.QUICK), late=True),
               decl("cultist", act(A.ATTACK, "klein", weapon="knife"))], forced=[5, 1])
    assert one(res, "action.changed").rule == "PBP-2"
    swing = one(res, "attack.miss")        # 5 + Str 3 + Luta 2 = 10, not above 21
    assert swing.params["defense"] == 10 + 1 + 4 + 2 + 4
    assert mods(swing, "defense_mods")["total defense"] == 4


def test_bey_6_an_ability_that_says_it_interrupts_goes_first() -> None:
    """BEY-6: a quick action interrupts only when its ability says so; then it resolves
    before the other's action."""
    res = run(BEY, [klein(init=20), audrey(init=5), cultist(init=10)],
              [decl("audrey", act(A.QUICK, on_turn_of="cultist", interrupts=True,
                                  text="substitution")),
               decl("cultist", act(A.ATTACK, "audrey"))], forced=[15, 2])
    seq = [e.code for e in res.events if e.code in ("attack.hit", "attack.miss", "interrupt")]
    assert seq[0] == "interrupt" and one(res, "interrupt").rule == "BEY-6"


def test_bey_3_disadvantage_and_advantage_cancel() -> None:
    """BEY-3: advantage and disadvantage cancel into a single d20."""
    res = run(BEY, [klein(conditions=(Condition(C.DISADVANTAGE),)),
                    cultist(conditions=(Condition(C.FLANKED, value=2),))],
              [decl("klein", act(A.ATTACK, "cultist"))], forced=[3, 17, 4], round=1)
    swing = one(res, "attack.miss")  # BEY-13: 3 + Str 2 + Luta 3 = 8, not above 10 + 2 + 2 + 1
    assert swing.params["natural"] == 3 and swing.rolls[0].expression.startswith("1d20")
    worse = run(BEY, [klein(conditions=(Condition(C.DISADVANTAGE),)), cultist()],
                [decl("klein", act(A.ATTACK, "cultist"))], forced=[17, 3, 4], round=1)
    assert one(worse, "attack.miss").params["natural"] == 3          # the lower of 17 and 3
