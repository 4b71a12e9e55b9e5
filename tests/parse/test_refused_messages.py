"""PBP-4: a refused roll is said to the player in the post's language, with every value
its sentence names, whichever way it was written (a roll tag, ``.r``, ``.init set``,
``.ri =``). Before: a roll of more than 60 terms was said with the dice's English inside
a Portuguese or Russian sentence, and ``.init set``/``.ri`` refusals showed ``{limit}``
and ``{position}`` unfilled, because each caller passed its own values.

The limits come from the dice's rules, not from the program's output: at most 1,000 dice
(``2000d6`` is a bomb), 60 terms, 256 characters."""

from __future__ import annotations

import pytest

from pbp.parse import parse_post

TERMS = "+".join(["1"] * 70)          # 70 terms, 139 characters: only the term count is over
LONG = "1+" * 150 + "1"               # 301 characters

#: (the expression, the code, words each language's sentence must hold)
REFUSALS = [
    ("2000d6", "dice.too_many", {"en": "more than 1000 dice", "pt": "mais de 1000 dados",
                                 "ru": "больше 1000 костей"}),
    (TERMS, "dice.too_many_terms", {"en": "more than 60 terms", "pt": "mais de 60 termos",
                                    "ru": "больше 60 слагаемых"}),
    (LONG, "dice.too_long", {"en": "301 characters long; at most 256",
                             "pt": "301 caracteres; o máximo é 256",
                             "ru": "длиной 301 символов; допустимо не больше 256"}),
]

#: the ways a player writes a roll, each with the expression in its place
WAYS = {
    "tag": "[roll]{e}[/roll]",
    ".r": ".r {e}",
    ".init set": ".init set Brienne {e}",
    ".ri =": ".ri ={e} Brienne",
}

#: words of the dice's own English that must not reach a pt or ru reply
ENGLISH = ("dice expression", "terms;", "cannot be rolled", "at most")


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
@pytest.mark.parametrize("way", list(WAYS))
@pytest.mark.parametrize("expression, code, words", REFUSALS, ids=[r[1] for r in REFUSALS])
def test_pbp4_refused_roll_said_whole_in_the_posts_language(lang: str, way: str, expression: str,
                                                            code: str, words: dict[str, str]) -> None:
    post = parse_post(WAYS[way].format(e=expression), fmt="bbcode", lang=lang)
    found = [e for e in post.errors if e.code == code]
    assert found, post.errors
    message = found[0].message
    assert "{" not in message and "}" not in message, message
    assert words[lang] in message, message
    if lang != "en":
        assert not any(w in message for w in ENGLISH), message


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_pbp4_a_quoted_command_is_shortened(lang: str) -> None:
    """A command that cannot be read is quoted by its first 60 characters, not whole: the
    reply quotes it back to the thread."""
    post = parse_post(".init " + LONG, lang=lang)
    (issue,) = [e for e in post.errors if e.code == "command.syntax"]
    assert ".init 1+1+" in issue.message and "…" in issue.message
    assert len(issue.params["text"]) == 61
