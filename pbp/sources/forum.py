"""A forum thread as a :class:`~pbp.sources.base.Source`: requests + BeautifulSoup (lxml),
the engine described by a preset (``config/forums/<engine>.toml``).

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

>>> src = ForumSource("http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/", "machina")
>>> src.page_url(3)
'http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/?page=3'
>>> ForumSource("http://evil.example/forum/forum/a-1/topic/b-2/", "machina", allowed_hosts=["127.0.0.1"])
Traceback (most recent call last):
...
pbp.sources.base.SourceError: http://evil.example/forum/forum/a-1/topic/b-2/: host 'evil.example' is not configured for this campaign
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import requests
from bs4 import Tag

from ..errors import ConfigError
from ..settings import Settings, load_secrets, load_settings
from .base import FetchResult, LayoutError, PostRecord, SourceError
from .forum_page import Page, parse_discourse_json, parse_html_page, soup_of
from .forum_preset import ForumPreset, load_preset
from .http import PoliteClient, Response, retry_after_seconds

CURSOR_VERSION = 1

_sessions_lock = threading.Lock()
_sessions: dict[tuple[str, str], requests.Session] = {}
_logged_in: set[tuple[str, str]] = set()


def shared_session(root: str, username: str = "") -> requests.Session:
    """One cookie jar per (site, bot account) in this process: logins are reused."""
    with _sessions_lock:
        return _sessions.setdefault((root, username), requests.Session())


def forget_sessions() -> None:
    with _sessions_lock:
        _sessions.clear()
        _logged_in.clear()


def form_fields(form: Tag) -> dict[str, str]:
    """The values a browser would send for *form* (hidden inputs and CSRF token included)."""
    data: dict[str, str] = {}
    for el in form.select("input[name], textarea[name], select[name]"):
        kind = str(el.get("type") or "").lower()
        if kind in ("submit", "button", "image", "file", "reset"):
            continue
        if kind in ("checkbox", "radio") and not el.has_attr("checked"):
            continue
        name = str(el["name"])
        if el.name == "textarea":
            data[name] = el.get_text()
        elif el.name == "select":
            opt = el.select_one("option[selected]") or el.select_one("option")
            data[name] = str(opt.get("value", opt.get_text())) if opt else ""
        else:
            data[name] = str(el.get("value", ""))
    return data


class ForumSource:
    """One watched forum thread.

    *url* is the thread's URL as the narrator gave it; *preset* a preset name, path or
    loaded :class:`ForumPreset`; *overrides* per-campaign preset changes (e.g.
    ``{"dates": {"timezone": "Europe/Lisbon"}, "thread": {"per_page": 20}}``);
    *allowed_hosts* the hosts configured for the campaign (default: the thread's own);
    *credentials* ``{"username", "password"}`` (or ``api_key``/``api_username`` for
    Discourse), by default from :func:`pbp.settings.load_secrets` for the thread's host;
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
        self.groups: dict[str, str] = {"root": self.root, **{k: v for k, v in m.groupdict().items()
                                                              if v is not None}}
        self.topic_id = self.groups["tid"]
        self.settings = settings
        self._credentials = dict(credentials) if credentials is not None else None
        if client is None:
            s = settings or load_settings()
            client = PoliteClient(user_agent=s.user_agent, min_interval=s.min_host_interval,
                                  allowed_hosts=hosts,
                                  session=shared_session(self.root, self._username()))
        self.client = client
        self.backfill_pages = backfill_pages
        self.seen_limit = seen_limit
        self._reply_url: str | None = None

    @classmethod
    def from_options(cls, url: str, options: Mapping[str, Any], settings: Settings) -> ForumSource:
        """The factory's entry point: a Thread row's options (``preset``, ``allowed_hosts``,
        ``overrides``, ``backfill_pages``); credentials never come from options."""
        opts = dict(options)
        return cls(url, opts.get("preset", "machina"), settings=settings,
                   allowed_hosts=opts.get("allowed_hosts"), overrides=opts.get("overrides"),
                   backfill_pages=opts.get("backfill_pages"))

    # -- URLs ----------------------------------------------------------------------------
    def page_url(self, page: int) -> str:
        t = self.preset.thread
        template = t.first_page_url if page == 1 and t.first_page_url else t.page_url
        return template.format(**self.groups, page=page, offset=(page - 1) * t.per_page)

    # -- reading -------------------------------------------------------------------------
    def fetch(self, cursor: Mapping[str, Any] | None) -> FetchResult:
        start = (self.client.requests_made, self.client.bytes_read)
        cur = dict(cursor or {})
        if cur and cur.get("v") != CURSOR_VERSION:
            cur = {}
        if self.preset.format == "discourse-json":
            posts, new_cur, unchanged = self._fetch_json(cur)
        else:
            posts, new_cur, unchanged = self._fetch_html(cur)
        return FetchResult(posts=posts, cursor=new_cur,
                           requests=self.client.requests_made - start[0],
                           bytes=self.client.bytes_read - start[1], not_modified=unchanged)

    def _fetch_html(self, cur: dict[str, Any]) -> tuple[list[PostRecord], dict[str, Any], bool]:
        seen: dict[str, str] = dict(cur.get("seen") or [])
        pages: dict[int, Page] = {}
        responses: dict[int, Response] = {}
        known: int | None = cur.get("page")
        last = 1
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
        return self._classify(pages, responses, seen, old_ids)

    def _classify(self, pages: dict[int, Page], responses: dict[int, Response],
                  seen: dict[str, str], old_ids: list[str]) -> tuple[list[PostRecord], dict[str, Any], bool]:
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
        cursor = {"v": CURSOR_VERSION, "page": final,
                  "page_ids": [p.platform_id for p in pages[final].posts],
                  "page_hash": self._page_hash(resp), **_validators(resp),
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

    def _get_page(self, page: int, *, etag: str | None = None,
                  last_modified: str | None = None) -> Response | None:
        url = self.page_url(page)
        resp = self.client.get(url, etag=etag, last_modified=last_modified)
        if resp.status in self.preset.thread.missing_status:
            if page == 1:
                raise SourceError(f"thread not found (HTTP {resp.status})", where=url)
            return None
        return self._check(resp, url)

    def _check(self, resp: Response, where: str) -> Response:
        if resp.status == 304 or resp.status < 400:
            return resp
        if resp.status == 429 or resp.status == 503:
            wait = retry_after_seconds(resp.headers.get("Retry-After")) or self._flood_wait(resp) or 60.0
            raise SourceError(f"the forum asks us to slow down (HTTP {resp.status})", where=where,
                              retry_after=wait)
        if resp.status in (401, 403):
            raise SourceError(f"access refused (HTTP {resp.status})", where=where)
        raise SourceError(f"HTTP {resp.status}", where=where, retryable=resp.status >= 500,
                          retry_after=60 if resp.status >= 500 else None)

    def _parse(self, resp: Response, page: int) -> Page:
        text = resp.text
        if self.preset.format == "discourse-json" and text.lstrip().startswith("{"):
            return parse_discourse_json(text, self.preset, resp.url)
        return parse_html_page(text, self.preset, resp.url, page, groups=self.groups)

    def _page_hash(self, resp: Response) -> str:
        text = resp.text
        for pattern in self.preset.thread.volatile:
            text = pattern.sub("", text)
        return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:32]

    # -- posting -------------------------------------------------------------------------
    def _username(self) -> str:
        creds = self._credentials_or_none()
        return (creds or {}).get("username", "") or (creds or {}).get("api_username", "")

    def _credentials_or_none(self) -> dict[str, str] | None:
        if self._credentials is None:
            host = (urlsplit(self.url).hostname or "").lower()
            try:
                self._credentials = load_secrets(self.settings or load_settings()).get(host, {})
            except ConfigError:
                self._credentials = {}
        return self._credentials

    def _creds(self, *keys: str) -> dict[str, str]:
        creds = self._credentials_or_none() or {}
        missing = [k for k in keys if not creds.get(k)]
        if missing:
            host = (urlsplit(self.url).hostname or "").upper().replace(".", "_")
            raise SourceError(f"no bot {' and '.join(missing)} for this forum (set "
                              f"PBP_SECRET_{host}_{missing[0].upper()} or the secrets file)",
                              where=self.root)
        return creds

    def login(self, *, force: bool = False) -> None:
        """Log the bot in through the forum's own login form (the session is then reused)."""
        spec = self.preset.login
        if spec is None:
            raise SourceError(f"preset {self.preset.name!r} has no [login] settings", where=self.url)
        creds = self._creds("username", "password")
        key = (self.root, creds["username"])
        if key in _logged_in and not force:
            return
        url = spec.url.format(**self.groups)
        page = self._check(self.client.get(url), url)
        form = soup_of(page.text).select_one(spec.form)
        if form is None:
            raise LayoutError(f"login form selector {spec.form!r} matched nothing", where=url)
        data = form_fields(form)
        data.update(spec.extra_fields)
        data[spec.username_field] = creds["username"]
        data[spec.password_field] = creds["password"]
        action = urljoin(page.url, str(form.get("action") or page.url))
        resp = self.client.post(action, data=data, headers={"Referer": page.url})
        if resp.status == 429:
            self._check(resp, action)
        after = soup_of(resp.text)
        refused = resp.status >= 400 or after.select_one(spec.form) is not None or (
            bool(spec.failure) and after.select_one(spec.failure) is not None)
        if spec.success_cookie and spec.success_cookie not in self.client.session.cookies:
            refused = True
        if refused:
            _logged_in.discard(key)
            raise SourceError(f"login refused for bot account {creds['username']!r} "
                              f"(HTTP {resp.status})", where=url)
        _logged_in.add(key)

    def reply(self, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        """Post *text* through the forum's reply form (or API) and return the new post's id.

        Flood control ("posting too fast", HTTP 429) raises a SourceError with
        ``retry_after``; the caller retries later and checks :meth:`find_reply` first.
        """
        spec = self.preset.reply
        if spec is None:
            raise SourceError(f"preset {self.preset.name!r} has no [reply] settings", where=self.url)
        if spec.kind == "api":
            return self._reply_api(text)
        self.login()
        form_url = self._reply_form_url()
        page = self.client.get(form_url)
        login_spec = self.preset.login
        if login_spec is not None and soup_of(page.text).select_one(login_spec.form) is not None:
            self.login(force=True)      # the session expired
            page = self.client.get(form_url)
        self._flood(page, form_url)
        self._check(page, form_url)
        form = soup_of(page.text).select_one(spec.form)
        if form is None:
            raise LayoutError(f"reply form selector {spec.form!r} matched nothing", where=form_url)
        data = form_fields(form)
        data.update(spec.extra_fields)
        data[spec.text_field] = text
        if spec.submit:
            name, _, value = spec.submit.partition("=")
            data[name] = value
        action = urljoin(page.url, str(form.get("action") or page.url))
        resp = self.client.post(action, data=data, headers={"Referer": page.url})
        self._flood(resp, action)
        self._check(resp, action)
        pid = self._post_id(resp)
        if pid:
            return pid
        if spec.error:
            errors = soup_of(resp.text).select(spec.error)
            if errors:
                msg = "; ".join(e.get_text(" ", strip=True) for e in errors)[:300]
                raise SourceError(f"the forum refused the reply: {msg}", where=action)
        found = self.find_reply(marker)
        if found:
            return found
        raise SourceError("the reply was sent but does not show in the thread", where=action,
                          retry_after=60)

    def _post_id(self, resp: Response) -> str | None:
        pattern = self.preset.reply.post_id_pattern if self.preset.reply else None
        if pattern is None:
            return None
        for candidate in [resp.url, *reversed(resp.redirects), resp.text[:200_000]]:
            m = pattern.search(candidate)
            if m:
                return next((g for g in m.groups() if g), m.group(0))
        return None

    def _flood(self, resp: Response, where: str) -> None:
        spec = self.preset.reply
        if spec is None:
            return
        wait = self._flood_wait(resp)
        if resp.status in spec.flood_status or wait is not None:
            seconds = (retry_after_seconds(resp.headers.get("Retry-After")) or wait
                       or spec.flood_default_wait)
            raise SourceError(f"flood control: the forum refused a reply this soon "
                              f"(HTTP {resp.status}); retry in {seconds:g} s",
                              where=where, retry_after=seconds)

    def _flood_wait(self, resp: Response) -> float | None:
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

    def _reply_form_url(self) -> str:
        spec = self.preset.reply
        assert spec is not None
        if spec.url:
            return spec.url.format(**self.groups)
        if self._reply_url is None:
            url = self.page_url(1)
            page = self._check(self.client.get(url), url)
            link = soup_of(page.text).select_one(spec.link)
            if link is None or not link.get("href"):
                raise LayoutError(f"reply link selector {spec.link!r} matched nothing "
                                  f"(is the bot allowed to reply?)", where=url)
            self._reply_url = urljoin(page.url, str(link["href"]))
        return self._reply_url

    def _reply_api(self, text: str) -> str:
        spec = self.preset.reply
        assert spec is not None
        creds = self._creds(*[k for k in ("api_key", "api_username")
                              if any("{" + k + "}" in v for v in spec.api_headers.values())])
        fields = {**self.groups, **creds, "text": text}
        headers = {k: v.format(**fields) for k, v in spec.api_headers.items()}
        body = {k: v.format(**fields) for k, v in spec.api_body.items()}
        url = spec.url.format(**fields)
        resp = self.client.post(url, json=body, headers=headers)
        self._flood(resp, url)
        self._check(resp, url)
        try:
            return str(__import__("json").loads(resp.text)[spec.api_id_field])
        except (ValueError, KeyError, TypeError):
            raise LayoutError(f"reply answer has no {spec.api_id_field!r} field", where=url) from None

    def find_reply(self, marker: str) -> str | None:
        """The id of a post holding *marker* on the thread's last pages, newest first."""
        first = self._get_page(1)
        if first is None:
            return None
        pages = {1: self._parse(first, 1)}
        last = pages[1].last_page or 1
        if self.preset.format == "discourse-json":
            last = 1
        for n in range(last, max(0, last - 3), -1):
            if n not in pages:
                resp = self._get_page(n)
                if resp is None:
                    continue
                pages[n] = self._parse(resp, n)
            for post in reversed(pages[n].posts):
                if marker in post.body or marker in post.text:
                    return post.platform_id
        return None


def _validators(resp: Response) -> dict[str, str | None]:
    return {"etag": resp.etag, "last_modified": resp.last_modified}
