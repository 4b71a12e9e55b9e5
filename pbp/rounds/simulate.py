"""Round simulation over posts with timestamps, persisting nothing (``pbp simulate``, and
``pbp bench`` on a scenario with ``posts:``).

Why through the real service layer: late posts, edits, deletions and speech limits are
decided by :mod:`pbp.rounds` and nowhere else; a second implementation for the bench
would drift. The run uses an in-memory SQLite database that lives as long as the call:
nothing touches the disk, and the replies are byte for byte what the service would post.

A thread scenario is a bench scenario (docs/scenarios.md: ruleset, houserules,
combatants with ``player``) plus::

    thread:
      start: 2026-11-30T12:00:00Z   # the encounter starts; setup posts (.ri) come after
      open: "+1:00"                 # round 1 opens (default: start)
      round_hours: 24
      resolve_delay_minutes: 30     # the deadline sweep runs this long after a deadline
      timezone: America/Sao_Paulo
      language: en                  # or pt, ru
      platform: text                # or bbcode, markdown
      narrators: [GM]               # authors whose posts declare NPC actions
      rounds: 2                     # how many rounds to resolve (default: while posts come)
    posts:
      - {id: p1, author: alice, at: "+0:10", text: ".ri+3"}
      - {id: p2, author: alice, at: "+2:00", text: "I attack Goblin [roll]1d20+5[/roll]"}
      - {id: p2, author: alice, at: "+3:00", edit: "I attack Goblin [roll]1d20+9[/roll]"}
      - {id: p3, author: bob, at: "+25:10", text: "#defend"}      # late
      - {id: p4, author: carol, at: "+5:00", delete: true}

Times are ISO datetimes or ``+H:MM`` after ``start``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import inspect, select
from sqlalchemy.pool import StaticPool

from ..errors import UnreadableInput
from ..scenario_files import loads
from ..sources.base import PostRecord
from ..store import models as m
from ..store.db import make_engine, session_scope
from ..verify_proof import check, read_blocks
from . import service
from .lifecycle import seeded

THREAD_KEYS = {"start", "open", "round_hours", "resolve_delay_minutes", "timezone", "language",
               "platform", "narrators", "rounds", "reminder_hours", "early_close", "name",
               "beat_minutes", "until", "db", "missed_limit", "auto_narrator_run"}
POST_KEYS = {"id", "author", "at", "text", "edit", "delete", "fmt"}
_OFFSET = re.compile(r"^\+(\d+):(\d{2})$")


@dataclass(frozen=True)
class ScriptedPost:
    platform_id: str
    author: str
    at: datetime
    text: str
    change: str = "new"
    fmt: str = "bbcode"


@dataclass
class ThreadScript:
    scenario: Any                         # pbp.rules.scenario.Scenario
    posts: list[ScriptedPost]
    start: datetime
    open_at: datetime
    round_hours: float = 24.0
    resolve_delay: timedelta = timedelta(minutes=30)
    timezone: str = "UTC"
    language: str = "en"
    platform: str = "text"
    narrators: tuple[str, ...] = ("GM",)
    rounds: int | None = None
    reminder_hours: tuple[float, ...] = ()
    early_close: bool = False
    missed_limit: int = 0                 # STALL-3: the narrator told after this many misses
    auto_narrator_run: bool = False       # STALL-3: ... and runs the character
    name: str = ""
    beat_minutes: float | None = None     # drive the real beat sweep every N virtual minutes
    until: datetime | None = None         # with the beat: stop here (default: 14 days on)
    #: combatant key -> the sheet's ``default_action`` (STALL-2; enemies act from it)
    default_actions: dict[str, str] = field(default_factory=dict)


@dataclass
class SimulatedReply:
    key: str
    kind: str
    round: int
    at: datetime
    body: str


@dataclass
class Simulation:
    replies: list[SimulatedReply] = field(default_factory=list)
    declarations: list[dict[str, Any]] = field(default_factory=list)
    verified: bool = True
    #: the audit log, oldest first: at, actor, action, entity_id, round, after
    audit: list[dict[str, Any]] = field(default_factory=list)
    #: every stored round event: round, code, actor, target, rule, params
    events: list[dict[str, Any]] = field(default_factory=list)
    #: the encounter at the end: status, and each combatant's side, player, hp, down
    status: str = ""
    combatants: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)


def _when(raw: Any, start: datetime, where: str) -> datetime:
    if isinstance(raw, datetime):
        return raw if raw.tzinfo else raw.replace(tzinfo=UTC)
    text = str(raw).strip()
    hit = _OFFSET.match(text)
    if hit:
        return start + timedelta(hours=int(hit.group(1)), minutes=int(hit.group(2)))
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise UnreadableInput(f"'{text}' is not a time (ISO or +H:MM)", where=where) from None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def is_thread_scenario(path: str | Path) -> bool:
    """Whether the scenario file scripts posts (``posts:``) rather than declarations."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and "posts" in data


