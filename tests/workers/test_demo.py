"""The demo's scripted players and narrator (workers/demo_players.py) on a clock of our own.

The whole demo runs in-process here: the seeded campaign, the script ticking every half
second, the thread file read like the worker reads it (FileSource, ingest) and the rounds
resolved a second after their deadline (a sweep). Seeds are fixed, so each run is the same,
but every assertion is worked out from the rules (PBP-2, FD-2, the override) and the
script, not copied from an output.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import select, update

from pbp.rounds import lifecycle, service
from pbp.settings import load_settings
from pbp.sources.scenario_file import FileSource, append_post
from pbp.store import models as m
from pbp.store.db import make_engine, session_scope, upgrade
from workers.demo import DEMO_DIR, demo_replies_path, demo_thread_path, seed_demo
from workers.demo_players import DemoPlayers, load_script

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
SCRIPT = yaml.safe_load((DEMO_DIR / "script.yaml").read_text())


class Demo:
    """The demo campaign, its script and a clock; :meth:`run` plays it forward."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.engine = make_engine(settings.database_url)
        self.campaign = seed_demo(settings, now=T0)
        self.path = demo_thread_path(settings)
        self.now = T0
        self.source = FileSource(self.path, clock=lambda: self.now)
        self.cursor: dict[str, Any] | None = None
        self.players = DemoPlayers(self.engine, self.path, load_script())
        with session_scope(self.engine) as s:
            self.thread_id = s.scalars(select(m.Thread.id)).one()

    def read_thread(self) -> None:
        with session_scope(self.engine) as s:
            result = self.source.fetch(self.cursor)
            self.cursor = result.cursor
            service.ingest_posts(s, self.thread_id, result.posts, now=self.now)

    def step(self, sweep_delay: float = 1.0) -> None:
        self.players.tick(self.now)
        self.read_thread()
        with session_scope(self.engine) as s:
            for rid in service.due_reminders(s, self.now):
                service.send_reminder(s, rid, self.now)
            for rid in service.due_rounds(s, self.now - timedelta(seconds=sweep_delay)):
                service.resolve_round(s, rid, self.now)

    def run(self, resolved: int, limit: float = 600) -> None:
        """Half-second steps until *resolved* rounds are resolved (or the fight is over)."""
        end = self.now + timedelta(seconds=limit)
        while self.now < end and len(self.resolutions()) < resolved and not self.finished():
            self.step()
            self.now += timedelta(seconds=0.5)

    def resolutions(self) -> dict[int, str]:
        with session_scope(self.engine) as s:
            rows = s.execute(select(m.Round.number, m.Reply.body).join(m.Reply, m.Reply.round_id == m.Round.id)
                             .where(m.Reply.kind == "resolution"))
            return {n: b for n, b in rows}

    def finished(self) -> bool:
        with session_scope(self.engine) as s:
            return s.scalars(select(m.Encounter.status)).one() == "finished"

    def thread_posts(self) -> list[dict[str, Any]]:
        return [d for d in yaml.safe_load_all(self.path.read_text()) if d]


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Demo]:
    monkeypatch.setenv("PBP_DATA_DIR", str(tmp_path / "var"))
    for key in ("PBP_DATABASE_URL", "PBP_BROKER_URL", "PBP_CONFIG"):
        monkeypatch.delenv(key, raising=False)
    counter = itertools.count(1)
    monkeypatch.setattr(lifecycle, "seed_source", lambda: f"demo-seed-{next(counter)}")
    settings = load_settings()
    upgrade(settings.database_url)
    d = Demo(settings)
    yield d
    d.engine.dispose()


