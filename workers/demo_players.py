"""The demo's players and narrator: they keep posting while ``pbp serve --demo`` runs.

Why: a demo whose thread holds one round of posts is over after one round, and shows
neither NPCs acting, nor a late post, nor a narrator's correction. Here the two players
and the narrator of ``pbp/demo/script.yaml`` append their posts to the demo's thread
file round after round, the way people append to a forum thread, and the narrator
corrects a roll through the same override the panel makes
(:func:`pbp.rounds.overrides.set_roll`). Everything else is the real service: the worker
reads the file, declares, resolves at the deadline and writes the replies.

A post is written as a newcomer would write it (``author`` and a ``body`` block, the
format the README shows). A player's step is skipped when that player is down or has
already posted in the round, so you can take over a character by posting as them.
"""

from __future__ import annotations

import fcntl
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import select
from sqlalchemy.orm import Session

from pbp.rounds.overrides import roll_totals, set_roll
from pbp.settings import Settings
from pbp.store import models as m
from pbp.store import queries
from pbp.store.db import make_engine, session_scope
from pbp.store.types import utcnow
from workers.demo import DEMO_DIR, demo_thread_path

log = logging.getLogger("workers.demo")

#: A late step is written at most this long after the deadline (a round resolves within
#: a sweep or two; later than this the step would land in the next round).
LATE_WINDOW = timedelta(seconds=20)


@dataclass(frozen=True)
class Step:
    """One thing the script does in a round: a post by *author*, or (*correct*) the
    narrator's override of that player's roll written as *tag*, moved by *adjust*."""

    author: str = ""
    body: str = ""
    after: float = 0.0
    late: float | None = None
    correct: str = ""
    tag: str = ""
    adjust: int = 0
    reason: str = ""

    def due(self, rnd: m.Round, now: datetime) -> bool:
        """In the window this step is written in: before the deadline, or just after it."""
        if self.late is not None:
            start = rnd.deadline + timedelta(seconds=self.late)
            return start <= now < start + LATE_WINDOW
        return rnd.opens_at + timedelta(seconds=self.after) <= now < rnd.deadline


@dataclass(frozen=True)
class Npc:
    line: str
    targets: tuple[str, ...]


@dataclass(frozen=True)
class Script:
    """``pbp/demo/script.yaml`` (its comments say the format)."""

    narrator: str
    foes: tuple[str, ...]
    npcs: Mapping[str, Npc]
    rounds: Mapping[int, tuple[Step, ...]]
    repeat: tuple[Step, ...] = ()
    last_round: int = 15

    def steps(self, number: int) -> tuple[Step, ...]:
        if number in self.rounds:
            return self.rounds[number]
        return self.repeat if number <= self.last_round else ()


def load_script(path: Path = DEMO_DIR / "script.yaml") -> Script:
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return Script(
        narrator=str(data["narrator"]), foes=tuple(data.get("foes", ())),
        npcs={k: Npc(str(v["line"]), tuple(v.get("targets", ()))) for k, v in data.get("npcs", {}).items()},
        rounds={int(n): tuple(Step(**s) for s in steps) for n, steps in data.get("rounds", {}).items()},
        repeat=tuple(Step(**s) for s in data.get("repeat", ())),
        last_round=int(data.get("last_round", 15)))


def post_document(author: str, body: str) -> str:
    """One post of a scenario file, as the README tells a newcomer to write it.

    >>> print(post_document("Tomas", "I shoot Skrag [roll]1d20+3[/roll]"), end="")
    ---
    author: Tomas
    body: |
      I shoot Skrag [roll]1d20+3[/roll]
    """
    lines = "".join(f"  {line}\n" if line else "\n" for line in body.rstrip("\n").split("\n"))
    return f"---\nauthor: {author}\nbody: |\n{lines}"