def load_thread(path: str | Path) -> ThreadScript:
    path = str(path)
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise UnreadableInput(f"not valid YAML: {exc}", where=path) from None
    if not isinstance(data, dict) or not isinstance(data.get("posts"), list):
        raise UnreadableInput("a thread scenario needs a 'posts' list", where=path)
    thread = data.pop("thread", None) or {}
    raw_posts = data.pop("posts")
    unknown = sorted(set(thread) - THREAD_KEYS)
    if unknown:
        raise UnreadableInput(f"unknown key(s) {', '.join(unknown)} (known: "
                              f"{', '.join(sorted(THREAD_KEYS))})", where=f"{path}: thread")
    defaults = {}
    for c in data.get("combatants") or []:
        if isinstance(c, dict) and "default_action" in c:
            defaults[str(c.get("key", ""))] = str(c.pop("default_action"))
    scenario = loads(yaml.safe_dump(data, allow_unicode=True), path)
    start = _when(thread.get("start", "2026-01-01T12:00:00Z"),
                  datetime(2026, 1, 1, 12, tzinfo=UTC), f"{path}: thread.start")
    posts = []
    for i, raw in enumerate(raw_posts):
        where = f"{path}: posts[{i}]"
        if not isinstance(raw, dict):
            raise UnreadableInput("a post is a mapping", where=where)
        bad = sorted(set(raw) - POST_KEYS)
        if bad:
            raise UnreadableInput(f"unknown key(s) {', '.join(bad)} (known: "
                                  f"{', '.join(sorted(POST_KEYS))})", where=where)
        for need in ("id", "at"):
            if need not in raw:
                raise UnreadableInput(f"missing '{need}'", where=where)
        change = "deleted" if raw.get("delete") else "edited" if "edit" in raw else "new"
        text = str(raw.get("edit", raw.get("text", "")))
        posts.append(ScriptedPost(str(raw["id"]), str(raw.get("author", "")),
                                  _when(raw["at"], start, where), text, change,
                                  str(raw.get("fmt", "bbcode"))))
    authors = {p.platform_id: p.author for p in posts if p.change == "new"}
    posts = [p if p.author else ScriptedPost(p.platform_id, authors.get(p.platform_id, "?"),
                                             p.at, p.text, p.change, p.fmt) for p in posts]
    return ThreadScript(
        scenario=scenario, posts=sorted(posts, key=lambda p: p.at), start=start,
        open_at=_when(thread.get("open", "+0:00"), start, f"{path}: thread.open"),
        round_hours=float(thread.get("round_hours", 24)),
        resolve_delay=timedelta(minutes=float(thread.get("resolve_delay_minutes", 30))),
        timezone=str(thread.get("timezone", "UTC")), language=str(thread.get("language", "en")),
        platform=str(thread.get("platform", "text")),
        narrators=tuple(str(n) for n in thread.get("narrators", ["GM"])),
        rounds=int(thread["rounds"]) if "rounds" in thread else None,
        reminder_hours=tuple(float(h) for h in thread.get("reminder_hours", ())),
        early_close=bool(thread.get("early_close", False)),
        missed_limit=int(thread.get("missed_limit", 0)),
        auto_narrator_run=bool(thread.get("auto_narrator_run", False)),
        name=str(thread.get("name", "") or scenario.title),
        beat_minutes=float(thread["beat_minutes"]) if "beat_minutes" in thread else None,
        default_actions=defaults,
        until=_when(thread["until"], start, f"{path}: thread.until") if "until" in thread else None)