def test_three_rounds_with_npcs_a_late_player_and_a_correction(demo: Demo) -> None:
    demo.run(resolved=3)
    replies = demo.resolutions()
    assert {1, 2, 3} <= set(replies), "the fight lasts three rounds at least"
    # the narrator's posts declare for the NPCs: both act in round 1 (their targets in the script)
    npc_acts = re.compile(r"^\* (Goblin|Skrag) (?:rolls a natural \d+ and )?(?:hits|misses) (Tomas|Brienne)", re.M)
    assert {("Goblin", "Tomas"), ("Skrag", "Brienne")} <= set(npc_acts.findall(replies[1]))
    # round 2: Tomas posts after the deadline: PBP-2's latency penalty, FD-2's default
    assert "late post (PBP-2)" in replies[2]
    assert "Tomas posted late or not at all: the post came after the deadline" in replies[2]
    assert "main action is lost and Tomas takes total defense" in replies[2]
    # round 3: the narrator sets Brienne's "1d20+50" to what "1d20+5" gives, and the reply says so
    with session_scope(demo.engine) as s:
        roll = s.scalars(select(m.RollRecord).join(m.Round, m.RollRecord.round_id == m.Round.id)
                         .where(m.Round.number == 3, m.RollRecord.actor == "brienne",
                                m.RollRecord.kind == "tag")).one()
        natural = roll.natural
        override = s.scalars(select(m.Override).where(m.Override.kind == "roll")).one()
        assert override.reason == "typo in the roll tag: +50 for +5" and override.narrator_id is not None
    # the engine took the corrected total (FD-3: the attack total against the defense roll)
    assert re.search(rf"^\* Brienne (?:hits|misses) (?:Skrag|Goblin): {natural + 5} against \d+", replies[3], re.M)
    assert f"(Brienne) set to {natural + 5} (rolled {natural + 50})" in replies[3]   # and says so


def test_players_write_posts_as_the_readme_says(demo: Demo) -> None:
    demo.run(resolved=1)
    posts = demo.thread_posts()
    assert [p["author"] for p in posts[:3]] == ["Brienne", "Tomas", "Narrator"]
    assert all(set(p) == {"author", "body"} for p in posts)       # the README's format, nothing else
    assert posts[2]["body"].splitlines()[1:] == ["Goblin: attacks Tomas with the short sword",
                                                  "Skrag: attacks Brienne with the axe"]
    assert demo_replies_path(demo.settings) == demo.path.with_name("thread.replies.yaml")


def test_a_player_who_posted_is_left_alone_and_foes_follow_who_stands(demo: Demo) -> None:
    demo.run(resolved=1)
    with session_scope(demo.engine) as s:
        s.execute(update(m.Combatant).where(m.Combatant.key == "goblin").values(hp=0, down=True))
        rnd = s.scalars(select(m.Round).where(m.Round.number == 2)).one()
        opened = rnd.opens_at
    demo.now = opened + timedelta(seconds=1)
    append_post(demo.path, "Brienne", "I defend")          # you took over Brienne
    demo.read_thread()
    demo.now = opened + timedelta(seconds=5)
    done = demo.players.tick(demo.now)
    assert done == ["Narrator posts in round 2"]          # Brienne's scripted post is skipped
    narrator = demo.thread_posts()[-1]
    assert narrator["author"] == "Narrator"
    assert narrator["body"].strip() == "Skrag: attacks Brienne with the axe"   # the goblin is down
    demo.now = rnd.deadline + timedelta(seconds=1)
    assert demo.players.tick(demo.now) == ["Tomas posts in round 2 (late)"]
    assert "I shoot Skrag with my crossbow" in demo.thread_posts()[-1]["body"]  # {foe}: the one standing


def test_the_script_is_what_the_comments_promise() -> None:
    script = load_script()
    assert [s.author for s in script.steps(1)] == ["Narrator"]
    late = [s for s in script.steps(2) if s.late is not None]
    assert [s.author for s in late] == ["Tomas"]
    fix = [s for s in script.steps(3) if s.correct]
    assert [(s.correct, s.tag, s.adjust) for s in fix] == [("Brienne", "1d20+50", -45)]
    assert script.steps(4) == script.steps(script.last_round) and not script.steps(script.last_round + 1)
    assert SCRIPT["narrator"] in yaml.safe_load((DEMO_DIR / "campaign.yaml").read_text())[
        "narrator"]["platform_names"]
