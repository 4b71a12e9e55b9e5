"""DICE-6: asking for a table roll in a post, in Portuguese, Russian and English: the tag
form and the command line, numbered with the post's roll tags (so the rounds layer rolls
it once, PBP-4), never given to an action as its attack roll, never read from a quote."""

from __future__ import annotations

import pytest

from pbp.parse import parse_post


def _tables(text: str, lang: str) -> list[tuple[int, str, str]]:
    p = parse_post(text, fmt="bbcode", lang=lang)
    return [(r.index, r.syntax, r.label or "") for r in p.rolls if r.purpose == "table"]


@pytest.mark.parametrize(("text", "lang", "want"), [
    ("Golpeio o goblin!\n.tabela critico", "pt", [(0, ".table", "critico")]),
    ("Golpeio o goblin! [tabela]crítico[/tabela]", "pt", [(0, "[table]", "crítico")]),
    ("Бью гоблина!\n.таблица крит", "ru", [(0, ".table", "крит")]),
    ("Бью гоблина! [таблица]крит[/таблица]", "ru", [(0, "[table]", "крит")]),
    ("I hit the goblin!\n.table crit", "en", [(0, ".table", "crit")]),
    ("I hit the goblin!\n!table hit location", "en", [(0, ".table", "hit location")]),
    ("I hit the goblin! [table]crit[/table]", "en", [(0, "[table]", "crit")]),
    ("Ataco!\n.table crit", "pt", [(0, ".table", "crit")]),     # any language's word
])
def test_dice6_table_requests_in_three_languages(text: str, lang: str,
                                                  want: list[tuple[int, str, str]]) -> None:
    assert _tables(text, lang) == want


def test_dice6_table_request_is_numbered_with_rolls_and_is_nobodys_attack_roll() -> None:
    p = parse_post("I attack the goblin with my sword [roll]1d20+5[/roll]\n.table crit\n"
                   "[roll]1d8+2[/roll]", lang="en")
    assert [(r.index, r.purpose) for r in p.rolls] == [(0, None), (1, "table"), (2, None)]
    table = p.rolls[1]
    assert table.action_index is None
    assert [a.options.roll_indices for a in p.actions] == [(0, 2)]


def test_dice6_a_quoted_table_request_is_not_read() -> None:
    p = parse_post("[quote].table crit[/quote]\nI wait.", fmt="bbcode", lang="en")
    assert [r for r in p.rolls if r.purpose == "table"] == []


def test_dice6_a_table_request_naming_nothing_is_said_in_the_posts_language() -> None:
    p = parse_post("Espero.\n.tabela", lang="pt")
    assert [e.code for e in p.errors] == ["table.unnamed"]
    assert "não diz qual tabela" in p.errors[0].message
    assert [r for r in p.rolls if r.purpose == "table"] == []


@pytest.mark.parametrize(("text", "fmt"), [
    ("<p>I hit him <strong>hard</strong>.</p><p>.table crit</p><p>[table]loot[/table]</p>", "html"),
    ("I hit him.\n\n.table crit\n\n[table]loot[/table]", "markdown"),
])
def test_dice6_table_requests_in_forum_html_and_reddit_markdown(text: str, fmt: str) -> None:
    """DICE-6: a forum's HTML (django-machina renders paragraphs) and Reddit's Markdown."""
    p = parse_post(text, fmt=fmt, lang="en")
    assert [(r.syntax, r.label) for r in p.rolls if r.purpose == "table"] == [
        (".table", "crit"), ("[table]", "loot")]
