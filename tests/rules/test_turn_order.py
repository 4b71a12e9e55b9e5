"""STALL-7 initiative modes: the order of the turns, worked out from the rules text.

Every fight here has fixed initiative counts (no rolls), so the individual order is the
counts high to low (BEY-4, FD-1, DND-3, TA-1: "high to low"). The modes then reorder:
side = each side as a block, sides by their best count (or the narrator's choice);
block = players in post order; popcorn = each actor names the next.
"""

from __future__ import annotations

import pytest

from pbp.errors import ConfigError
from pbp.rules.model import ActionKind
from tests.rules.helpers import act, decl, fighter, find, run


#: Orc 18 (enemies), Ana 15, Bruna 12 (players), Goblin 5 (enemies)
def _fight() -> list:
    return [fighter("ana", init=15, player="u-ana"), fighter("orc", init=18, side="enemies"),
            fighter("bruna", init=12, player="u-bruna"),
            fighter("goblin", init=5, side="enemies")]


def _turns(res) -> list[str]:
    return [e.actor for e in res.events if e.code == "turn.start"]


def _rules(turns: str, **more: str) -> dict:
    return {"initiative": {"turns": turns, **more}}


def _next(who: str) -> object:
    return act(ActionKind.FREE, who, command="next")


ALL = [decl("ana"), decl("orc"), decl("bruna"), decl("goblin")]


@pytest.mark.parametrize("ruleset", ["forum-d20", "dnd5e", "beyonders", "two-action"])
def test_stall7_individual_is_count_order_and_says_nothing_new(ruleset: str) -> None:
    """STALL-7 individual (default): high to low, 18, 15, 12, 5; no mode sentence."""
    res = run(ruleset, _fight(), ALL)
    assert _turns(res) == ["orc", "ana", "bruna", "goblin"]
    assert not [e for e in res.events if e.code.startswith("initiative.turns")]


@pytest.mark.parametrize("ruleset", ["forum-d20", "dnd5e", "beyonders", "two-action"])
def test_stall7_side_mode_best_roll_side_first(ruleset: str) -> None:
    """STALL-7 side: the enemies' best count (18) beats the players' (15), so the enemies
    act first as a block (Orc 18, Goblin 5), then the players (Ana 15, Bruna 12)."""
    res = run(ruleset, _fight(), ALL, houserules=_rules("side"))
    assert _turns(res) == ["orc", "goblin", "ana", "bruna"]
    ev = find(res, "initiative.turns.side")[0]
    assert ev.params["names"] == "Orc, Goblin, Ana, Bruna"


def test_stall7_side_mode_narrator_puts_players_first() -> None:
    """STALL-7 side with sides_first = players: the narrator's order wins over the rolls."""
    res = run("forum-d20", _fight(), ALL, houserules=_rules("side", sides_first="players"))
    assert _turns(res) == ["ana", "bruna", "orc", "goblin"]


@pytest.mark.parametrize("ruleset", ["dnd5e", "forum-d20"])
def test_stall7_block_mode_players_in_post_order(ruleset: str) -> None:
    """STALL-7 block: Bruna posted before Ana, so Bruna acts first in the players' block
    although Ana's count is higher; the enemies' block goes first (best count 18 > 15)."""
    posted = [decl("bruna"), decl("ana"), decl("orc"), decl("goblin")]
    res = run(ruleset, _fight(), posted, houserules=_rules("block"))
    assert _turns(res) == ["orc", "goblin", "bruna", "ana"]


def test_stall7_block_mode_enemies_after() -> None:
    """STALL-7 block with sides_first = players: the players' block, then the enemies."""
    posted = [decl("bruna"), decl("ana"), decl("orc"), decl("goblin")]
    res = run("dnd5e", _fight(), posted, houserules=_rules("block", sides_first="players"))
    assert _turns(res) == ["bruna", "ana", "orc", "goblin"]


