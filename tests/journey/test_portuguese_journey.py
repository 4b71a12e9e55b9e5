"""A Portuguese campaign on a live django-machina forum, walked from an empty data directory
(the English journey's steps, in Portuguese): the sheets come from a CSV in English
("longsword", "axe"), as an imported roster often does; the players post in Portuguese
in Chromium through machina's own reply page and editor, one with a roll tag naming a
stat the sheet does not have and three speeches over a limit of one. Read as a visitor, the result says all of it in
Portuguese, and both attacks count (FD-3: "machado" is the sheet's "axe"); the narrator,
whose panel is in English, reads the Violations list in English.

Expected sentences are the reply catalogs' Portuguese for PBP-3's speech note, PBP-4's
"not understood" with the dice's refusal dice.unknown_stat, and FD-3's hit and miss."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.harness.machina.helpers import PLAYER, add_user, player_posts_in_browser

from . import narrator as n
from .journey import Side, roster
from .stack import STEP, Pbp, csv_file, wait_until
from .test_forum_journey import PASSWORDS, thread_as_visitor

pytestmark = [pytest.mark.integration, pytest.mark.slow]
ROUND_SECONDS = 90


def test_pbp_3_pbp_4_fd_3_a_portuguese_campaign_from_an_empty_data_directory(
        browser: Any, machina: Any, tmp_path: Path, journey_dir: Path) -> None:
    line = next(x for x in machina.seed("topic", "Luta a pé", "1") if x.startswith("TOPIC"))
    topic = machina.base + line.split()[1]
    add_user(machina, "tomas", PASSWORDS["tomas"])
    side = Side(name="forum-pt", url=topic, bot="pbpbot", added="",
                players={"brienne": PLAYER["username"], "tomas": "tomas"},
                posts=lambda: thread_as_visitor(topic), reply=lambda who, text: None,
                quote=lambda text: text)
    pbp = Pbp(tmp_path, {"PBP_POLL_INTERVAL": "5", "PBP_DEADLINE_SWEEP_INTERVAL": "5",
                         "PBP_MIN_HOST_INTERVAL": "0.5", "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1",
                         "PBP_SECRET_127_0_0_1_USERNAME": "pbpbot",
                         "PBP_SECRET_127_0_0_1_PASSWORD": "botpass"})

    def report() -> str:
        return f"--- the thread as a visitor reads it\n{side.dump()}\n{pbp.report()}"

    assert pbp.cli("narrator", "add", "nara", "--password-stdin",
                   stdin="narapass-2026\n").returncode == 0
    pbp.serve()
    try:
        ctx = browser.new_context(viewport=n.DESKTOP, locale="en-US")
        page = ctx.new_page()
        n.login(page, pbp.base, "nara", "narapass-2026")
        page.goto(f"{pbp.base}/")
        page.get_by_role("link", name="New campaign").click()
        page.get_by_label("Name").fill("Campanha a pé")
        page.get_by_label("Ruleset").select_option("forum-d20")
        page.get_by_label("Language of replies").select_option("pt")
        page.get_by_label("Time zone").fill("America/Sao_Paulo")
        page.get_by_label("Round length (hours)").fill(f"{ROUND_SECONDS / 3600:g}")
        page.get_by_label("Reminders (hours before the deadline, comma-separated)").fill("")
        page.get_by_label("House rules (TOML)").fill("speech_limit = 1\n")
        page.get_by_role("button", name="Create").click()
        assert n.ok(page) == "Campaign created."
        assert n.add_source(page, topic) == "Source added: django-machina 1.3."
        encounter = n.new_encounter(page, "Luta a pé", csv_file(tmp_path / "pt.csv", roster(side)))
        assert n.start_encounter(page, pbp.base, encounter) == "Encounter started: round 1 is open."
        opening = wait_until(lambda: side.bot_posts("opening"), STEP, "the opening", report)[0]
        assert "Luta a pé — Rodada 1" in opening["text"], opening["text"]

        player_posts_in_browser(browser, machina.base, topic, 'Ataco o Orc com a espada longa '
                                '[roll]1d20+Carisma[/roll] "Morra!" e "Agora!" e "Vai!"',
                                PLAYER["username"], PLAYER["password"])
        player_posts_in_browser(browser, machina.base, topic, "Ataco o Orc com o machado [roll]1d20+3[/roll]",
                                "tomas", PASSWORDS["tomas"])
        # the narrator's page, once both posts are read: the list in the panel's English
        page.goto(f"{pbp.base}/encounters/{encounter}")

        def listed() -> str:
            page.reload()
            section = page.locator("#h-violations").locator("xpath=..").inner_text()
            return section if page.locator("article.post", has_text="machado").count() \
                and "Carisma" in section else ""
        violations = wait_until(listed, STEP, "both posts and Brienne's violations", report)
        assert "'Carisma' in '1d20+Carisma' is not a stat on this sheet" in violations, violations
        assert "3 speech lines, limit 1" in violations, violations
        page.screenshot(path=str(journey_dir / "forum-pt-01-round-open.png"), full_page=True)

        result = wait_until(lambda: side.bot_posts("resolution"), STEP + ROUND_SECONDS,
                            "the round's result", report)[0]
        text = result["text"]
        assert "3 falas, acima do limite de 1" in text, text                      # PBP-3
        assert "não entendido: 'Carisma' em '1d20+Carisma' não é um atributo desta ficha" in text
        assert "is not a stat" not in text and "não tem essa arma" not in text, text
        for who in ("Brienne", "Tomas"):                                         # FD-3
            assert re.search(rf"{who} (?:tira \d+ natural e )?(?:acerta|erra) Orc", text), text
        ctx.close()
    except BaseException:
        print(report())
        raise
    finally:
        pbp.stop()
