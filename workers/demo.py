"""Seed the demo campaign of ``pbp serve --demo`` from pbp/demo/ (idempotent).

The demo's thread is a scenario file copied into ``<data_dir>/demo/`` so a newcomer can
append posts to it; the round window is short (30 s), so the first round is declared,
resolved and shown in the panel within a minute of starting.
"""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import select

from pbp.panel.security import hash_password
from pbp.rounds import service
from pbp.settings import PACKAGE_ROOT, Settings
from pbp.sources.scenario_file import FileSource
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Campaign, CampaignNarrator, Combatant, Encounter, Narrator, Thread

log = logging.getLogger("workers.demo")

DEMO_DIR = PACKAGE_ROOT / "demo"   # package data: an installed pbp serves the demo too


def demo_thread_path(settings: Settings) -> Path:
    """The demo's thread file, where posts are appended (the players', the narrator's, yours)."""
    return settings.data_path.resolve() / "demo" / "thread.yaml"


def demo_replies_path(settings: Settings) -> Path:
    """Where pbp writes the demo's replies (:class:`pbp.sources.scenario_file.FileSource`'s
    sibling file), so ``pbp serve --demo`` can say where to read them."""
    return FileSource(demo_thread_path(settings)).replies_path


def seed_demo(settings: Settings, source_dir: Path = DEMO_DIR, *, now: datetime | None = None) -> int:
    """Create the demo campaign, its thread and encounter, and open round 1.

    Returns the campaign id; a second call returns the existing one unchanged.
    """
    spec: dict[str, Any] = yaml.safe_load((source_dir / "campaign.yaml").read_text())
    c, n, t, e = spec["campaign"], spec["narrator"], spec["thread"], spec["encounter"]
    engine = make_engine(settings.database_url)
    try:
        with session_scope(engine) as s:
            existing = s.scalar(select(Campaign).where(Campaign.slug == c["slug"]))
            if existing is not None:
                return existing.id
            if t.get("url"):  # a real thread (tests: the machina forum)
                url = t["url"]
            else:
                path = demo_thread_path(settings)
                path.parent.mkdir(parents=True, exist_ok=True)
                if not path.exists():
                    shutil.copyfile(source_dir / t["file"], path)
                url = str(path)
            narrator = s.scalar(select(Narrator).where(Narrator.username == n["username"]))
            if narrator is None:
                narrator = Narrator(username=n["username"], display_name=n["username"],
                                    password_hash=hash_password(n["password"]), is_admin=True)
                s.add(narrator)
                s.flush()
            campaign = Campaign(
                name=c["name"], slug=c["slug"], ruleset=c["ruleset"], language=c.get("language", "en"),
                timezone=c.get("timezone", "UTC"), round_hours=c["round_seconds"] / 3600,
                reminder_hours=[x / 3600 for x in c.get("reminder_seconds", [])],
                early_close=bool(c.get("early_close", False)), owner_id=narrator.id,
                approval_mode=False)
            s.add(campaign)
            s.flush()
            s.add(CampaignNarrator(campaign_id=campaign.id, narrator_id=narrator.id, role="owner",
                                   platform_names=list(n.get("platform_names", []))))
            thread = Thread(campaign_id=campaign.id, kind=t["kind"], url=url, title=t["title"],
                            platform=t.get("platform", "text"),
                            options={**t.get("options", {}),
                                     "poll_interval": t.get("poll_interval", settings.poll_interval)})
            s.add(thread)
            s.flush()
            enc = Encounter(campaign_id=campaign.id, thread_id=thread.id, name=e["name"],
                            ruleset=c["ruleset"], status="active",
                            started_at=now or datetime.now(UTC))
            s.add(enc)
            s.flush()
            for cb in e["combatants"]:
                s.add(Combatant(encounter_id=enc.id, key=cb["key"], name=cb["name"],
                                side=cb.get("side", "players"), player=cb.get("player"),
                                sheet=cb.get("sheet", {}), hp=cb["hp"], max_hp=cb["max_hp"]))
            s.flush()
            service.open_round(s, enc.id, now or datetime.now(UTC))
            log.info("demo campaign seeded", extra={"campaign": campaign.id, "thread_url": url})
            return campaign.id
    finally:
        engine.dispose()
