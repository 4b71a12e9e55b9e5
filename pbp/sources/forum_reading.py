"""Reading a forum thread: the last page it knows, conditionally; new, edited and
deleted posts against the cursor (see :mod:`pbp.sources.forum` for why it polls this way).

:class:`ThreadReader` holds what every part of a forum source shares — the preset, the
thread's URL groups, the polite HTTP client — and the reading itself; logging in
(:mod:`.forum_session`) and posting (:mod:`.forum_posting`) build on it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from ..settings import Settings
from .base import FetchResult, LayoutError, PostRecord, SourceError
from .forum_json import parse_json_page
from .forum_page import Page, parse_discourse_json, parse_html_page, soup_of
from .forum_preset import ForumPreset
from .http import PoliteClient, Response, retry_after_seconds

CURSOR_VERSION = 1


class ThreadReader:
    """The reading half of :class:`pbp.sources.forum.ForumSource` (which sets these)."""

    preset: ForumPreset
    url: str
    root: str
    groups: dict[str, str]
    topic_id: str
    settings: Settings | None
    client: PoliteClient
    backfill_pages: int | None
    seen_limit: int
    #: posts per page as the board was seen to show them (offset paging), else None
    learned_per_page: int | None = None
    #: when a narrator last asked for the whole thread to be read again (epoch seconds)
    reread_requested_at: float = 0.0
    #: the thread's forum as a page read now named it (SCALE-2: kept in the cursor)
    learned_forum: str | None = None

    # -- URLs ----------------------------------------------------------------------------
    def per_page(self) -> int:
        return self.learned_per_page or self.preset.thread.per_page

    def page_url(self, page: int) -> str:
        t = self.preset.thread
        template = t.first_page_url if page == 1 and t.first_page_url else t.page_url
        return template.format(**self.groups, page=page, offset=(page - 1) * self.per_page())

    # -- reading -------------------------------------------------------------------------
    def fetch(self, cursor: Mapping[str, Any] | None) -> FetchResult:
        start = (self.client.requests_made, self.client.bytes_read)
        cur = dict(cursor or {})
        if cur and cur.get("v") != CURSOR_VERSION:
            cur = {}
        if isinstance(cur.get("per_page"), int) and cur["per_page"] > 0:
            self.learned_per_page = cur["per_page"]
        if self.preset.format == "discourse-json":
            posts, new_cur, unchanged = self._fetch_json(cur)
        else:
            posts, new_cur, unchanged = self._fetch_html(cur)
        forum = self.learned_forum or cur.get("forum")
        if forum and new_cur.get("forum") != forum:   # SCALE-2: where its topic list is
            new_cur = {**new_cur, "forum": forum}
        return FetchResult(posts=posts, cursor=new_cur,
                           requests=self.client.requests_made - start[0],
                           bytes=self.client.bytes_read - start[1], not_modified=unchanged)

    def _fetch_html(self, cur: dict[str, Any]) -> tuple[list[PostRecord], dict[str, Any], bool]:
        seen: dict[str, str] = dict(cur.get("seen") or [])
        pages: dict[int, Page] = {}
        responses: dict[int, Response] = {}
        known: int | None = cur.get("page")
        last = 1
        if known and self._full_reread_due(cur):
            return self._fetch_full(cur, seen)
        if known:
            resp = self._get_page(known, etag=cur.get("etag"), last_modified=cur.get("last_modified"))
            if resp is not None:
                if resp.not_modified:
                    return [], cur, True
                digest = self._page_hash(resp)
                if digest == cur.get("page_hash"):
                    return [], {**cur, **_validators(resp)}, True
                pages[known] = self._parse(resp, known)
                responses[known] = resp
                last = pages[known].last_page or known
            else:
                known = None        # the page is gone (deleted posts shrank the thread)
        if not pages:
            resp = self._get_page(1)
            if resp is None:
                raise SourceError("thread not found", where=self.page_url(1))
            pages[1], responses[1] = self._parse(resp, 1), resp
            last = pages[1].last_page or 1
            known = 1
        assert known is not None
        floor = known + 1
        if not cur and self.backfill_pages:
            floor = max(floor, last - self.backfill_pages + 1)
        for k in range(last, floor - 1, -1):   # walk back while pages hold only unseen posts
            if k not in pages:
                resp = self._get_page(k)
                if resp is None:
                    raise SourceError(f"page {k} vanished while reading", where=self.page_url(k),
                                      retry_after=30)
                pages[k], responses[k] = self._parse(resp, k), resp
            if any(p.platform_id in seen for p in pages[k].posts):
                break
        # ids that were on the last page before and are gone from the start of it may have
        # shifted back a page (posts deleted earlier in the thread): look back a little
        old_ids = [str(i) for i in cur.get("page_ids") or []]
        for _ in range(3):
            present = {p.platform_id for pg in pages.values() for p in pg.posts}
            below = max(pages)          # the page under the run of pages read from the end
            while below in pages:
                below -= 1
            if not old_ids or old_ids[0] in present or below < 1:
                break
            resp = self._get_page(below)
            if resp is None:
                break
            pages[below], responses[below] = self._parse(resp, below), resp
        return self._classify(pages, responses, seen, old_ids, cur,
                              full=not cur and not self.backfill_pages)

    def _full_reread_due(self, cur: Mapping[str, Any]) -> bool:
        """Whether this poll reads every page: edits on earlier pages are only seen that
        way (a poll reads the last page). Every ``full_reread_hours``, and at once when a
        narrator asked for it after the last full read."""
        done = float(cur.get("full_at") or 0)
        if self.reread_requested_at > done:
            return True
        hours = self.settings.full_reread_hours if self.settings is not None else 6.0
        return hours > 0 and datetime.now(UTC).timestamp() - done >= hours * 3600

    def _fetch_full(self, cur: dict[str, Any],
                    seen: dict[str, str]) -> tuple[list[PostRecord], dict[str, Any], bool]:
        """Every page, parsed only where its hash changed since the last full read (an
        unchanged page holds no edit). Posts gone from a page read are deletions."""
        hashes: dict[str, str] = dict(cur.get("page_hashes") or {})
        pages: dict[int, Page] = {}
        responses: dict[int, Response] = {}
        n, last = 1, 1
        while n <= last:
            resp = self._get_page(n)
            if resp is None:
                break
            digest = self._page_hash(resp)
            if n == 1 or n == last or hashes.get(str(n)) != digest:
                pages[n], responses[n] = self._parse(resp, n), resp
                last = max(last, pages[n].last_page or n)
            hashes[str(n)] = digest
            n += 1
        old_ids = [str(i) for i in cur.get("page_ids") or []]
        posts, cursor, _ = self._classify(pages, responses, seen, old_ids,
                                          {**cur, "page_hashes": hashes}, full=True)
        # a post nobody saw on a page before the one polled was read long ago (before a
        # backfill limit, or out of the cursor's memory): not news to report now
        known = int(cur.get("page") or 1)
        return [p for p in posts if p.change != "new" or int(p.extra.get("page", known)) >= known], \
            cursor, False

    def _classify(self, pages: dict[int, Page], responses: dict[int, Response],
                  seen: dict[str, str], old_ids: list[str], cur: Mapping[str, Any],
                  full: bool) -> tuple[list[PostRecord], dict[str, Any], bool]:
        order = list(seen)
        index = {pid: i for i, pid in enumerate(order)}
        out: list[PostRecord] = []
        present: set[str] = set()
        for n in sorted(pages):
            for post in pages[n].posts:
                if post.platform_id in present:
                    continue            # shifted onto two pages while we walked
                present.add(post.platform_id)
                rev = post.revision[:16]
                if post.platform_id not in seen:
                    out.append(post)
                elif seen[post.platform_id] != rev:
                    out.append(replace(post, change="edited"))
                seen[post.platform_id] = rev
        vanished: list[str] = [pid for pid in old_ids if pid not in present]
        for pg in pages.values():       # seen ids inside a re-read page's range
            known_here = [index[p.platform_id] for p in pg.posts if p.platform_id in index]
            if len(known_here) >= 2:
                vanished += [order[i] for i in range(min(known_here), max(known_here) + 1)
                             if order[i] not in present]
        now = datetime.now(UTC)
        for pid in dict.fromkeys(vanished):
            seen.pop(pid, None)
            out.append(PostRecord(platform_id=pid, author="", posted_at=now, body="", text="",
                                  change="deleted", url=self.url))
        final = max(pages)
        resp = responses[final]
        hashes = dict(cur.get("page_hashes") or {})
        hashes.update({str(n): self._page_hash(r) for n, r in responses.items()})
        cursor = {"v": CURSOR_VERSION, "page": final, "per_page": self.learned_per_page,
                  "page_ids": [p.platform_id for p in pages[final].posts],
                  "page_hash": self._page_hash(resp), **_validators(resp),
                  "page_hashes": {k: v for k, v in hashes.items() if int(k) <= final},
                  "full_at": now.timestamp() if full else cur.get("full_at"),
                  "seen": [[k, v] for k, v in list(seen.items())[-self.seen_limit:]]}
        return out, cursor, False

    def _fetch_json(self, cur: dict[str, Any]) -> tuple[list[PostRecord], dict[str, Any], bool]:
        spec = self.preset.json
        assert spec is not None
        seen: dict[str, str] = dict(cur.get("seen") or [])
        resp = self._get_page(1, etag=cur.get("etag"), last_modified=cur.get("last_modified"))
        if resp is None:
            raise SourceError("thread not found", where=self.page_url(1))
        if resp.not_modified:
            return [], cur, True
        digest = self._page_hash(resp)
        if digest == cur.get("page_hash"):
            return [], {**cur, **_validators(resp)}, True
        page = self._parse(resp, 1)
        have = {p.platform_id: p for p in page.posts}
        stream = page.stream or list(have)
        wanted = [pid for pid in stream if pid not in seen and pid not in have]
        base = spec.more_posts_url.format(**self.groups)
        for i in range(0, len(wanted), spec.chunk):
            if not base:
                break
            url = base + "?" + urlencode([("post_ids[]", pid) for pid in wanted[i:i + spec.chunk]])
            more = self._check(self.client.get(url), url)
            for p in parse_discourse_json(more.text, self.preset, url).posts:
                have[p.platform_id] = p
        out: list[PostRecord] = []
        for pid in stream:
            post = have.get(pid)
            if post is None:
                continue
            rev = post.revision[:16]
            if pid not in seen:
                out.append(post)
            elif seen[pid] != rev:
                out.append(replace(post, change="edited"))
            seen[pid] = rev
        now = datetime.now(UTC)
        live = set(stream)
        for pid in [p for p in seen if p not in live]:
            seen.pop(pid)
            out.append(PostRecord(platform_id=pid, author="", posted_at=now, body="", text="",
                                  change="deleted", url=self.url))
        cursor = {"v": CURSOR_VERSION, "page": 1, "page_hash": digest, **_validators(resp),
                  "seen": [[k, v] for k, v in list(seen.items())[-self.seen_limit:]]}
        return out, cursor, False

    def _get_page(self, page: int, *, etag: str | None = None, last_modified: str | None = None,
                  followed: bool = False) -> Response | None:
        url = self.page_url(page)
        resp = self.client.get(url, etag=etag, last_modified=last_modified)
        if resp.status in self.preset.thread.missing_status:
            if page == 1:
                raise SourceError(f"thread not found (HTTP {resp.status})", where=url)
            return None
        resp = self._check(resp, url)
        if resp.redirects and self._followed_a_move(resp, url) and not followed:
            return self._get_page(page, etag=etag, last_modified=last_modified, followed=True)
        if resp.redirects and page > 1 and self._landed_on(resp.url) != page:
            return None     # the forum sent page N elsewhere: that page is missing
        return resp

    def _followed_a_move(self, resp: Response, asked: str) -> bool:
        """Whether a redirect moved the thread (a new slug): the thread's URL groups are
        updated and the page must be asked again. A redirect out of the thread is an error
        that says where it went, never a page read as if it were the one asked for."""
        m = self.preset.thread.pattern.match(resp.url)
        if not m:
            raise SourceError(f"the thread's address now leads to {resp.url}, which is not a "
                              f"thread page of this forum", where=asked)
        found = {k: v for k, v in m.groupdict().items() if v is not None and k != "root"}
        if found.get("tid", self.topic_id) != self.topic_id:
            raise SourceError(f"the thread now redirects to another topic ({resp.url}): it was "
                              f"moved or merged; add that thread instead", where=asked)
        moved = {k: v for k, v in found.items() if self.groups.get(k) != v}
        if not moved:
            return False
        self.groups.update(moved)
        return True

    def _landed_on(self, url: str) -> int:
        """The page number a final URL shows (1 when it names none)."""
        t = self.preset.thread
        m = t.page_link_pattern.search(url) if t.page_link_pattern else None
        if not m:
            return 1
        n = int(m.group(1))
        return n // self.per_page() + 1 if t.page_unit == "offset" else n

    def _check(self, resp: Response, where: str) -> Response:
        if resp.status == 304 or resp.status < 400:
            return resp
        if resp.status == 429 or resp.status == 503:
            wait = retry_after_seconds(resp.headers.get("Retry-After")) or self._flood_wait(resp) or 60.0
            raise SourceError(f"the forum asks us to slow down (HTTP {resp.status})", where=where,
                              retry_after=wait)
        reason = _reason(resp)
        if resp.status in (401, 403):
            raise SourceError(f"access refused (HTTP {resp.status}){reason}", where=where)
        raise SourceError(f"HTTP {resp.status}{reason}", where=where, retryable=resp.status >= 500,
                          retry_after=60 if resp.status >= 500 else None)

    def _parse(self, resp: Response, page: int) -> Page:
        parsed = self._parse_page(resp, page)
        self.learned_forum = parsed.forum or self.learned_forum
        return parsed

    def _parse_page(self, resp: Response, page: int) -> Page:
        text = resp.text
        if self.preset.format == "json":
            return parse_json_page(text, self.preset, resp.url, page, groups=self.groups)
        if self.preset.format == "discourse-json" and text.lstrip().startswith("{"):
            return parse_discourse_json(text, self.preset, resp.url)
        parsed = parse_html_page(text, self.preset, resp.url, page, groups=self.groups,
                                 per_page=self.per_page())
        if page == 1 and self._learn_per_page(parsed, resp.url):
            parsed = parse_html_page(text, self.preset, resp.url, page, groups=self.groups,
                                     per_page=self.per_page())
        return parsed

    def _learn_per_page(self, first: Page, where: str) -> bool:
        """Offset paging (SMF ``topic=T.15``, phpBB ``start=15``) builds every page's URL
        from posts per page; a wrong ``per_page`` silently skips posts. Page 1 of a thread
        with more pages shows exactly that many posts, and its links step by it: learn it
        (kept in the cursor), or say which setting is wrong when the two disagree."""
        if self.preset.thread.page_unit != "offset":
            return False
        offsets = [n for n in first.link_numbers if n > 0]
        if not offsets or len(first.posts) == self.per_page():
            return False
        shown, step = len(first.posts), math.gcd(*offsets)
        if step != shown:
            raise LayoutError(f"page 1 shows {shown} posts but its page links step by {step}: "
                              f"set thread.per_page in the preset to the board's posts per page",
                              where=where)
        self.learned_per_page = shown
        return True

    def _page_hash(self, resp: Response) -> str:
        text = resp.text
        for pattern in self.preset.thread.volatile:
            text = pattern.sub("", text)
        return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:32]

    def _flood_wait(self, resp: Response) -> float | None:
        """Seconds a flood-control page asks for (the preset's patterns), else None."""
        spec = self.preset.reply
        if spec is None or not spec.flood_patterns:
            return None
        text = soup_of(resp.text).get_text(" ", strip=True) if resp.content else ""
        for pattern in spec.flood_patterns:
            m = pattern.search(text)
            if m:
                digits = next((g for g in m.groups() if g and g.isdigit()), None)
                return float(digits) if digits else spec.flood_default_wait
        return None


def _reason(resp: Response) -> str:
    """The server's own reason for a refusal, quoted (": «…»"), or "": a JSON API's
    ``detail``/``error``/``message`` (Misago: "This action is not available to guests."),
    else a short page's text. A narrator reads why, not only a status code."""
    text = resp.text.strip() if resp.content else ""
    if not text:
        return ""
    said = ""
    if text[:1] in "{[":
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for key in ("detail", "error", "message", "errors"):
                value = data.get(key)
                if isinstance(value, list):
                    value = "; ".join(str(v) for v in value)
                if value:
                    said = str(value)
                    break
    else:
        soup = soup_of(text)
        for junk in soup.select("script, style, head"):
            junk.decompose()
        said = soup.get_text(" ", strip=True)
    said = " ".join(said.split())
    return f": «{said[:200]}»" if said else ""


def _validators(resp: Response) -> dict[str, str | None]:
    return {"etag": resp.etag, "last_modified": resp.last_modified}
