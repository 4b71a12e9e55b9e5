"""Issue 17 i18n leftover, after :mod:`pbp.panel.kind_words`: the encounter page, the
dashboard and the roll ledger showed override, reply and roll kinds (and the dashboard a
thread's kind, the campaign page a narrator's role) as the store's codes ("roll · ...",
"correction", "#4 narrator"). They are words now (:mod:`pbp.panel.code_words`); the ledger
worded three roll kinds of five and now reads the same single table.

The expected words are the catalogs' entries as written, not read back from the program.
The data is the sample fight (pbp.panel.sample) moved on through the service layer: round
1's result posted and a roll of it overridden (a pending override in its preview), a
correction posted, a deadline notice held in approval mode, a narrator's secret roll and a
table roll whose post is gone (both shown under "Other rolls" and in the ledger by kind).
"""

from __future__ import annotations

import html as html_text
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from flask_babel import force_locale
from sqlalchemy import select

from pbp.panel import code_words
from pbp.rounds import overrides, secret, service
from pbp.rounds.rolls import make_roll
from pbp.store.db import make_engine, session_scope
from pbp.store.ledger import REPLY_KINDS
from pbp.store.models import ROLL_KINDS, Campaign, Reply, Round

ROOT = Path(__file__).resolve().parents[2]

#: per language: the override "roll", the replies "opening", "correction", "resolution" and
#: "notice", the rolls "table" and "narrator", the thread kind "forum", the role "owner"
WORDS = {
    "en": {"roll": "roll result set", "opening": "opening", "correction": "correction",
           "resolution": "result", "notice": "notice", "table": "table roll",
           "narrator": "narrator's roll", "forum": "forum", "owner": "owner"},
    "pt": {"roll": "resultado de rolagem definido", "opening": "abertura", "correction": "correção",
           "resolution": "resultado", "notice": "aviso", "table": "rolagem de tabela",
           "narrator": "rolagem do narrador", "forum": "fórum", "owner": "dono"},
    "ru": {"roll": "результат броска задан", "opening": "начало раунда", "correction": "исправление",
           "resolution": "итог раунда", "notice": "объявление", "table": "бросок по таблице",
           "narrator": "бросок ведущего", "forum": "форум", "owner": "владелец"},
}


def _lang(alice: Any, lang: str) -> None:
    assert alice.post("/language", {"language": lang}).status_code == 302


def _get(alice: Any, url: str) -> str:
    """The page, its entities unescaped ("narrator's roll" is written ``&#39;``)."""
    r = alice.get(url)
    assert r.status_code == 200, url
    return html_text.unescape(str(r.text))


