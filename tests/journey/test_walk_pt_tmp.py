"""Throwaway walk (not committed): a Portuguese campaign on machina; a player's refused roll
tag and a speech over the limit; the panel and the reply as a visitor."""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from tests.harness.machina.helpers import PLAYER, add_user, player_posts

from . import narrator as n
from .journey import MARKER, roster, Side
from .stack import STEP, Pbp, csv_file, wait_until
from .test_forum_journey import PASSWORDS, thread_as_visitor

OUT = Path("/tmp/walk_pt")


def test_walk_pt(browser: Any, machina: Any, tmp_path: Path) -> None:
    OUT.mkdir(exist_ok=True)
    line = next(x for x in machina.seed("topic", "Luta a pé", "1") if x.startswith("TOPIC"))
    topic = machina.base + line.split()[1]
    add_user(machina, "tomas", PASSWORDS["tomas"])
    side = Side(name="forum", url=topic, bot="pbpbot", added="", players={"brienne": PLAYER["username"], "tomas": "tomas"},
                posts=lambda: thread_as_visitor(topic), reply=lambda w, t: None, quote=lambda t: t)
    pbp = Pbp(tmp_path, {"PBP_POLL_INTERVAL": "5", "PBP_DEADLINE_SWEEP_INTERVAL": "5", "PBP_MIN_HOST_INTERVAL": "0.5",
                         "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1",
                         "PBP_SECRET_127_0_0_1_USERNAME": "pbpbot", "PBP_SECRET_127_0_0_1_PASSWORD": "botpass"})
    assert pbp.cli("narrator", "add", "nara", "--password-stdin", stdin="narapass-2026\n").returncode == 0
    pbp.serve()
    try:
        ctx = browser.new_context(viewport=n.DESKTOP, locale="en-US")
        page = ctx.new_page()
        n.login(page, pbp.base, "nara", "narapass-2026")
        page.goto(f"{pbp.base}/")
        page.locator("a[href$='/campaigns/new']").first.click()
        page.locator("#name").fill("Campanha a pé")
        page.locator("#ruleset").select_option("forum-d20")
        page.locator("#language").select_option("pt")
        page.locator("#timezone").fill("America/Sao_Paulo")
        page.get_by_label("Round length (hours)").fill(f"{90 / 3600:g}")
        page.get_by_label("Reminders (hours before the deadline, comma-separated)").fill("")
        page.locator("#houserules").fill("speech_limit = 1\n")
        page.get_by_role("button", name="Create").click()
        page.screenshot(path=str(OUT / "01-campaign.png"), full_page=True)
        print("flash:", page.locator(".flash").all_inner_texts())
        cid = re.search(r"/campaigns/(\d+)", page.url).group(1)
        print("source:", n.add_source(page, topic))
        enc = n.new_encounter(page, "Luta a pé", csv_file(tmp_path / "w.csv", roster(side)))
        print("start:", n.start_encounter(page, pbp.base, enc))
        opening = wait_until(lambda: side.bot_posts("opening"), STEP, "opening", lambda: side.dump() + pbp.report())[0]
        print("OPENING:\n", opening["text"])
        player_posts(machina.base, topic, 'Ataco o Orc com a espada longa [roll]1d20+Carisma[/roll] "Morra!" e "Agora!" e "Vai!"',
                     PLAYER["username"], PLAYER["password"])
        player_posts(machina.base, topic, "Ataco o Orc com o machado [roll]1d20+3[/roll]", "tomas", PASSWORDS["tomas"])
        time.sleep(15)
        page.goto(f"{pbp.base}/encounters/{enc}")
        page.screenshot(path=str(OUT / "02-encounter.png"), full_page=True)
        print("PAGE TEXT:\n", page.locator("main").inner_text()[:4000])
        result = wait_until(lambda: side.bot_posts("resolution"), STEP + 90, "result", lambda: side.dump() + pbp.report())[0]
        print("RESULT:\n", result["text"])
        page2 = ctx.new_page()
        page2.goto(result["at"])
        page2.screenshot(path=str(OUT / "03-thread.png"), full_page=True)
        page.goto(f"{pbp.base}/encounters/{enc}?round=1")
        page.screenshot(path=str(OUT / "04-round1.png"), full_page=True)
    finally:
        pbp.stop()
