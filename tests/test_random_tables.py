"""DICE-6: random table files are checked whole: the ranges cover the die's range exactly
once, and every problem is named with its numbers (a gap, an overlap, an entry past the
die, a range written backwards, a die a table cannot use). Every shipped ruleset table
passes the same check."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbp.random_tables import TableError, TableSet, die_range, parse_range, parse_tables
from pbp.rules.registry import registered
from pbp.table_files import DEFAULT_DIR, ruleset_tables

KINDS = {"crit", "fumble", "location", "loot"}


def _one(die: str, *ranges: str) -> str:
    entries = ", ".join(f'{{ range = "{r}", text = "t{n}" }}' for n, r in enumerate(ranges))
    return f'[[tables]]\nkey = "crit"\ndie = "{die}"\nname = "Crit"\nentries = [{entries}]\n'


def _problems(text: str) -> list[str]:
    with pytest.raises(TableError) as caught:
        parse_tables(text)
    return caught.value.problems


def test_dice6_die_ranges_are_worked_out_from_the_notation() -> None:
    """DICE-6: 1d20 -> 1-20, 1d100 and d% -> 1-100, 2d6 -> 2-12, 1d6+1 -> 2-7."""
    assert die_range("1d20") == (1, 20)
    assert die_range("1d100") == die_range("d%") == (1, 100)
    assert die_range("2d6") == (2, 12)
    assert die_range("1d6+1") == (2, 7)


def test_dice6_ranges_read_as_written() -> None:
    assert parse_range("1-5") == (1, 5)
    assert parse_range("6") == parse_range(6) == (6, 6)
    assert parse_range("95–100") == (95, 100)       # an en dash, as word processors write it
    with pytest.raises(ValueError, match="runs backwards: write 3-5"):
        parse_range("5-3")


def test_dice6_a_gap_is_named_with_its_numbers() -> None:
    assert _problems(_one("1d20", "1-5", "8-20")) == [
        "table 'crit': no entry covers 6-7 (1d20 rolls 1-20)"]
    assert _problems(_one("2d6", "3-12")) == ["table 'crit': no entry covers 2 (2d6 rolls 2-12)"]


def test_dice6_an_overlap_is_named_with_its_numbers() -> None:
    assert _problems(_one("1d100", "1-50", "45-94", "95-100")) == [
        "table 'crit': entries 1-50 and 45-94 overlap on 45-50"]


def test_dice6_every_problem_at_once() -> None:
    """An entry past the die, a backwards range, a gap and a bad die, in one refusal."""
    problems = _problems(_one("1d6", "1-2", "5-3", "4-7") + _one("1d20kh1", "1-20")
                         .replace('"crit"', '"other"'))
    assert "table 'crit', entry 2: '5-3' runs backwards: write 3-5" in problems
    assert "table 'crit': entry 4-7 is outside 1-6, what 1d6 can roll" in problems
    assert "table 'crit': no entry covers 3 (1d6 rolls 1-6)" in problems
    assert any(p.startswith("table 'other': '1d20kh1' is not a table die") for p in problems)


def test_dice6_missing_parts_and_clashing_names_are_said() -> None:
    assert _problems('[[tables]]\nkey = "x"\n') == [
        "table 'x': 'die' is missing (such as 1d20, 1d100 or 2d6)",
        "table 'x', name: a text is missing (a string, or { en = ..., pt = ..., ru = ... })",
        "table 'x': 'entries' is missing: [[tables.entries]] with range and text"]
    two = _one("1d6", "1-6") + _one("1d6", "1-6").replace('key = "crit"', 'key = "crit2"')
    assert "tables 'crit' and 'crit2' are both called 'crit'" in _problems(two)
    assert _problems("not toml = [")[0].startswith("the text is not valid TOML")


def test_dice6_entry_text_in_the_language_asked_else_english() -> None:
    [t] = parse_tables(_one("1d6", "1-6").replace('text = "t0"',
                                                  'text = { pt = "Braço", en = "Arm" }'))
    assert (t.entry_for(4).text_in("pt"), t.entry_for(4).text_in("ru")) == ("Braço", "Arm")


def test_dice6_campaign_table_replaces_the_ruleset_table_of_the_same_key() -> None:
    base = ruleset_tables("forum-d20")
    own = parse_tables(_one("1d6", "1-6"))
    tables = TableSet.of(base, own)
    assert tables.find("крит") is None        # the ruleset's words went with its table
    assert tables.find("CRIT") is own[0] and tables.find("loot") is not None
    assert tables.keys() == ["crit", "fumble", "location", "loot"]


@pytest.mark.parametrize("ruleset", sorted(registered()))
def test_dice6_every_shipped_ruleset_table_covers_its_die(ruleset: str) -> None:
    """Every ruleset ships crit, fumble, location and loot tables that load (so their
    ranges cover the die once), each named in en, pt and ru and called by en, pt and ru
    words; an invented table says so in its note."""
    tables = {t.key: t for t in ruleset_tables(ruleset)}
    assert set(tables) == KINDS
    for t in tables.values():
        assert set(t.names) == {"en", "pt", "ru"}, t.key
        assert (t.low, t.high) == die_range(t.die)
        covered = sorted(n for e in t.entries for n in range(e.low, e.high + 1))
        assert covered == list(range(t.low, t.high + 1))
        assert not t.generic or "invented" in t.note.lower(), t.key
    crit = TableSet.of(tables.values())
    assert crit.find("crit") is crit.find("crítico") is crit.find("крит") is tables["crit"]


def test_dice6_the_table_folder_holds_only_rulesets_that_exist() -> None:
    assert {p.name for p in Path(DEFAULT_DIR).iterdir()} == set(registered())
