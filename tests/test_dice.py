"""pbp.dice: seeded, reproducible, forced, bounded."""

from __future__ import annotations

import hashlib
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.dice import DiceBox, commitment
from pbp.errors import DiceError


def test_same_seed_and_index_give_same_faces() -> None:
    a = DiceBox("round-seed")
    b = DiceBox("round-seed")
    rolls_a = [a.roll("4d6kh3").faces for _ in range(20)]
    rolls_b = [b.roll("4d6kh3").faces for _ in range(20)]
    assert rolls_a == rolls_b
    assert DiceBox("other-seed").roll("4d6kh3").faces != rolls_a[0] or DiceBox("x2").roll("10d20").faces


def test_replay_recomputes_a_roll_from_seed_and_index() -> None:
    box = DiceBox("s")
    made = [box.roll("1d20+5") for _ in range(5)]
    for roll in made:
        assert box.replay(roll.expression, roll.index).total == roll.total
    assert len(box.rolls) == 5  # replay records nothing


def test_forced_faces_come_first_then_seeded() -> None:
    box = DiceBox("s", forced=[19, 4])
    first = box.roll("1d20+5")
    second = box.roll("1d6")
    assert (first.total, first.natural, first.breakdown) == (24, 19, "1d20 (19) + 5 = 24")
    assert second.total == 4
    assert box.roll("1d20").total == DiceBox("s").replay("1d20", 2).total


def test_forced_face_too_big_for_die_is_refused() -> None:
    with pytest.raises(DiceError, match="d6"):
        DiceBox("s", forced=[7]).roll("1d6")


@pytest.mark.parametrize(
    "expr, words",
    [
        ("1000000d1000000", "more than 1000 dice"),
        ("1d0", "0-sided"),
        ("(" * 300 + "1" + ")" * 300, "characters long"),
        ("(" * 30 + "1" + ")" * 30, "nests 30"),
        ("+".join(["1"] * 200), "characters long"),
        ("+".join(["1"] * 70), "terms"),
        ("1d20+", "not a dice expression"),
        ("", "empty"),
    ],
)
def test_bad_expressions_raise_dice_error_with_a_reason(expr: str, words: str) -> None:
    with pytest.raises(DiceError, match=words):
        DiceBox("s").roll(expr)


def test_stats_resolve_from_the_sheet_and_unknown_stats_are_named() -> None:
    box = DiceBox("s", forced=[10, 10])
    assert box.roll("1d20+Dex", stats={"dex": 3}).total == 13
    assert box.roll("1d20+Luta", stats={"luta": -2}).total == 8
    with pytest.raises(DiceError, match="'Foo'"):
        box.roll("1d20+Foo", stats={"dex": 3})


def test_natural_is_the_kept_d20() -> None:
    box = DiceBox("s", forced=[3, 18])
    roll = box.roll("2d20kh1+1")
    assert roll.natural == 18 and roll.total == 19


def test_commitment_is_sha256_of_seed() -> None:
    assert commitment("abc") == hashlib.sha256(b"abc").hexdigest()


def _published_faces(seed: str, index: int, sizes: list[int]) -> list[int]:
    """The algorithm of docs/verifiable-dice.md, written out independently."""
    words: list[int] = []
    block, faces = 0, []
    for size in sizes:
        while True:
            if not words:
                digest = hashlib.sha256(f"{seed}:{index}:{block}".encode()).digest()
                words = list(struct.unpack(">8I", digest))
                block += 1
            word = words.pop(0)
            if word < 2**32 - 2**32 % size:
                faces.append(word % size + 1)
                break
    return faces


def test_faces_follow_the_published_algorithm_so_players_can_verify() -> None:
    box = DiceBox("revealed-seed")
    for _ in range(3):
        box.roll("1d20+2")
    roll = box.roll("10d6+1d20")
    assert list(roll.faces) == _published_faces("revealed-seed", 3, [6] * 10 + [20])
    assert roll.total == sum(roll.faces)


def test_faces_are_uniform_enough() -> None:
    box = DiceBox("uniform")
    counts = [0] * 6
    for face in box.roll("600d6").faces:
        counts[face - 1] += 1
    assert all(60 <= c <= 140 for c in counts), counts


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=400))
def test_any_text_either_rolls_or_raises_dice_error(text: str) -> None:
    try:
        roll = DiceBox("h").roll(text)
    except DiceError:
        return
    assert isinstance(roll.total, int)
