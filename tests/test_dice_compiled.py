"""SCALE-6: the DiceBox rolls the common shapes through expressions compiled once over d20's
own parse tree; the dice, totals, breakdowns and naturals must be those d20 gives (DICE-1:
the same seed still proves the same round), and the dice bombs are refused as before."""

from __future__ import annotations

import hashlib

import pytest

from pbp import dice
from pbp.dice import DiceBox
from pbp.dice_compile import compiled
from pbp.errors import DiceError

#: shapes the compiled path takes, and shapes it must leave to d20
COMPILED = ["1d20", "d20", "1d20+5", "1d20-3", "1d20+(-1)", "-2+1d8", "(1d20)", "+1d4", "-1d4",
            "2d20kh1", "2d20kl1", "2d20kh1+7", "4d6kh3", "4d6pl1", "3d6ph1", "3d20kl2",
            "5d4kh0", "2d20kh3", "1d8*2+3", "2*(1d6+1)", "10d10", "1d20+1d20", "1d1+1d20",
            "2d20kh1 - 1d4", "1d20 + 5", "3d6+2", "2d20-1", "1d20+0", "1d6-7"]
#: (not "2d6rr1": d20 rerolls the dice of a set in hash order, so which die shows which
#: reroll in its breakdown varies from run to run; the faces and total do not)
TO_D20 = ["4d6k3", "1d%", "0d20+1d20", "10d10e10", "1d20ro1", "1d6rr1", "1d6/2", "4d6mi2", "1d6ra6", "1.5+1d4", "1d20>10"]


def _by_d20(expression: str, seed: str, index: int) -> tuple[int, str, int | None, tuple[int, ...]]:
    """The roll as d20 itself evaluates and SimpleStringifier writes it, same stream."""
    gen = dice._FaceStream(seed, index, [])
    total, breakdown, natural = dice._roll_with_d20(expression, dice.check_expression(expression), gen)
    return total, breakdown, natural, tuple(gen.faces)


@pytest.mark.parametrize("expression", COMPILED + TO_D20)
def test_scale6_compiled_roll_equals_d20s_own_for_many_seeds(expression: str) -> None:
    """SCALE-6 / DICE-1: total, breakdown, natural and faces equal d20's for 150 seeds."""
    for n in range(150):
        roll = DiceBox(f"seed-{n}", start_index=n % 5).roll(expression)
        assert (roll.total, roll.breakdown, roll.natural, roll.faces) == \
            _by_d20(expression, f"seed-{n}", n % 5), (expression, n)


def test_scale6_the_common_shapes_are_compiled_and_the_rest_left_to_d20() -> None:
    assert all(compiled(dice.check_expression(e), dice.MAX_DICE) is not None for e in COMPILED)
    assert all(compiled(dice.check_expression(e), dice.MAX_DICE) is None for e in TO_D20)


@pytest.mark.parametrize(("expression", "forced", "total", "breakdown", "natural"), [
    # kh1 keeps the higher, kl1 the lower; SimpleStringifier lists every die, kept or not
    ("2d20kh1+2", [15, 3], 17, "2d20kh1 (15, 3) + 2 = 17", 15),
    ("2d20kl1", [15, 3], 3, "2d20kl1 (15, 3) = 3", 3),
    # 4d6 keep the highest three: 5 + 5 + 2 (the 1 is dropped)
    ("4d6kh3", [1, 5, 5, 2], 12, "4d6kh3 (1, 5, 5, 2) = 12", None),
    # drop the lowest one of two equal lows: only one 2 goes
    ("3d6pl1", [2, 2, 6], 8, "3d6pl1 (2, 2, 6) = 8", None),
    # the natural is the first d20 group's kept face, wherever the group stands
    ("1d6+1d20", [4, 17], 21, "1d6 (4) + 1d20 (17) = 21", 17),
    ("2d20ph1", [20, 20], 20, "2d20ph1 (20, 20) = 20", 20),
    ("2*(1d6+1)-1", [3], 7, "2 * (1d6 (3) + 1) - 1 = 7", None),
    ("-1d4+1d20", [2, 1], -1, "-1d4 (2) + 1d20 (1) = -1", 1),
])
def test_scale6_compiled_rolls_worked_out_by_hand(expression: str, forced: list[int], total: int,
                                                   breakdown: str, natural: int | None) -> None:
    roll = DiceBox("s", forced=list(forced)).roll(expression)
    assert (roll.total, roll.breakdown, roll.natural, roll.faces) == \
        (total, breakdown, natural, tuple(forced))


def test_scale6_dice1_faces_still_follow_the_published_stream() -> None:
    """DICE-1: face = w % size + 1 for the big-endian 32-bit words of
    sha256("<seed>:<index>:<block>"), words at or above the largest multiple skipped."""
    def expected(seed: str, index: int, sizes: list[int]) -> list[int]:
        words: list[int] = []
        block = 0
        out = []
        for size in sizes:
            limit = 2**32 - 2**32 % size
            while True:
                if not words:
                    digest = hashlib.sha256(f"{seed}:{index}:{block}".encode()).digest()
                    words = [int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4)]
                    block += 1
                word = words.pop(0)
                if word < limit:
                    out.append(word % size + 1)
                    break
        return out

    box = DiceBox("published", start_index=7)
    assert list(box.roll("1d20").faces) == expected("published", 7, [20])
    assert list(box.roll("20d6kh3+1d20").faces) == expected("published", 8, [6] * 20 + [20])
    assert list(box.roll("4d6pl1").faces) == expected("published", 9, [6] * 4)


@pytest.mark.parametrize(("expression", "words"), [
    ("1d20+" + "1+" * 125 + "11", "257 characters"),   # 257 characters: refused before d20
    ("(" * 21 + "1d20" + ")" * 21, "nests 21"),
    ("1001d6", "more than 1000 dice"),
    ("600d6+401d6", "more than 1000 dice"),
    ("1000d1e1", "more than 1000 dice"),                  # explodes past 1000: d20's TooManyRolls
    ("1d0", "0-sided"),
    ("1d20+", "not a dice expression"),
    ("1d6/0", "cannot be rolled"),
])
def test_scale6_dice_bombs_are_refused_as_before(expression: str, words: str) -> None:
    """SCALE-6: the expression cache changes nothing about what is refused (NOTES.md limits)."""
    for _ in range(2):  # the second time comes from the caches
        with pytest.raises(DiceError, match=words):
            DiceBox("s").roll(expression)


def test_scale6_a_refused_roll_records_nothing_and_keeps_the_index() -> None:
    box = DiceBox("s")
    with pytest.raises(DiceError):
        box.roll("1001d6")
    assert box.roll("1d20").index == 0 and len(box.rolls) == 1
