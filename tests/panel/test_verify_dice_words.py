"""DICE-4: a roll the public page cannot roll again is named with the dice's own refusal,
and that refusal is said in the reader's language like the sentence around it. Before,
"rodada 1: a rolagem #0 '1d0' não pode ser refeita: '1d0' asks for a 0-sided die".

The expected sentences are the panel catalogs' checker sentence ("round {n}: roll #{i}
'{expression}' cannot be rolled again: {error}") around the reply catalogs' translation of
the dice's refusal dice.zero_sided ("'{expression}' asks for a 0-sided die")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from flask_babel import force_locale

from pbp.dice import hidden_seed
from pbp.panel.verify_words import checker_words
from pbp.render.hidden import check_hidden, read_hidden
from pbp.store import queries
from pbp.store.db import make_engine, session_scope

from .test_verification import _opt_in, _token, chained_fight


def test_dice_4_a_dice_refusal_inside_a_checker_sentence_is_said_in_the_readers_language(
        client: Any, alice: Any, app: Any, ids: dict[str, Any], db_url: str, tmp_path: Path) -> None:
    thread_file = tmp_path / "thread.yaml"
    thread_file.write_text("")
    fight = chained_fight(db_url, ids, thread_file)
    _opt_in(alice, ids)
    token = _token(db_url, fight["encounter"])
    with session_scope(make_engine(db_url)) as s:
        first = queries.round_rolls(s, fight["round1"])[0]
        reply = queries.reply_by_key(s, f"{fight['round1']}:resolution")
        line = f"#{first.roll_index} {first.expression} = "
        assert line in reply.body
        reply.body = reply.body.replace(line, f"#{first.roll_index} 1d0 = ")   # a d0: never rolled
    i = first.roll_index
    expected = {
        "en": f"round 1: roll #{i} &#39;1d0&#39; cannot be rolled again: &#39;1d0&#39; asks for a "
              "0-sided die",
        "pt": f"rodada 1: a rolagem #{i} &#39;1d0&#39; não pode ser refeita: &#39;1d0&#39; pede um "
              "dado de 0 faces",
        "ru": f"раунд 1: бросок №{i} &#39;1d0&#39; нельзя повторить: &#39;1d0&#39; требует кость с "
              "0 гранями",
    }
    visitor = app.test_client()
    for lang, sentence in expected.items():
        html = visitor.get(f"/verify/{token}", headers={"Accept-Language": lang}).text
        assert f'lang="{lang}"' in html
        row1 = re.search(r'<tr id="round-1" data-ok="no">(.*?)</tr>', html, re.S).group(1)
        assert sentence in row1, (lang, row1)
        if lang != "en":
            assert "0-sided" not in html


def test_dice_4_a_secret_roll_that_cannot_be_replayed_names_the_refusal_in_the_readers_language(
        app: Any) -> None:
    """The other checker sentence quoting the dice (DICE-2's secret rolls, read from the
    thread's text alone): a revealed roll naming a stat the replay cannot know."""
    seed = hidden_seed("k" * 64, 1, 2)
    texts = [f"pbp-dice v1 round=1 commit={'c' * 64}\n#2 revealed {seed} 1d20+Charm = 17 [12]\n"
             "pbp-dice end"]
    problems = check_hidden(read_hidden(texts)).problems
    expected = {
        "en": "round 1: hidden roll #2: '1d20+Charm' cannot be replayed: 'Charm' in '1d20+Charm' "
              "is not a stat on this sheet",
        "pt": "rodada 1: rolagem oculta #2: '1d20+Charm' não pode ser refeita: 'Charm' em "
              "'1d20+Charm' não é um atributo desta ficha",
        "ru": "раунд 1: скрытый бросок №2: '1d20+Charm' нельзя повторить: 'Charm' в '1d20+Charm': "
              "такой характеристики нет в листе персонажа",
    }
    for lang, sentence in expected.items():
        with app.test_request_context(), force_locale(lang):
            assert sentence in [checker_words(p) for p in problems], lang
