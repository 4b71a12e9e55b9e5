"""One narrator's journey, the same on every platform (issue 11, "What it must show").

:func:`run` plays it against a :class:`Side`: the platform's half (where the thread is, how
a player posts and quotes, how a visitor reads the thread). From an empty data directory:
``pbp narrator add``, ``pbp serve``; in Chromium: log in, a forum-d20 campaign with a 72 s
round and a reminder 36 s before its deadline, the source by its address alone (item 1),
an encounter whose combatants come from a CSV file, "Start the encounter" (item 2). On the
platform: the opening; Brienne's player replies quoting it (issue 12: still a declaration);
the reminder names only Tomas (item 3), whose player then replies; the deadline passes and
the result, read as a visitor reads it, took both declarations (PBP-1, PBP-2: nobody
missing or late). The narrator changes Brienne's roll of that posted round and posts the
correction (item 6): it appears on the platform saying what changed, the reason private
(item 7). DICE-4: once round 1's result is posted, ``pbp verify URL`` run by a player from an
empty data directory checks the dice from the thread alone (exit 0); at the end someone
rewrites a roll in the bot's result on the platform and the same command names it (exit 1).
Every bounded wait prints the thread and ``pbp status`` when it runs out.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbp.render.proof import parse_line

from . import narrator as n
from .stack import STEP, Pbp, csv_file, files_under, visitor_verify, wait_until

PASSWORD = "narapass-2026"
MARKER = re.compile(r"pbp-reply:(\d+):(\w+)")
ROUND_SECONDS = 72


@dataclass
class Side:
    """A platform's half of the journey.

    *url* is what the narrator pastes; *posts()* the thread as a visitor reads it, oldest
    first, each ``{"id", "author", "text", "at"}`` (``at``: the visitor's address showing
    it); *reply(username, text)* a player posting the platform's own way; *quote(text)*
    what the platform's Quote button makes of a post; *players* the platform accounts of
    Brienne and Tomas; *added* the panel's confirmation of the source; *visitor_env* what a
    player's ``pbp verify`` needs (no secret of the bot's); *tamper(post id, change)* someone
    rewriting a post on the platform, ``change`` turning its source text into the new one."""

    name: str
    url: str
    bot: str
    added: str
    players: dict[str, str]
    posts: Callable[[], list[dict[str, str]]]
    reply: Callable[[str, str], None]
    quote: Callable[[str], str]
    env: dict[str, str] = field(default_factory=dict)
    visitor_env: dict[str, str] = field(default_factory=dict)
    tamper: Callable[[str, Callable[[str], str]], None] | None = None

    def bot_posts(self, kind: str) -> list[dict[str, str]]:
        """The bot's replies of *kind*, known by author and marker, as pbp knows them."""
        return [p for p in self.posts() if p["author"] == self.bot
                and any(k == kind for _, k in MARKER.findall(p["text"]))]

    def dump(self) -> str:
        return "\n".join(f"[{p['id']} {p['author']}] {p['text'][:600]}" for p in self.posts())


def roster(side: Side) -> list[dict[str, Any]]:
    """forum-d20 sheets (RULES.md FD-3, FD-4): Luta attacks, Fortitude defends; the Orc's
    HP outlast round 1, so round 2 opens and the correction has a live fight to correct."""
    return [
        {"key": "brienne", "name": "Brienne", "side": "players", "player": side.players["brienne"], "hp": 28,
         "max_hp": 28, "weapons": "longsword:1d8", "luta": 5, "fortitude": 4},
        {"key": "tomas", "name": "Tomas", "side": "players", "player": side.players["tomas"], "hp": 20,
         "max_hp": 20, "weapons": "axe:1d8", "luta": 3, "fortitude": 2},
        {"key": "orc", "name": "Orc", "side": "monsters", "player": "", "hp": 60, "max_hp": 60,
         "weapons": "club:1d6", "luta": 2, "fortitude": 1},
    ]


def forge_first_roll(text: str) -> tuple[str, str]:
    """*text* with its first roll line's total one higher, and what the checker must say of
    it: the round, the roll, what the reply shows and what the seed gives (the faces kept)."""
    for line in text.splitlines():
        roll = parse_line(line)
        if roll is not None and roll.kind == "roll" and roll.total is not None:
            forged = line.replace(f" = {roll.total} ", f" = {roll.total + 1} ", 1)
            assert forged != line, line
            faces = list(roll.faces)
            return text.replace(line, forged, 1), (
                f"round 1: roll #{roll.index} '{roll.expression}': the reply shows {roll.total + 1} "
                f"{faces}, the seed gives {roll.total} {faces}")
    raise AssertionError(f"no roll line in {text!r}")