def append_document(path: Path, text: str) -> None:
    """Append *text* under the lock the file source reads with (``flock``), so a poll
    never reads half a post."""
    with open(path, "a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            fh.write(text)
            fh.flush()
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@dataclass
class DemoPlayers:
    """Walks the script against the demo encounter; :meth:`tick` does what is due."""

    engine: Any
    thread_path: Path
    script: Script
    narrator_login: str = "demo"
    slug: str = "demo"
    done: set[tuple[int, int]] = field(default_factory=set)

    def tick(self, now: datetime | None = None) -> list[str]:
        """Do the steps due at *now*; returns what was done (logged, and read by tests)."""
        now = now or utcnow()
        with session_scope(self.engine) as s:
            enc = s.scalar(select(m.Encounter).join(m.Campaign, m.Encounter.campaign_id == m.Campaign.id)
                           .where(m.Campaign.slug == self.slug).order_by(m.Encounter.id.desc()).limit(1))
            if enc is None or enc.status == "finished":
                return []
            rnd = queries.current_round(s, enc.id)
            if rnd is None or rnd.state != "open":
                return []
            out = []
            for i, step in enumerate(self.script.steps(rnd.number)):
                if (rnd.number, i) in self.done or not step.due(rnd, now):
                    continue
                said = self._do(s, enc, rnd, step)
                if said is not None:
                    self.done.add((rnd.number, i))
                    if said:
                        out.append(said)
        for line in out:
            log.info("demo: %s", line)
        return out

    def _do(self, s: Session, enc: m.Encounter, rnd: m.Round, step: Step) -> str | None:
        """Do *step*: a description, "" when skipped, None to try again next tick."""
        if step.correct:
            return self._correct(s, enc, rnd, step)
        rows = list(enc.combatants)
        if step.author != self.script.narrator:
            mine = [c for c in rows if c.player == step.author]
            if not mine or all(c.down for c in mine) or _posted(s, enc, rnd, step.author):
                return ""
        body = self._body(step.body, rows)
        if body is None:
            return ""
        append_document(self.thread_path, post_document(step.author, body))
        return f"{step.author} posts in round {rnd.number}" + (" (late)" if step.late is not None else "")

    def _body(self, template: str, rows: Sequence[m.Combatant]) -> str | None:
        """*template* with {foe} and {npcs} filled in; None when nobody is left to name."""
        standing = {c.key: c for c in rows if not c.down}
        foe = next((standing[k].name for k in self.script.foes if k in standing), None)
        lines = []
        for key, npc in self.script.npcs.items():
            target = next((standing[k].name for k in npc.targets if k in standing), None)
            if key in standing and target is not None:
                lines.append(npc.line.format(target=target))
        if ("{foe}" in template and foe is None) or ("{npcs}" in template and not lines):
            return None
        return template.format(foe=foe or "", npcs="\n".join(lines))

    def _correct(self, s: Session, enc: m.Encounter, rnd: m.Round, step: Step) -> str | None:
        """The narrator sets the player's tag roll of the round written as *tag* to its
        total plus *adjust* (once: a roll already overridden is left alone; a player who
        posted something else, you, is not corrected)."""
        if _posted_other(s, enc, rnd, step.correct, step.tag):
            return ""
        keys = [c.key for c in enc.combatants if c.player == step.correct]
        rolls = s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rnd.id,
                                                     m.RollRecord.kind == "tag",
                                                     m.RollRecord.actor.in_(keys))
                          .order_by(m.RollRecord.roll_index.desc()))
        roll = next((r for r in rolls if step.tag in r.written), None)
        if roll is None:
            return None    # the post is not read yet
        if roll.roll_index in roll_totals(s, rnd.id):
            return ""
        narrator = s.scalar(select(m.Narrator).where(m.Narrator.username == self.narrator_login))
        set_roll(s, roll.id, roll.total + step.adjust, step.reason, narrator)
        return f"the narrator corrects {step.correct}'s roll in round {rnd.number}"

    def run(self, stop: threading.Event, interval: float = 0.5) -> None:
        """Tick every *interval* seconds until *stop* is set."""
        while not stop.wait(interval):
            try:
                self.tick()
            except Exception as exc:  # a locked database, a file being edited: next tick
                log.warning("demo players: %s", exc)


def _posted(s: Session, enc: m.Encounter, rnd: m.Round, author: str) -> bool:
    """Whether *author* has a post in the thread since *rnd* opened."""
    return s.scalar(select(m.Post.id).where(m.Post.thread_id == enc.thread_id,
                                            m.Post.author == author,
                                            m.Post.posted_at >= rnd.opens_at).limit(1)) is not None


def _posted_other(s: Session, enc: m.Encounter, rnd: m.Round, author: str, tag: str) -> bool:
    """Whether *author*'s latest post since *rnd* opened lacks *tag* (someone took over)."""
    body = s.scalar(select(m.Post.body).where(m.Post.thread_id == enc.thread_id,
                                              m.Post.author == author,
                                              m.Post.posted_at >= rnd.opens_at)
                    .order_by(m.Post.posted_at.desc(), m.Post.id.desc()).limit(1))
    return body is not None and tag not in body


def start_demo_players(settings: Settings, script: Script | None = None) -> threading.Event:
    """Run the demo's players and narrator in a daemon thread; set the event to stop."""
    stop = threading.Event()
    players = DemoPlayers(make_engine(settings.database_url), demo_thread_path(settings),
                          script or load_script())
    threading.Thread(target=players.run, args=(stop,), name="pbp-demo-players", daemon=True).start()
    return stop
