"""A forum thread as a :class:`~pbp.sources.base.Source`: requests + BeautifulSoup (lxml),
the engine described by a preset (``pbp/config/forums/<engine>.toml``).

Why it polls this way: forums are other people's servers and most send no cache
validators. So a fetch asks for the *last page it knows* only, conditionally when the
forum gave an ETag or Last-Modified; if nothing changed (304, or the same page bytes
once volatile tokens are stripped) it stops there: an idle thread costs one request and
no parse. When the thread grew past that page it jumps to the new last page and walks
back while pages hold only unseen posts. Pages it re-reads show edits (the body's
revision hash changed) and deletions (an id it saw there vanished).

The cursor is plain JSON (page, validators, page hash, the ids seen with a short
revision hash); it is returned only with a complete result, so an error half-way
(404, flood control, a layout change) leaves the caller's cursor where it was and
nothing unread is skipped.

The source is built in layers, one module each: reading (:mod:`.forum_reading`), the bot's
account and login (:mod:`.forum_session`), posting replies (:mod:`.forum_posting`); this
module checks the thread's URL against the preset and the campaign's hosts and wires them.

>>> src = ForumSource("http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/", "machina")
>>> src.page_url(3)
'http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/?page=3'
>>> ForumSource("http://evil.example/forum/forum/a-1/topic/b-2/", "machina", allowed_hosts=["127.0.0.1"])
Traceback (most recent call last):
...
pbp.sources.base.SourceError: http://evil.example/forum/forum/a-1/topic/b-2/: host 'evil.example' is not configured for this campaign
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..settings import Settings, load_settings
from .base import SourceError
from .forum_posting import ThreadPoster
from .forum_preset import ForumPreset, load_preset
from .forum_session import forget_sessions, form_fields, shared_session
from .http import PoliteClient, host_budget

#: form_fields and forget_sessions live in .forum_session; importable here as before
__all__ = ["ForumSource", "forget_sessions", "form_fields"]


class ForumSource(ThreadPoster):
    """One watched forum thread.

    *url* is the thread's URL as the narrator gave it; *preset* a preset name, path or
    loaded :class:`ForumPreset`; *overrides* per-campaign preset changes (e.g.
    ``{"dates": {"timezone": "Europe/Lisbon"}, "thread": {"per_page": 20}}``);
    *allowed_hosts* the host names configured for the campaign (default: the thread's own);
    whatever they are, an address inside the network is fetched only when the operator's
    ``allow_private_hosts`` setting names the host (:mod:`.outbound`);
    *credentials* ``{"username", "password"}`` (or ``api_key``/``api_username`` for
    Discourse), by default from :func:`pbp.settings.secrets_for` the thread's host and port;
    *backfill_pages* limits how many pages a first fetch reads back from the end.
    """

    def __init__(self, url: str, preset: str | ForumPreset = "machina", *,
                 settings: Settings | None = None, client: PoliteClient | None = None,
                 credentials: Mapping[str, str] | None = None,
                 allowed_hosts: Iterable[str] | None = None,
                 overrides: Mapping[str, Any] | None = None,
                 backfill_pages: int | None = None, seen_limit: int = 2000) -> None:
        self.preset = preset if isinstance(preset, ForumPreset) else load_preset(preset, overrides)
        host = (urlsplit(url).hostname or "").lower()
        hosts = {h.lower() for h in allowed_hosts} if allowed_hosts is not None else {host}
        if host not in hosts:
            raise SourceError(f"host {host!r} is not configured for this campaign", where=url)
        m = self.preset.thread.pattern.match(url)
        if not m:
            raise ConfigError(f"not a {self.preset.engine or self.preset.name} thread URL "
                              f"(expected {self.preset.thread.pattern.pattern})", where=url)
        self.url = url
        parts = urlsplit(url)
        self.root = f"{parts.scheme}://{parts.netloc}"
        self.groups = {"root": self.root, **{k: v for k, v in m.groupdict().items()
                                                    if v is not None}}
        self.topic_id = self.groups["tid"]
        self.settings = settings
        self._credentials = dict(credentials) if credentials is not None else None
        if client is None:
            s = settings or load_settings()

            def polite(account: str) -> PoliteClient:
                return PoliteClient(user_agent=s.user_agent, min_interval=s.min_host_interval,
                                    allowed_hosts=hosts, private_hosts=s.allow_private_hosts,
                                    session=shared_session(self.root, account),
                                    budget=host_budget(s))
            # read as a visitor, write as the bot: once the bot has replied, a shared jar
            # would read logged in, and engines print times in the reader's profile zone
            self.bot_client = polite(self._username())
            visitor = self.preset.thread.read_as == "visitor"
            client = polite("") if visitor else self.bot_client
        else:
            self.bot_client = client
        self.client = client
        self.backfill_pages = backfill_pages
        self.seen_limit = seen_limit
        self._reply_url = None

    @classmethod
    def from_options(cls, url: str, options: Mapping[str, Any], settings: Settings) -> ForumSource:
        """The factory's entry point: a Thread row's options (``preset``, ``allowed_hosts``,
        ``overrides``, ``backfill_pages``, ``reread_requested_at``: a narrator asked for the
        whole thread to be read again); credentials never come from options."""
        opts = dict(options)
        source = cls(url, opts.get("preset", "machina"), settings=settings,
                     allowed_hosts=opts.get("allowed_hosts"), overrides=opts.get("overrides"),
                     backfill_pages=opts.get("backfill_pages"))
        source.reread_requested_at = float(opts.get("reread_requested_at") or 0)
        return source
