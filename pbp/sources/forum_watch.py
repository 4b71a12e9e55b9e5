"""One request per forum tells which watched threads changed: the topic list.

Why: polling 200 threads one by one costs 200 requests a cycle even when the thread
pages answer 304. Most engines list a forum's topics newest-last-post first, each
row linking to its last post (``?post=123``, ``viewtopic.php?p=123``). Comparing those
last-post ids with the ones seen before tells which threads grew; the walk stops
at the first page that holds an unchanged row (everything after it is older).
Only those threads are then fetched (:meth:`ForumSource.fetch`).

What it cannot see: edits and deletions do not move a topic's last post, so a
caller that must notice them also re-reads a thread now and then (the thread's own
fetch is one conditional request when idle).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..settings import Settings, load_settings
from .base import LayoutError, SourceError
from .forum_page import dig, soup_of
from .forum_preset import ForumPreset, ListingSpec, load_preset
from .forum_selectors import describe
from .forum_session import shared_session
from .http import PoliteClient, Response, host_budget


@dataclass(frozen=True)
class ListingResult:
    """Topic ids whose last post changed (or that are new), and the state to pass next time."""

    changed: frozenset[str]
    state: Mapping[str, Any]
    requests: int = 0
    bytes: int = 0
    not_modified: bool = False
    last_posts: Mapping[str, str] = field(default_factory=dict)


class ForumWatcher:
    """Watches one forum's topic list (*forum_url*, a page of the engine's forum view)."""

    def __init__(self, forum_url: str, preset: str | ForumPreset = "machina", *,
                 settings: Settings | None = None, client: PoliteClient | None = None,
                 allowed_hosts: Iterable[str] | None = None,
                 overrides: Mapping[str, Any] | None = None) -> None:
        self.preset = preset if isinstance(preset, ForumPreset) else load_preset(preset, overrides)
        if self.preset.listing is None:
            raise SourceError(f"preset {self.preset.name!r} has no [listing] settings",
                              where=forum_url)
        host = (urlsplit(forum_url).hostname or "").lower()
        hosts = {h.lower() for h in allowed_hosts} if allowed_hosts is not None else {host}
        if client is None:
            s = settings or load_settings()
            parts = urlsplit(forum_url)
            # a visitor's jar of the forum, as the thread sources read: its connections too
            client = PoliteClient(user_agent=s.user_agent, min_interval=s.min_host_interval,
                                  allowed_hosts=hosts, private_hosts=s.allow_private_hosts,
                                  session=shared_session(f"{parts.scheme}://{parts.netloc}", ""),
                                  budget=host_budget(s))
        client.check_url(forum_url)
        self.url = forum_url
        self.client = client

    def changed(self, state: Mapping[str, Any] | None) -> ListingResult:
        """Which topics changed since *state* (None: every listed topic counts as changed)."""
        spec = self.preset.listing
        assert spec is not None
        start = (self.client.requests_made, self.client.bytes_read)
        old: dict[str, str] = dict((state or {}).get("last_posts") or {})
        url: str | None = self.url
        changed: set[str] = set()
        seen_now: dict[str, str] = {}
        first: Response | None = None
        for n in range(spec.max_pages):
            assert url is not None
            resp = self.client.get(url, etag=(state or {}).get("etag") if n == 0 else None)
            if resp.status == 429:
                raise SourceError("the forum asks us to slow down (HTTP 429)", where=url,
                                  retry_after=60)
            if resp.status >= 400:
                raise SourceError(f"topic list answered HTTP {resp.status}", where=url,
                                  retryable=resp.status >= 500)
            if n == 0:
                first = resp
                if resp.not_modified:
                    return self._result(set(), dict(state or {}), start, True)
            rows, nxt = (_json_rows(resp, spec, self.url) if spec.format == "json" else _html_rows(resp, spec))
            stop = False
            for tid, last in rows:
                if tid in seen_now:     # a feed of posts (Discourse): the newest row of a topic says it
                    continue
                seen_now[tid] = last
                if old.get(tid) != last:
                    changed.add(tid)
                elif spec.sorted and old:
                    stop = True         # rows below are older: unchanged too
            if stop or not nxt:
                break
            url = nxt
        new_state = {"last_posts": {**old, **seen_now},
                     "etag": first.etag if first is not None else None}
        return self._result(changed, new_state, start, False, seen_now)

    def _result(self, changed: set[str], state: dict[str, Any], start: tuple[int, int],
                unchanged: bool, last_posts: Mapping[str, str] | None = None) -> ListingResult:
        return ListingResult(changed=frozenset(changed), state=state,
                             requests=self.client.requests_made - start[0],
                             bytes=self.client.bytes_read - start[1], not_modified=unchanged,
                             last_posts=dict(last_posts or {}))


def _html_rows(resp: Response, spec: ListingSpec) -> tuple[list[tuple[str, str]], str | None]:
    """(topic id, last-post marker) of each row of an HTML topic list, and the next page."""
    soup = soup_of(resp.text)
    rows = soup.select(spec.row)
    if not rows:
        raise LayoutError(f"topic list row selector {spec.row!r} matched nothing", where=resp.url)
    out = [(_read(row, spec.topic_link, spec.topic_pattern, "topic link", resp.url),
            _read(row, spec.last_post, spec.last_post_pattern, "last post", resp.url)) for row in rows]
    nxt = soup.select_one(spec.next_page) if spec.next_page else None
    return out, (urljoin(resp.url, str(nxt["href"])) if nxt is not None and nxt.get("href") else None)


def _json_rows(resp: Response, spec: ListingSpec, base: str) -> tuple[list[tuple[str, str]], str | None]:
    """The same of a JSON topic list (Misago's ``/api/threads/?category=ID``): the
    ``items`` list, each item's ``topic_key`` and ``last_post_key``; ``next_key`` the next
    page's cursor, put in ``next_url`` (with *base*, the list's first page)."""
    try:
        data = json.loads(resp.text)
    except ValueError:
        raise LayoutError("the topic list is not JSON", where=resp.url) from None
    items = dig(data, spec.items)
    if not isinstance(items, list):
        raise LayoutError(f"the topic list has no list at {spec.items!r}", where=resp.url)
    out = []
    for item in items:
        tid = dig(item, spec.topic_key)
        last = dig(item, spec.last_post_key)
        if tid is None or last is None:
            raise LayoutError(f"a topic of the list has no {spec.topic_key!r} or "
                              f"{spec.last_post_key!r}", where=resp.url)
        out.append((str(tid), str(last)))
    nxt = dig(data, spec.next_key) if spec.next_key else None
    return out, (spec.next_url.format(url=base, next=nxt) if nxt and spec.next_url else None)


def _read(row: Any, selectors: Any, pattern: Any, what: str, url: str) -> str:
    value = None
    for sel in selectors:
        node = row.select_one(sel.css) if sel.css else row
        if node is not None:
            value = node.get(sel.attrs[0]) if sel.attrs else node.get_text(" ", strip=True)
        if value:
            break
    if not value:
        raise LayoutError(f"{what} selector {describe(selectors)!r} matched nothing in a topic row",
                          where=url)
    if pattern is not None:
        m = pattern.search(str(value))
        if not m:
            raise LayoutError(f"{what} {str(value)[:80]!r} does not match {pattern.pattern!r}",
                              where=url)
        return m.group(1)
    return str(value)