def simulate(script: ThreadScript, *, seed: str | None = None, language: str | None = None,
             platform: str | None = None, verify: bool = True,
             db_url: str | None = None) -> Simulation:
    """Play *script* through the service layer on an in-memory database (or the empty
    database at *db_url*, e.g. a PostgreSQL test database: its tables are created and
    dropped again; a database with tables is refused); return the replies, the audit log and the end state."""
    if db_url:
        engine = make_engine(db_url)
        if inspect(engine).get_table_names():
            engine.dispose()
            raise UnreadableInput("pbp simulate plays on an EMPTY database only (it creates "
                                  "its tables and drops them at the end)", where=db_url)
    else:
        engine = make_engine("sqlite://", poolclass=StaticPool,
                             connect_args={"check_same_thread": False})
    m.Base.metadata.create_all(engine)
    base = seed if seed is not None else script.scenario.seed
    counter = itertools.count(1)
    out = Simulation()
    enc = script.scenario.encounter
    try:
        with seeded(lambda: f"{base}:{next(counter)}"):
            with session_scope(engine) as s:
                campaign = m.Campaign(
                    name=script.name or "bench", slug="bench", ruleset=enc.ruleset,
                    language=language or script.language, timezone=script.timezone,
                    houserules={k: v for k, v in dict(script.scenario.houserules).items()},
                    round_hours=script.round_hours, reminder_hours=list(script.reminder_hours),
                    early_close=script.early_close, missed_limit=script.missed_limit,
                    auto_narrator_run=script.auto_narrator_run)
                s.add(campaign)
                s.flush()
                thread = m.Thread(campaign_id=campaign.id, kind="file", url="bench://thread",
                                  platform=platform or script.platform,
                                  options={"narrators": list(script.narrators)})
                s.add(thread)
                s.flush()
                eid = service.start_encounter(s, thread.id, enc.combatants,
                                              name=script.name, surprise=enc.surprise,
                                              surprised=enc.surprised, now=script.start)
                tid = thread.id
                for row in s.scalars(select(m.Combatant).where(m.Combatant.encounter_id == eid)):
                    if row.key in script.default_actions:   # STALL-2: the sheet's default
                        row.sheet = {**(row.sheet or {}),
                                     "default_action": script.default_actions[row.key]}
            if script.beat_minutes:
                _play_beat(engine, script, eid, tid)
            else:
                _play(engine, script, eid, tid)
        with session_scope(engine) as s:
            for r in s.scalars(select(m.Reply).order_by(m.Reply.id)):
                rnd = s.get(m.Round, r.round_id) if r.round_id else None
                out.replies.append(SimulatedReply(r.idempotency_key, r.kind,
                                                  rnd.number if rnd else -1, r.created_at, r.body))
            for d in s.scalars(select(m.Declaration).order_by(m.Declaration.id)):
                out.declarations.append({
                    "round": s.get(m.Round, d.round_id).number,  # type: ignore[union-attr]
                    "actor": d.combatant.key, "post": d.post.platform_id if d.post else None,
                    "late": d.late, "speech_count": d.speech_count,
                    "speech_limit": d.speech_limit, "notes": list(d.notes or []),
                    "actions": [a.get("kind") for a in d.actions or []]})
            _collect(s, eid, out)
            if verify:
                for rid in s.scalars(select(m.Round.id).where(m.Round.seed_revealed.is_(True))):
                    out.verified = out.verified and service.verify_round(s, rid).ok
                # DICE-1: and the replies' proof, as a visitor checks it
                out.verified = out.verified and check(read_blocks([r.body for r in out.replies])).ok
    finally:
        if db_url:
            m.Base.metadata.drop_all(engine)
        engine.dispose()
    return out


