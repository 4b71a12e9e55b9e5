"""SCALE-6: ``script_letters`` counted by the regex engine gives the counts of its
definition (a Cyrillic letter is а-я, А-Я, ё or Ё; a Latin one an ASCII letter), checked
against that definition written out character by character, on any text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.parse.lexicon import script_letters


def by_definition(sample: str) -> tuple[int, int]:
    cyr = sum(1 for ch in sample if "а" <= ch <= "я" or "А" <= ch <= "Я" or ch in "ёЁ")
    lat = sum(1 for ch in sample if ch.isascii() and ch.isalpha())
    return cyr, lat


MIXED = st.text(alphabet=st.sampled_from(
    "abcxyzABCXYZ0129 _-'\n\tãõçéÀßÆабвгдежзийклмнопрстуфхцчшщъыьэюяАБВЯёЁєїґўЂЏѐѝ[]!?.,"))


@settings(max_examples=400, deadline=None)
@given(st.one_of(MIXED, st.text()))
def test_scale6_script_letters_counts_by_its_definition(sample: str) -> None:
    assert script_letters(sample) == by_definition(sample)


def test_scale6_script_letters_edges() -> None:
    """The ends of each range, and letters just outside them (Ukrainian є, ї; Latin-1)."""
    assert script_letters("аяАЯёЁ") == (6, 0)
    assert script_letters("єїґЂѐ") == (0, 0)
    assert script_letters("azAZ") == (0, 4)
    assert script_letters("ãçßÆ`{@[") == (0, 0)
    # a lone surrogate (a post cleaned of them may still reach here from elsewhere) is
    # no letter, and counting never raises
    assert script_letters("\ud800a\udfffБ") == (1, 1)
