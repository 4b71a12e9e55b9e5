"""STALL-3's direct channels: a private message to one person, where the platform has one.

Why here and not in the outbox: the outbox (:mod:`pbp.jobs.notify`) decides what goes out
and keeps it exactly once; this module only knows how each platform says it —
Reddit's private message (praw ``redditor(name).message``), a forum's private
conversation through the preset's ``[pm]`` section (Misago's private threads), or an
@mention reply in the thread for an engine without private messages (django-machina).
Every failure is a :class:`~pbp.sources.base.SourceError` (retryable or not), like a reply's.

>>> channel_of("forum", {"preset": "machina"})
'mention'
>>> channel_of("file", {})
'none'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..settings import Settings
from .base import LayoutError, SourceError
from .factory import open_source
from .forum_preset import load_preset
from .reddit_errors import translate

#: what the ladder can do on each platform, shown in the panel
CHANNELS = ("reddit", "forum-pm", "mention", "none")


def channel_of(kind: str, options: Mapping[str, Any]) -> str:
    """The direct channel a thread's platform offers (see :data:`CHANNELS`)."""
    if kind == "reddit":
        return "reddit"
    if kind != "forum":
        return "none"
    try:
        pm = load_preset(str(options.get("preset") or "machina")).pm
    except Exception:  # noqa: BLE001 - a broken preset is reported where it is polled
        return "none"
    if pm is None or pm.kind == "none":
        return "none"
    return "forum-pm" if pm.kind == "api" else "mention"


def send_direct(kind: str, url: str, options: Mapping[str, Any], settings: Settings, *,
                channel: str, to: str, subject: str, text: str, marker: str) -> str:
    """Send *text* to *to* through *channel*; the platform's id of the message."""
    source: Any = open_source(kind, url, options, settings)
    if channel == "reddit":
        return _reddit(source, to, subject, text)
    if channel == "forum-pm":
        return _forum_pm(source, to, subject, text)
    if channel == "mention":
        found = source.find_reply(marker)
        return str(found) if found is not None else str(source.reply(text, marker))
    raise SourceError(f"no direct channel {channel!r} on this platform", where=url)


def _reddit(source: Any, to: str, subject: str, text: str) -> str:
    where = f"POST /api/compose (to u/{to})"
    source.backoff.check()
    try:
        source.reddit.redditor(to).message(subject=subject[:100], message=text)
    except Exception as exc:
        raise source.backoff.note(translate(exc, where, posting=True)) from exc
    source.backoff.succeeded()
    return f"pm:{to}"


def _forum_pm(source: Any, to: str, subject: str, text: str) -> str:
    """Start a private conversation on the bot's login session (Misago's private threads)."""
    pm = source.preset.pm
    fields = {**source.groups, "title": subject, "text": text}
    body: dict[str, Any] = {k: ([to] if v == "{to}" else v.format(**fields, to=to))
                            for k, v in pm.api_body.items()}
    where = pm.url.format(**fields)
    source.login()
    for attempt in (1, 2):
        resp = source.bot_client.post(where, json=body, headers=source.cookie_headers())
        if not (attempt == 1 and resp.status in (401, 403) and "quickly" not in resp.text):
            break
        source.login(force=True)
    if resp.status == 429 or any(p.search(resp.text) for p in pm.flood_patterns):
        wait = source.preset.reply.flood_default_wait if source.preset.reply else 60.0
        raise SourceError(f"flood control: the forum refused a private message this soon "
                          f"(HTTP {resp.status}); retry in {wait:g} s", where=where, retry_after=wait)
    if resp.status == 400:
        raise SourceError(f"the forum refused the private message to {to!r}: {resp.text[:200]}",
                          where=where)
    source._check(resp, where)
    try:
        return str(json.loads(resp.text)[pm.api_id_field])
    except (ValueError, KeyError, TypeError):
        raise LayoutError(f"private message answer has no {pm.api_id_field!r} field",
                          where=where) from None