def _posted_with_override(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """Round 1's result out (approval off), then one of its rolls set: a pending override."""
    with session_scope(make_engine(db_url)) as s:
        campaign = s.get(Campaign, ids["campaign"])
        assert campaign is not None
        campaign.approval_mode = False
        service.approve_reply(s, ids["reply"], ids["alice"])
        for reply in s.scalars(select(Reply).where(Reply.round_id == ids["round1"])):
            reply.state = "sent"
    r = alice.post(f"/encounters/{ids['encounter']}/override/roll",
                   {"roll_id": ids["rolls1"][0], "total": 1, "reason": "typo fix", "round_number": 1})
    assert r.status_code == 303


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_pending_override_and_other_replies_in_words(alice: Any, ids: dict[str, Any], db_url: str,
                                                     lang: str) -> None:
    w = WORDS[lang]
    _posted_with_override(alice, ids, db_url)
    _lang(alice, lang)
    html = _get(alice, f"/encounters/{ids['encounter']}?round=1")
    pending = re.findall(r'<li data-kind="([a-z.]+)">([^<·:]*?)(?: · [^:<]*)?: typo fix</li>', html)
    assert pending == [("roll", w["roll"])]
    r = alice.post(f"/encounters/{ids['encounter']}/correct",
                   {"round_id": ids["round1"], "reason": "typo fix", "round_number": 1})
    assert r.status_code == 303
    html = _get(alice, f"/encounters/{ids['encounter']}?round=1")
    others = dict(re.findall(r'<span class="badge" data-kind="([a-z]+)">([^<]*)</span>',
                             html.split('id="other-replies"')[1]))
    assert others["opening"] == w["opening"] and others["correction"] == w["correction"]
    if lang != "en":
        assert '<span class="badge" data-kind="correction">correction</span>' not in html
        assert "<li data-kind=\"roll\">roll" not in html


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_held_replies_said_in_words_on_the_round_and_the_dashboard(
        alice: Any, ids: dict[str, Any], db_url: str, lang: str) -> None:
    """Round 1's held result on the dashboard; a deadline notice held in approval mode on
    round 2's page ("A reply of round 2 (notice) waits ...") and in the queue."""
    w = WORDS[lang]
    _lang(alice, lang)
    dash = _get(alice, "/")
    queue = re.findall(r'<span class="badge" data-kind="([a-z]+)">([^<]*)</span>', dash)
    assert ("resolution", w["resolution"]) in queue
    assert ("forum", w["forum"]) in queue                 # the thread's kind in the sources list
    with session_scope(make_engine(db_url)) as s:
        service.approve_reply(s, ids["reply"], ids["alice"])     # approval mode stays on
    r = alice.post(f"/encounters/{ids['encounter']}/override/deadline",
                   {"round_id": ids["round"], "deadline": "2099-01-02T12:30", "reason": "the forum was down"})
    assert r.status_code == 303
    html = _get(alice, f"/encounters/{ids['encounter']}")
    flash = re.findall(r'<div class="flash error" role="status"><p>(.*?)\n', html)
    assert any(f"({w['notice']})" in f for f in flash), flash
    dash = _get(alice, "/")
    assert ("notice", w["notice"]) in re.findall(r'<span class="badge" data-kind="([a-z]+)">([^<]*)</span>', dash)
    if lang != "en":
        assert "(notice)" not in html and ">notice<" not in dash and ">resolution<" not in dash


def _loose_rolls(ids: dict[str, Any], db_url: str) -> None:
    """A narrator's secret roll, and a table roll whose post is gone, in the open round."""
    with session_scope(make_engine(db_url)) as s:
        secret.roll_secret(s, ids["encounter"], "1d20", "ambush", ids["alice"], datetime.now(UTC))
        rnd = s.get(Round, ids["round"])
        assert rnd is not None
        make_roll(s, rnd, "1d6", kind="table", actor="hero-1", label="table:crit")


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_table_and_narrator_rolls_in_words_on_the_round_and_the_ledger(
        alice: Any, ids: dict[str, Any], db_url: str, lang: str) -> None:
    w = WORDS[lang]
    _loose_rolls(ids, db_url)
    _lang(alice, lang)
    html = _get(alice, f"/encounters/{ids['encounter']}")
    shown = dict(re.findall(r'<span data-kind="([a-z]+)">([^<]*)</span> ·', html))
    assert shown == {"table": w["table"], "narrator": w["narrator"]}
    ledger = _get(alice, f"/encounters/{ids['encounter']}/ledger")
    by_kind = dict(re.findall(r'<tr id="roll-\d+" data-kind="([a-z]+)"[^>]*>(?:(?!</tr>).)*?'
                              r'<td data-label="[^"]*"><span class="muted">([^<]*)</span>', ledger, re.S))
    assert by_kind["table"] == w["table"] and by_kind["narrator"] == w["narrator"]
    if lang != "en":
        assert not re.search(r'<span class="muted">(?:table|narrator|engine|tag)</span>', ledger)
        assert not re.search(r"</span> (?:table|narrator) ·", html)


def test_campaign_page_says_the_role(alice: Any, ids: dict[str, Any]) -> None:
    _lang(alice, "pt")
    html = _get(alice, f"/campaigns/{ids['campaign']}")
    assert "(alice, dono)" in html and "(alice, owner)" not in html


def test_unknown_code_is_shown_as_itself(app: Any) -> None:
    with app.test_request_context(), force_locale("pt"):
        assert code_words.override_word("teleport") == "teleport"
        assert code_words.reply_word(None) == ""
        assert code_words.roll_word("table") == "rolagem de tabela"
        assert code_words.reply_word("notice") == "aviso"
        assert code_words.override_word("condition.add") == "condição adicionada"
    with app.test_request_context(), force_locale("ru"):
        assert code_words.roll_word("narrator") == "бросок ведущего"
        assert code_words.role_word("co") == "соведущий"


def _literals(pattern: str) -> set[str]:
    """The string codes *pattern* (its groups) finds in pbp's source."""
    found: set[str] = set()
    for path in (ROOT / "pbp").rglob("*.py"):
        for hit in re.findall(pattern, path.read_text(encoding="utf-8"), re.S):
            found |= {h for h in (hit if isinstance(hit, tuple) else (hit,)) if h}
    return found


def test_every_code_has_a_word() -> None:
    """Every override, reply and roll kind of the source lists has its word, and every kind
    the code writes is in those lists: a new kind without a word fails here."""
    assert set(overrides.KINDS) == set(code_words.OVERRIDE_WORDS)
    assert set(REPLY_KINDS) == set(code_words.REPLY_WORDS)
    assert set(ROLL_KINDS) == set(code_words.ROLL_WORDS)
    written = _literals(r'(?:new_view|store_reply|queue_round_reply)\([^()"]*"([a-z]+)"')
    written |= _literals(r'Reply\([^()]*?kind="([a-z]+)"')
    written |= _literals(r'key, kind, into(?:, state)? = [^,]+, "([a-z]+)"')
    assert {"opening", "reminder", "resolution", "notice", "closing", "correction", "reveal",
            "extension", "owes", "tracker", "edit"} <= written     # the scan reads them
    assert written <= set(REPLY_KINDS)
    rolled = _literals(r'(?:make_roll|roll_row|record_from_roll)\([^()]*?kind="([a-z]+)"')
    assert {"tag", "table", "narrator", "engine", "initiative"} <= rolled
    assert rolled <= set(ROLL_KINDS)
    recorded = _literals(r'\brecord\([^()]*?kind="([a-z.]+)"(?: if \w+ else "([a-z.]+)")?')
    assert {"roll", "hp", "round.correct", "penalty.waive", "penalty.apply", "reply.hold"} <= recorded
    assert recorded <= set(overrides.KINDS)
