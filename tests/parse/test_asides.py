"""Issue 13 item 1: asides end where they end.

Every aside form, in every input format and language, with the declaration after, before
and around it. The aside's words are chosen to make a ``move`` if they were read as prose
("back tomorrow, I run to work"), so a region that ends too late loses the attack and one
that ends too early (or is not found) adds a ``move``: both fail.
"""

from __future__ import annotations

import html

import pytest

from pbp.parse import parse_post

ROSTER = [{"key": "goblin", "name": "Goblin", "aliases": ["гоблин"]}]

#: The declaration split in two (for "around"), per language; the roll is on the second half.
DECLARE = {
    "en": ("I attack", "the goblin [roll]1d20+5[/roll]"),
    "pt": ("Eu ataco", "o goblin [roll]1d20+5[/roll]"),
    "ru": ("Я атакую", "гоблина [roll]1d20+5[/roll]"),
}
#: What the aside says: prose that infers a move when not excluded (checked below).
TRAP = {"en": "back tomorrow, I run to work", "pt": "volto amanhã, corro pro trabalho",
        "ru": "бегу на работу, вернусь завтра"}

#: Inline forms: (opening, closing). "(оос" is Cyrillic lower case with a space, "(OOС" mixes
#: Latin O with a Cyrillic С, as keyboards do.
INLINE = {
    "paren-ooc": ("(OOC: ", ")"),
    "paren-off": ("(OFF: ", ")"),
    "paren-cyrillic": ("(ООС: ", ")"),
    "paren-cyrillic-lower": ("(оос ", ")"),
    "paren-mixed-script": ("(OOС - ", ")"),
    "paren-nested": ("(OOC: (really) ", " (sorry))"),
    "double-paren": ("((", "))"),
    "double-paren-nested": ("((", " (sorry)))"),
    "bbcode-ooc": ("[ooc]", "[/ooc]"),
}
FORMATS = ("text", "bbcode", "html", "markdown")


def _as(fmt: str, lines: list[str]) -> str:
    if fmt == "html":
        return "".join(f"<p>{html.escape(line, quote=False)}</p>" for line in lines)
    return "\n".join(lines)


def _check(text: str, fmt: str, lang: str, trap: str) -> None:
    post = parse_post(text, fmt=fmt, lang=lang, roster=ROSTER)
    assert [(a.kind.value, a.target) for a in post.actions] == [("attack", "goblin")], post.to_dict()
    assert [r.expression for r in post.rolls] == ["1d20+5"]
    assert post.actions[0].options.roll_index == 0
    assert any(trap in o.text for o in post.ooc), post.ooc


@pytest.mark.parametrize("lang", sorted(DECLARE))
def test_the_aside_words_would_make_a_move_as_prose(lang: str) -> None:
    """Issue 13 item 1: the trap is real: outside an aside these words declare a move."""
    post = parse_post(TRAP[lang], lang=lang, roster=ROSTER)
    assert [a.kind.value for a in post.actions] == ["move"]


@pytest.mark.parametrize("where", ["after", "before", "around"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("lang", sorted(DECLARE))
@pytest.mark.parametrize("form", sorted(INLINE))
def test_inline_aside_ends_at_its_close(form: str, lang: str, fmt: str, where: str) -> None:
    """Issue 13 item 1: an inline aside ends at its closing mark, the declaration after it
    (``(OOC: …) I attack``), before it (a trailing aside adds no move) or around it."""
    opening, closing = INLINE[form]
    aside = f"{opening}{TRAP[lang]}{closing}"
    first, second = DECLARE[lang]
    line = {"after": f"{aside} {first} {second}", "before": f"{first} {second} {aside}",
            "around": f"{first} {aside} {second}"}[where]
    _check(_as(fmt, [line]), fmt, lang, TRAP[lang])


@pytest.mark.parametrize("where", ["after", "before", "around"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("lang", sorted(DECLARE))
@pytest.mark.parametrize("prefix", ["OOC: ", "OFF: ", "ООС: ", "Офф - "])
def test_line_prefix_aside_ends_with_its_line(prefix: str, lang: str, fmt: str,
                                              where: str) -> None:
    """Issue 13 item 1: ``OOC:`` opening a line is an aside to the end of that line only."""
    aside = f"{prefix}{TRAP[lang]}"
    first, second = DECLARE[lang]
    lines = {"after": [aside, f"{first} {second}"], "before": [f"{first} {second}", aside],
             "around": [f"{first} {second.split(' [')[0]}", aside,
                        "[roll]1d20+5[/roll]"]}[where]
    _check(_as(fmt, lines), fmt, lang, TRAP[lang])


@pytest.mark.parametrize("lang", sorted(DECLARE))
def test_prefix_after_a_sentence_end_runs_to_the_line_end(lang: str) -> None:
    """Issue 13 item 1: ``… [roll]. OOC: …`` on the same line: the aside is the rest of it."""
    first, second = DECLARE[lang]
    _check(f"{first} {second}. OOC: {TRAP[lang]}", "text", lang, TRAP[lang])


def test_the_issue_examples() -> None:
    """Issue 13 item 1, as reported: the action and roll after ``(OOC: back tomorrow)``
    are read, and the trailing aside adds no move."""
    post = parse_post("(OOC: back tomorrow) I attack the goblin with my sword [roll]1d20+5[/roll]",
                      roster=ROSTER)
    assert [(a.kind.value, a.target) for a in post.actions] == [("attack", "goblin")]
    assert [o.text for o in post.ooc] == ["OOC: back tomorrow"]
    assert post.to_dict()["excluded"] == [{"kind": "ooc", "start": 0, "end": 20}]
    post = parse_post("I attack the goblin [roll]1d20+5[/roll] (OOC: back tomorrow)", roster=ROSTER)
    assert [a.kind.value for a in post.actions] == ["attack"]


def test_unclosed_inline_aside_runs_to_its_line_end_and_is_reported() -> None:
    """Issue 13 item 1: an aside never closed still hides its words (to the end of its
    line, reported), and the next line is read."""
    post = parse_post("(OOC: back tomorrow, I run to work\nI attack the goblin [roll]1d20+5[/roll]",
                      roster=ROSTER)
    assert [(a.kind.value, a.target) for a in post.actions] == [("attack", "goblin")]
    assert "ooc.unclosed" in {e.code for e in post.errors}


def test_a_smiley_does_not_close_an_aside() -> None:
    """Issue 13 item 1: ``:)`` inside an aside is a smiley, not its end."""
    post = parse_post("(OOC: sorry :) back tomorrow) I attack the goblin", roster=ROSTER)
    assert [a.kind.value for a in post.actions] == ["attack"]
    assert post.ooc[0].text == "OOC: sorry :) back tomorrow"


def test_ordinary_parentheses_are_not_asides() -> None:
    """Issue 13 item 1: "(off to the side)" is an aside, "(office)" or "(of course)" are not."""
    post = parse_post("I attack the goblin (of course) with my sword", roster=ROSTER)
    assert post.ooc == () and [a.kind.value for a in post.actions] == ["attack"]
    post = parse_post("I run to the goblin (officially) and attack", roster=ROSTER)
    assert post.ooc == ()
