"""Rendering: escaping per platform, catalogs complete and compiled from .po, deadlines in
the campaign's time zone."""

from __future__ import annotations

from datetime import UTC, datetime

from pbp.render import escape, render_reply, when
from pbp.render.catalog import message_ids, missing
from pbp.render.i18n import translations
from pbp.render.view import ActorSection, EventLine, ReplyView
from pbp.rules import messages


def test_user_text_cannot_open_markup_or_forge_a_marker():
    assert "[b]" not in escape.bbcode("[b]x[/b] [url=http://e]y[/url]")
    md = escape.markdown("**x** [y](http://e) <b> # h\n> q\n- l")
    assert "**" not in md and "](" not in md.replace("\\]", "") and "<b>" not in md
    assert "\n\\> q" in md and "\n\\- l" in md
    for esc in (escape.bbcode, escape.markdown, escape.plain):
        assert "pbp-reply:" not in esc("see pbp-reply:7:resolution")


def test_every_reply_string_is_translated_from_the_committed_po_files():
    engine_texts = set(messages.EN.values())
    for lang in ("pt", "ru"):
        ours = [m for m in missing(lang) if m not in engine_texts]
        assert ours == [], f"{lang}: untranslated reply strings {ours}"
        assert len(missing(lang)) <= len(message_ids()) // 10   # engine events: mostly done
    assert translations("ru").gettext("Round {number}") == "Раунд {number}"


def _view(platform: str, lang: str) -> ReplyView:
    aria = ActorSection(key="aria", name="Aria [b]", player="alice", initiative=12, hp=5, max_hp=9,
                        notes=[{"code": "late"}], speech=["Die, *fool*!"],
                        events=[EventLine("attack.hit", {"total": 19, "defense": 15}, "FD-3",
                                          ("1d20 (14) + 5 = 19",), actor="aria", target="gob")])
    gob = ActorSection(key="gob", name="Goblin", hp=0, max_hp=7, down=True,
                       conditions=["prone"])
    return ReplyView(kind="resolution", platform=platform, language=lang,
                     timezone="Europe/Moscow", encounter="Road", round_number=3,
                     actors=[aria, gob], seed="s", seed_commitment="c", next_round=4,
                     next_deadline=datetime(2026, 12, 1, 18, 0, tzinfo=UTC),
                     next_commitment="n", marker="pbp-reply:9:resolution")


def test_a_reply_in_each_platform_and_language():
    bb = render_reply(_view("bbcode", "ru"))
    assert "[b]Aria [\u200bb][/b] (alice)" in bb
    assert "Aria [\u200bb] попадает по Goblin: 19 против 15. (FD-3) — 1d20 (14) + 5 = 19" in bb
    assert "Состояния: лежит" in bb and bb.rstrip().endswith("[size=85]pbp-reply:9:resolution[/size]")
    assert "2026-12-01 21:00 (Europe/Moscow, UTC+03:00)" in bb
    md = render_reply(_view("markdown", "pt"))
    assert "> Die, \\*fool\\*!" in md and "_post atrasado (PBP-2)_" in md
    assert "Rodada 4:" in md and md.rstrip().endswith("^(pbp-reply:9:resolution)")
    en = render_reply(_view("text", "en"))
    assert "Aria [b] hits Goblin: 19 against 15. (FD-3)" in en


def test_a_forum_s_plain_markdown_has_no_reddit_superscript_nor_u_mentions():
    """Walked on django-machina (tests/journey): its Markdown has no ``^(…)``, so the
    marker showed as typed, and a reminder would have named players ``u/name``."""
    from dataclasses import replace

    forum = replace(_view("markdown", "en"), markdown_flavor="forum")
    assert render_reply(forum).rstrip().endswith("\n*pbp-reply:9:resolution*")
    waiting = replace(forum, kind="reminder", deadline=datetime(2026, 12, 1, 18, 0, tzinfo=UTC),
                      waiting=[{"name": "Aria", "player": "alice"}])
    assert "- Aria (@alice)" in render_reply(waiting)
    reddit = replace(waiting, markdown_flavor="reddit", marker="pbp-reply:9:reminder")
    assert "- Aria (u/alice)" in render_reply(reddit) and "^(pbp-reply:9:reminder)" in render_reply(reddit)


def test_deadlines_are_said_in_the_campaign_time_zone():
    dt = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    assert when(dt, "America/Sao_Paulo") == "2026-07-01 09:00 (America/Sao_Paulo, UTC-03:00)"
    assert when(dt, "Asia/Kolkata") == "2026-07-01 17:30 (Asia/Kolkata, UTC+05:30)"
    assert when(dt, "Mars/Olympus") == "2026-07-01 12:00 (UTC, UTC+00:00)"