def run(side: Side, browser: Any, tmp_path: Path, out: Path) -> dict[str, Any]:
    """The whole journey; what it measured (seconds, screenshots)."""
    started = time.monotonic()
    pbp = Pbp(tmp_path, {"PBP_POLL_INTERVAL": "5", "PBP_DEADLINE_SWEEP_INTERVAL": "5",
                         "PBP_MIN_HOST_INTERVAL": "0.5", "PBP_USER_AGENT": "pbp-journey/1",
                         # the local forum and Reddit server: the operator allows them (issue 12)
                         "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1", **side.env})
    shots = n.Shots(browser, out, [])
    name = side.name

    def report() -> str:
        return f"--- the thread as a visitor reads it\n{side.dump()}\n{pbp.report()}"

    # item 8: nothing but the user's data directory, found from another working directory
    assert not pbp.data_dir.exists()
    added = pbp.cli("narrator", "add", "nara", "--password-stdin", stdin=PASSWORD + "\n")
    assert added.returncode == 0 and "narrator nara added" in added.stdout, added.stderr
    assert (pbp.data_dir / "pbp.sqlite").is_file()
    pbp.serve()
    try:
        ctx = browser.new_context(viewport=n.DESKTOP, locale="en-US")
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        n.login(page, pbp.base, "nara", PASSWORD)
        state = ctx.storage_state()
        shots.take(pbp.base + "/", f"{name}-01-dashboard-empty", state)

        campaign = n.create_campaign(page, pbp.base, "Walk campaign", round_hours=f"{ROUND_SECONDS / 3600:g}",
                                     reminders=f"{ROUND_SECONDS / 2 / 3600:g}")
        assert n.add_source(page, side.url) == side.added
        shots.take(f"{pbp.base}/campaigns/{campaign}", f"{name}-02-campaign", state)
        encounter = n.new_encounter(page, "Walk fight", csv_file(tmp_path / "walk.csv", roster(side)))
        assert page.locator("table tbody tr").count() == 3
        shots.take(f"{pbp.base}/encounters/{encounter}/combatants", f"{name}-03-combatants", state)
        assert n.start_encounter(page, pbp.base, encounter) == "Encounter started: round 1 is open."

        # the opening, as a visitor sees it; Brienne's player quotes it in their declaration
        opening = wait_until(lambda: side.bot_posts("opening"), STEP, "the opening reply", report)[0]
        assert "Walk fight — Round 1" in opening["text"] and "Initiative order" in opening["text"]
        assert "^(" not in opening["text"] or name == "reddit", opening["text"]   # no stray markup
        side.reply(side.players["brienne"], side.quote(opening["text"])
                   + "\n\nBrienne charges. I attack the Orc with my longsword [roll]1d20+5[/roll]")
        shots.take(f"{pbp.base}/encounters/{encounter}", f"{name}-04-round-open", state)

        # the reminder names who has not posted: Tomas, not the player who quoted the opening
        reminder = wait_until(lambda: side.bot_posts("reminder"), STEP, "the reminder", report)[0]
        # (the status block at its end, STALL-8, lists both: who declared and who owes a post)
        naming, _, status = reminder["text"].partition("Status — round 1")
        assert "Tomas" in naming and "Brienne" not in naming, reminder["text"]
        assert "Owes a post: Tomas" in status and "Declared: Brienne" in status, reminder["text"]
        side.reply(side.players["tomas"], "I attack the Orc with my axe [roll]1d20+3[/roll]")

        # the deadline passes: the result, read as a visitor reads the thread
        result = wait_until(lambda: side.bot_posts("resolution"), STEP + ROUND_SECONDS, "the round's result",
                            report)[0]
        text = result["text"]
        assert "Walk fight — Round 1" in text
        for who in ("Brienne", "Tomas"):   # both declarations taken: nobody missing or late (PBP-2)
            assert re.search(rf"^\W*{who} (?:rolls a natural \d+ and )?(?:hits|misses) Orc", text, re.M), text
            assert f"{who} posted late or not at all" not in text
        assert "no post this round" not in text and "late post" not in text, text
        assert "Round 2" in text and "post your declarations by" in text      # the next round opened
        shots.take(result["at"], f"{name}-05-thread-result", None, wide_ok=True)

        # DICE-4: a player checks the dice from the thread alone, from empty directories
        player_home = tmp_path / "player"
        checked = visitor_verify(player_home, side.url, side.visitor_env)
        print(f"--- pbp verify {side.url} (a player, after round 1)\n{checked.stdout}{checked.stderr}")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert re.search(r"^round 1: OK \(\d+ roll\(s\) recomputed from seed [0-9a-f]{64}\)$",
                         checked.stdout, re.M), checked.stdout
        assert re.search(r"^dice chain: [0-9a-f]{64}$", checked.stdout, re.M), checked.stdout
        assert files_under(player_home) == []            # no database, no file of any kind
        shots.take(f"{pbp.base}/encounters/{encounter}?round=1", f"{name}-06-round-1-resolved", state)

        # item 6: the narrator finds Brienne's roll wrong after the result was posted
        page.goto(f"{pbp.base}/encounters/{encounter}?round=1")
        assert page.locator("#reply-state").get_attribute("data-state") == "sent"
        rolled = page.locator("article.post", has_text="Brienne charges").locator("div.roll").first.inner_text()
        natural = int(re.search(r"1d20 \((\d+)\) \+ 5 = \d+", rolled).group(1))  # type: ignore[union-attr]
        # FD-8: a natural 1 or 20 on the attack, or on the Orc's defense (a resistance test:
        # its natural 1 always fails, its 20 always holds), decides whatever the total;
        # otherwise the new total turns the result round. (Either defense is looked at: a
        # natural on Tomas's only leaves the damage check out, never asserts a wrong one.)
        flips = natural not in (1, 20) and not re.search(
            r"1d20 \((?:1|20)\) = (?:1|20) \+ 1 fortitude", text)
        hit = re.search(r"Brienne (?:rolls a natural \d+ and )?hits Orc", text) is not None
        new_total = 1 if hit else 40     # a hit becomes a miss, a miss a hit (FD-4 defends with 1d20 + 1)
        said = n.override_roll(page, pbp.base, encounter, 1, "Brienne charges", new_total, "typed +5 for +50")
        assert "post a correction to apply it" in said, said
        shots.take(f"{pbp.base}/encounters/{encounter}?round=1", f"{name}-07-correction-offered", state)
        assert "Correction queued" in n.post_correction(page, "the roll tag was mistyped")
        fixed = wait_until(lambda: side.bot_posts("correction"), STEP, "the correction", report)[0]
        assert "Round 1: correction" in fixed["text"] and "What changed" in fixed["text"], fixed["text"]
        assert f"set to {new_total}" in fixed["text"], fixed["text"]
        if flips:                                                      # the damage came or went
            assert re.search(r"Orc: HP \d+ -\\?> \d+", fixed["text"]), fixed["text"]
        assert "typed +5 for +50" not in fixed["text"] and "mistyped" not in fixed["text"]   # item 7: private
        shots.take(fixed["at"], f"{name}-08-thread-correction", None, wide_ok=True)
        shots.take(f"{pbp.base}/encounters/{encounter}?round=1", f"{name}-09-round-1-corrected", state)
        shots.take(pbp.base + "/", f"{name}-10-dashboard", state)

        # DICE-4: someone rewrites a roll of the bot's posted result on the platform
        said: list[str] = []

        def forge(text: str) -> str:
            forged, problem = forge_first_roll(text)
            said.append(problem)
            return forged
        assert side.tamper is not None
        side.tamper(result["id"], forge)
        checked = visitor_verify(player_home, side.url, side.visitor_env)
        print(f"--- pbp verify {side.url} (a player, after the edit)\n{checked.stdout}{checked.stderr}")
        assert checked.returncode == 1, checked.stdout + checked.stderr
        assert "round 1: FAIL" in checked.stdout and said[0] in checked.stdout, (said, checked.stdout)
        assert files_under(player_home) == []
        assert not errors, errors
        ctx.close()
    except BaseException:
        print(report())
        raise
    finally:
        pbp.stop()
    seconds = time.monotonic() - started
    print(f"{name} journey: {seconds:.0f} s; screenshots: {', '.join(shots.taken)}\n{pbp.status()}")
    return {"seconds": seconds, "screenshots": shots.taken}