@pytest.mark.parametrize("ruleset", ["beyonders", "dnd5e", "two-action"])
def test_stall7_popcorn_chain(ruleset: str) -> None:
    """STALL-7 popcorn: the top of the initiative order starts (Orc 18); Orc names Bruna,
    Bruna names Goblin; Goblin names nobody, so the next in initiative order who has not
    acted (Ana) goes."""
    ds = [decl("ana"), decl("orc", _next("bruna")), decl("bruna", _next("goblin")),
          decl("goblin")]
    res = run(ruleset, _fight(), ds, houserules=_rules("popcorn"))
    assert _turns(res) == ["orc", "bruna", "goblin", "ana"]
    assert [e.target for e in find(res, "initiative.next")] == ["bruna", "goblin"]


def test_stall7_popcorn_narrator_names_the_first() -> None:
    """STALL-7 popcorn: the narrator's first actor (Bruna) starts instead of Orc 18."""
    ds = [decl("ana"), decl("orc"), decl("bruna", _next("goblin")), decl("goblin")]
    res = run("beyonders", _fight(), ds, houserules=_rules("popcorn", first="bruna"))
    assert _turns(res) == ["bruna", "goblin", "orc", "ana"]


def test_stall7_popcorn_unknown_name_falls_back() -> None:
    """STALL-7 popcorn: Orc names 'Zed', nobody in the fight: refused in words, and the
    next in initiative order who has not acted (Ana 15) goes."""
    ds = [decl("ana"), decl("orc", act(ActionKind.FREE, None, command="next",
                                       target_text="Zed")), decl("bruna"), decl("goblin")]
    res = run("beyonders", _fight(), ds, houserules=_rules("popcorn"))
    assert _turns(res) == ["orc", "ana", "bruna", "goblin"]
    ev = find(res, "initiative.next_unknown")[0]
    assert "'Zed'" in ev.message and ev.target == "ana"


def test_stall7_popcorn_already_acted_falls_back() -> None:
    """STALL-7 popcorn: Orc -> Goblin -> Goblin names Orc, who already acted: the next in
    initiative order not yet acted is Ana (15), then Bruna."""
    ds = [decl("ana"), decl("orc", _next("goblin")), decl("bruna"),
          decl("goblin", _next("orc"))]
    res = run("beyonders", _fight(), ds, houserules=_rules("popcorn"))
    assert _turns(res) == ["orc", "goblin", "ana", "bruna"]
    ev = find(res, "initiative.next_acted")[0]
    assert "already acted" in ev.message and ev.target == "ana"


def test_stall7_late_player_moves_where_delay_is_allowed() -> None:
    """STALL-7 + FD-16 (delay is a free action in Forum d20): Ana posted late, so in side
    mode she moves to the end of the order: Orc, Goblin, Bruna, Ana."""
    ds = [decl("ana", late=True), decl("orc"), decl("bruna"), decl("goblin")]
    res = run("forum-d20", _fight(), ds, houserules=_rules("side"))
    assert _turns(res) == ["orc", "goblin", "bruna", "ana"]
    assert find(res, "initiative.late_moved", actor="ana")[0].rule == "FD-16"


@pytest.mark.parametrize("ruleset", ["dnd5e", "two-action", "beyonders"])
def test_stall7_late_player_keeps_slot_without_delay_rule(ruleset: str) -> None:
    """STALL-7: DND-3 (order fixed all combat), TA-1 (order changes only through skills or
    magic) and BEY have no delay: Ana keeps her slot and the reply says why."""
    ds = [decl("ana", late=True), decl("orc"), decl("bruna"), decl("goblin")]
    res = run(ruleset, _fight(), ds, houserules=_rules("side"))
    assert _turns(res) == ["orc", "goblin", "ana", "bruna"]
    assert "does not allow delaying" in find(res, "initiative.no_delay", actor="ana")[0].message


def test_stall7_bad_mode_is_refused_with_the_choices() -> None:
    """STALL-7: a mistyped mode is an error naming the key and the choices."""
    with pytest.raises(ConfigError, match="initiative.turns.*'popcorn'.*'zigzag'"):
        run("dnd5e", _fight(), ALL, houserules=_rules("zigzag"))
