"""STALL-9: the weekly list's text per markup and language; names from posts escaped."""

from __future__ import annotations

from datetime import UTC, datetime

from pbp.render.owes import OwedLine, owes_text

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
LINE = OwedLine("Gate [b]fight[/b]", 2, datetime(2026, 12, 1, 17, 30, tzinfo=UTC), "Europe/Moscow",
                "kira_p", "Kira *the* Bold", datetime(2026, 12, 5, tzinfo=UTC), 7.5, 1)


def test_stall9_weekly_text_bbcode_in_russian() -> None:
    """STALL-9: ru words; the deadline in Moscow time (UTC+3); BBCode list; tags broken."""
    text = owes_text([LINE], "ru", "bbcode", NOW, "pbp-reply:owes:1:2026-W49")
    assert text.startswith("[b]Кто должен пост[/b]\n[list]\n[*]kira_p")
    assert "раунд 2, до 2026-12-01 20:30 (через 5 ч); средняя задержка 7.5 ч, пропуски: 1" in text
    assert "отсутствует до 2026-12-05 03:00" in text
    assert "[b]fight" not in text             # the encounter's name cannot open a tag
    assert text.endswith("[/list]\n[size=85]pbp-reply:owes:1:2026-W49[/size]")


def test_stall9_weekly_text_markdown_and_text_in_portuguese_and_english() -> None:
    """STALL-9: pt on Reddit Markdown (specials escaped), en as plain text, empty list."""
    md = owes_text([LINE], "pt", "markdown", NOW, "pbp-reply:k")
    assert md.startswith("**Quem deve um post**\n\n- kira\\_p (Kira \\*the\\* Bold)")
    assert "rodada 2, até 2026-12-01 20:30" in md and md.endswith("^(pbp-reply:k)")
    empty = owes_text([], "en", "text", NOW, "pbp-reply:k")
    assert empty == "Who owes a post\nNobody owes a post this week.\npbp-reply:k"
