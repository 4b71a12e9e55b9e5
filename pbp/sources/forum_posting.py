"""Posting a reply to a forum thread through its reply form (or API), once.

Why the marker search: a reply whose answer was lost may still have been posted, so
:meth:`ThreadPoster.find_reply` looks for its marker on the last pages before anyone
posts again; flood control ("posting too fast", HTTP 429) is a retryable SourceError
with the forum's wait.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

from .base import (
    FetchResult,
    LayoutError,
    SentUnconfirmed,
    SourceError,
    is_bot_reply,
    mark_bot_posts,
)
from .forum_page import soup_of
from .forum_session import ForumAccount, form_fields
from .http import Response, retry_after_seconds


class ThreadPoster(ForumAccount):
    """The posting half of :class:`pbp.sources.forum.ForumSource`."""

    _reply_url: str | None

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
        page = self.bot_client.get(form_url)
        login_spec = self.preset.login
        if login_spec is not None and login_spec.form and \
                soup_of(page.text).select_one(login_spec.form) is not None:
            self.login(force=True)      # the session expired
            page = self.bot_client.get(form_url)
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
        resp = self.bot_client.post(action, data=data, headers={"Referer": page.url})
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
        return self._confirm(marker, action)

    def _confirm(self, marker: str, where: str) -> str:
        """The id of a reply the forum accepted without naming it (SMF 2.1 redirects to
        ``topic=T.new#new``), found by its marker; any trouble finding it is
        :class:`SentUnconfirmed` — retried by looking again, never by posting again."""
        try:
            found = self.find_reply(marker)
        except SourceError as exc:
            raise SentUnconfirmed(f"the reply was sent; confirming it failed: {exc}",
                                  where=where) from exc
        if found:
            return found
        raise SentUnconfirmed(where=where)

    def _post_id(self, resp: Response) -> str | None:
        """The new post's id from where the answer sent us (redirects, a meta refresh, or a
        short "message posted" page). Never from a thread page's text: SMF 2.1 lands on
        ``topic=T.new#new``, whose links name *other* posts (``?msg=17``)."""
        pattern = self.preset.reply.post_id_pattern if self.preset.reply else None
        if pattern is None:
            return None
        candidates = [resp.url, *reversed(resp.redirects)]
        page = soup_of(resp.text[:200_000]) if resp.content else None
        if page is not None:
            candidates += [str(meta.get("content") or "") for meta in page.select("meta[http-equiv]")
                           if str(meta.get("http-equiv")).lower() == "refresh"]
            post = self.preset.post
            if post is None or not page.select(post.container):
                candidates.append(resp.text[:200_000])
        for candidate in candidates:
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

    def _reply_form_url(self) -> str:
        spec = self.preset.reply
        assert spec is not None
        if spec.url:
            return spec.url.format(**self.groups)
        if self._reply_url is None:
            url = self.page_url(1)
            page = self._check(self.bot_client.get(url), url)
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
        body = {k: v.format(**fields) for k, v in spec.api_body.items()}
        url = spec.url.format(**fields)
        login = self.preset.login
        session = login is not None and login.kind == "json"
        if session:
            self.login()            # a JSON login (Misago): replies ride on its session
        for attempt in (1, 2):
            headers = {**{k: v.format(**fields) for k, v in spec.api_headers.items()},
                       **(self.cookie_headers() if session else {})}
            resp = self.bot_client.post(url, json=body, headers=headers)
            if not (session and attempt == 1 and resp.status in (401, 403)
                    and self._flood_wait(resp) is None):
                break
            self.login(force=True)  # the session expired: a refused POST posted nothing
        self._flood(resp, url)
        self._check(resp, url)
        try:
            return str(json.loads(resp.text)[spec.api_id_field])
        except (ValueError, KeyError, TypeError):
            raise LayoutError(f"reply answer has no {spec.api_id_field!r} field", where=url) from None

    def edit(self, platform_id: str, text: str, marker: str) -> None:
        """STALL-8: replace the text of the bot's post *platform_id* through the engine's
        edit API (``[reply] edit_url``; Misago: ``PUT /api/threads/T/posts/P/``). The same
        text twice is harmless, so a retry needs no check first."""
        spec = self.preset.reply
        if spec is None or not spec.edit_url:
            raise SourceError(f"preset {self.preset.name!r} has no edit path for pbp's posts", where=self.url)
        if marker not in text:
            raise SourceError("edit text does not contain its marker", where=self.url)
        fields = {**self.groups, "text": text, "id": platform_id}
        body = {k: v.format(**fields) for k, v in spec.api_body.items()}
        url = spec.edit_url.format(**fields)
        login = self.preset.login
        session = login is not None and login.kind == "json"
        if session:
            self.login()
        for attempt in (1, 2):
            headers = self.cookie_headers() if session else {}
            resp = self.bot_client.request(spec.edit_method.upper(), url, json=body, headers=headers)
            if not (session and attempt == 1 and resp.status in (401, 403) and self._flood_wait(resp) is None):
                break
            self.login(force=True)  # the session expired: a refused edit changed nothing
        self._flood(resp, url)
        self._check(resp, url)

    def fetch(self, cursor: Mapping[str, Any] | None) -> FetchResult:
        """The thread's new posts, the bot's own marked ``by_bot`` (its account's name)."""
        result = super().fetch(cursor)
        bot = self.bot_account()
        if not bot or not result.posts:
            return result
        return dataclasses.replace(result, posts=mark_bot_posts(result.posts, bot))

    def find_reply(self, marker: str) -> str | None:
        """The id of the bot's post holding *marker* in its own words (quotes left out) on
        the thread's last pages, newest first; a player's post quoting or typing the
        marker never counts (:func:`~pbp.sources.base.is_bot_reply`)."""
        bot = self.bot_account()
        if not bot:
            return None
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
                if is_bot_reply(post, bot, marker):
                    return post.platform_id
        return None