def _collect(s: Any, eid: int, out: Simulation) -> None:
    """The audit log, the round events and the end state, for the summary and the tests."""
    numbers = {r.id: r.number for r in s.scalars(select(m.Round).where(m.Round.encounter_id == eid))}
    for r in s.scalars(select(m.Round).where(m.Round.encounter_id == eid).order_by(m.Round.number)):
        out.rounds.append({"number": r.number, "opens_at": r.opens_at, "deadline": r.deadline,
                           "resolved_at": r.resolved_at, "state": r.state})
    for a in s.scalars(select(m.AuditEntry).order_by(m.AuditEntry.id)):
        out.audit.append({"at": a.at, "actor": a.actor, "action": a.action,
                          "entity_id": a.entity_id, "round": numbers.get(a.round_id),
                          "after": dict(a.after or {})})
    for e in s.scalars(select(m.EventRecord).where(m.EventRecord.round_id.in_(list(numbers)))
                       .order_by(m.EventRecord.round_id, m.EventRecord.seq)):
        out.events.append({"round": numbers[e.round_id], "code": e.code, "actor": e.actor,
                           "target": e.target, "rule": e.rule, "params": dict(e.params or {})})
    enc = s.get(m.Encounter, eid)
    out.status = enc.status
    out.combatants = [{"key": c.key, "name": c.name, "side": c.side, "player": c.player,
                       "hp": c.hp, "down": c.down} for c in enc.combatants]


def _play_beat(engine: Any, script: ThreadScript, eid: int, tid: int) -> None:
    """Play the posts against the real beat: every ``beat_minutes`` of virtual time, run
    what ``pbp.sweep_deadlines`` runs (:func:`pbp.jobs.delivery.due_work`: reminders due,
    rounds due by deadline or by early close, STALL-4) at that moment, until the fight is
    over or ``until`` (default: 14 days after the start)."""
    tick = timedelta(minutes=float(script.beat_minutes or 30))
    end = script.until or script.start + timedelta(days=14)
    posts = list(script.posts)
    opened = False
    at = script.start
    while at <= end:
        while posts and posts[0].at <= at:
            p = posts.pop(0)
            if not opened and p.at >= script.open_at:
                with session_scope(engine) as s:
                    service.open_round(s, eid, script.open_at)
                opened = True
            _ingest(engine, tid, p)
        if not opened and at >= script.open_at:
            with session_scope(engine) as s:
                service.open_round(s, eid, script.open_at)
            opened = True
        if opened:
            with session_scope(engine) as s:
                for rid in service.due_reminders(s, at):
                    service.send_reminder(s, rid, at)
                for rid in service.due_rounds(s, at):
                    service.resolve_round(s, rid, at)
                if s.get(m.Encounter, eid).status == "finished":  # type: ignore[union-attr]
                    return
        at += tick


def _ingest(engine: Any, tid: int, p: ScriptedPost) -> None:
    record = PostRecord(platform_id=p.platform_id, author=p.author, posted_at=p.at,
                        body=p.text, text=p.text, fmt=p.fmt, change=p.change,  # type: ignore[arg-type]
                        edited_at=p.at if p.change == "edited" else None)
    with session_scope(engine) as s:
        service.ingest_posts(s, tid, [record], now=p.at)


def _play(engine: Any, script: ThreadScript, eid: int, tid: int) -> None:
    opened = False
    resolved = 0
    limit = script.rounds

    def sweep(until: datetime) -> None:
        """Do what the deadline sweep would have done up to *until*."""
        nonlocal resolved
        while limit is None or resolved < limit:
            with session_scope(engine) as s:
                rnd = service.current_round(s, eid)
                if rnd is None or rnd.state != "open":
                    return
                for h in sorted(script.reminder_hours, reverse=True):
                    due = rnd.deadline - timedelta(hours=h)
                    if rnd.opens_at < due <= until and rnd.id in service.due_reminders(s, due):
                        service.send_reminder(s, rnd.id, due)
                at = rnd.deadline + script.resolve_delay
                if at > until:
                    return
                service.resolve_round(s, rnd.id, at)
                resolved += 1

    for p in script.posts:
        if not opened and p.at >= script.open_at:
            with session_scope(engine) as s:
                service.open_round(s, eid, script.open_at)
            opened = True
        if opened:
            sweep(p.at)
        if limit is not None and resolved >= limit:
            break
        record = PostRecord(platform_id=p.platform_id, author=p.author, posted_at=p.at,
                            body=p.text, text=p.text, fmt=p.fmt, change=p.change,  # type: ignore[arg-type]
                            edited_at=p.at if p.change == "edited" else None)
        with session_scope(engine) as s:
            service.ingest_posts(s, tid, [record], now=p.at)
    if not opened:
        with session_scope(engine) as s:
            service.open_round(s, eid, script.open_at)
    if limit is None:
        limit = resolved + 1   # the round the last post fell in
    sweep(datetime.max.replace(tzinfo=UTC) - timedelta(days=1))
