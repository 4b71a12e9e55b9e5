"""Every refusal of the dice carries a code and its values (pbp.dice_errors), so a reply
(PBP-4: a refused roll tag) and the public dice check (DICE-4) say it in the reader's
language; the English sentence stays what the terminal and the logs always printed, and
the sentence as stored is read back to its code."""

from __future__ import annotations

import re

import pytest

from pbp.dice import DiceBox
from pbp.dice_errors import TEMPLATES, read
from pbp.errors import DiceError
from pbp.render.dice_words import refused_text


@pytest.mark.parametrize(("expression", "code", "english"), [
    ("", "dice.empty", "the dice expression is empty"),
    ("1" * 300, "dice.too_long",
     "the dice expression is 300 characters long; at most 256 are allowed"),
    ("(" * 21 + "1" + ")" * 21, "dice.too_deep",
     "the dice expression nests 21 parentheses deep; at most 20"),
    ("+".join(["1"] * 61), "dice.too_many_terms", "the dice expression has 61 terms; at most 60"),
    ("1d0", "dice.zero_sided", "'1d0' asks for a 0-sided die"),
    ("1001d6", "dice.too_many", "'1001d6' rolls more than 1000 dice; nobody has that many"),
    ("1d20+Charm", "dice.unknown_stat", "'Charm' in '1d20+Charm' is not a stat on this sheet"),
    ("1d6/0", "dice.unrollable", "'1d6/0' cannot be rolled: Cannot divide by zero."),
])
def test_pbp_4_each_refusal_has_its_code_and_its_english_as_before(
        expression: str, code: str, english: str) -> None:
    with pytest.raises(DiceError) as caught:
        DiceBox(seed="s").roll(expression)
    assert caught.value.code == code
    assert str(caught.value) == english
    found = read(english)            # the stored sentence, read back to its code
    assert found is not None and found.code == code and str(found) == english


def test_dice_4_the_stored_sentence_is_said_in_each_language_and_other_text_is_kept() -> None:
    stored = "'1001d6' rolls more than 1000 dice; nobody has that many"
    assert refused_text(stored, "pt") == "'1001d6' rola mais de 1000 dados; ninguém tem tantos"
    assert refused_text(stored, "ru") == "'1001d6' бросает больше 1000 костей; столько ни у кого нет"
    assert refused_text(stored, "en") == stored
    assert refused_text("the goblin ate the dice", "pt") == "the goblin ate the dice"


def test_dice_4_every_refusal_reads_back_its_own_values() -> None:
    """read() inverts every template, values with spaces, quotes, colons and parentheses
    included (d20's details hold all of them)."""
    for code, template in TEMPLATES.items():
        names = re.findall(r"{(\w+)}", template)
        values = {k: f"v{n} (x): 'y'" for n, k in enumerate(names)}
        found = read(template.format(**values))
        assert found is not None and found.code == code and found.params == values, code
