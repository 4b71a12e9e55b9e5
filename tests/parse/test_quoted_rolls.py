"""Issue 13 item 4: rolls inside quotes come back marked ``in_quote``, never owned."""

from __future__ import annotations

import pytest

from pbp.parse import parse_post

ROSTER = [{"key": "goblin", "name": "Goblin"}]


@pytest.mark.parametrize(("text", "fmt"), [
    ("[quote=Kara]I attack the goblin [roll]1d20+7[/roll][/quote]\nI attack the goblin [roll]1d20+5[/roll]",
     "bbcode"),
    ("<blockquote>I attack the goblin [roll]1d20+7[/roll]</blockquote><p>I attack the goblin "
     "[roll]1d20+5[/roll]</p>", "html"),
    ("> I attack the goblin [roll]1d20+7[/roll]\n\nI attack the goblin [roll]1d20+5[/roll]", "markdown"),
])
def test_quoted_roll_is_returned_marked(text: str, fmt: str) -> None:
    """Issue 13 item 4: in every format the quoted tag is returned with ``in_quote: true``,
    numbered after the poster's own (their identity unchanged, PBP-4), given to no action."""
    post = parse_post(text, fmt=fmt, roster=ROSTER)
    rolls = post.to_dict()["rolls"]
    assert [(r["expression"], r["in_quote"], r["index"]) for r in rolls] == [
        ("1d20+5", False, 0), ("1d20+7", True, 1)]
    assert rolls[1]["action_index"] is None and rolls[0]["action_index"] == 0
    assert [a.options.roll_indices for a in post.actions] == [(0,)]
    alone = parse_post(text.split("[roll]1d20+7[/roll]")[1], fmt=fmt, roster=ROSTER)
    assert [r.key for r in alone.rolls if not r.in_quote] == [rolls[0]["key"]]
