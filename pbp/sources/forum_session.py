"""A forum bot's account: one cookie jar per (site, account) in the process, credentials
from the secrets, and the forum's own login form.

Why one session per account and not per thread: a campaign watches many threads of one
forum, and logging in for each would look like an attack (and trip flood control).
"""

from __future__ import annotations

import os
import threading
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from bs4 import Tag

from ..errors import ConfigError
from ..settings import Settings, load_settings, secret_env_name, secrets_for
from .base import LayoutError, SourceError
from .forum_page import soup_of
from .forum_reading import ThreadReader, _reason
from .http import PoliteClient, Response

_sessions_lock = threading.Lock()
_sessions: dict[tuple[str, str], requests.Session] = {}
_logged_in: set[tuple[str, str]] = set()


def shared_session(root: str, username: str = "") -> requests.Session:
    """One cookie jar per (site, bot account) in this process: logins are reused, and so
    is its pool of open connections (SCALE-3: the guarded adapter is mounted once,
    :func:`pbp.sources.http._guard`)."""
    with _sessions_lock:
        session = _sessions.get((root, username))
        if session is None:
            session = _sessions[(root, username)] = _new_session()
        return session


def _new_session() -> requests.Session:
    """A session that reads the environment's proxies once, not on every request: with
    ``trust_env`` requests scans the environment and stats ``~/.netrc`` per request (a
    fifth of an idle poll's CPU, SCALE-3). When a proxy or a CA bundle
    (``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``) is configured it keeps ``trust_env``, so
    ``NO_PROXY`` is still honoured per URL. A CA bundle (``REQUESTS_CA_BUNDLE``,
    ``CURL_CA_BUNDLE``, set on many hosts) is read here once and becomes the session's
    ``verify``, as requests would make it on every request: the operator's CAs still
    verify, without the scan per request."""
    session = requests.Session()
    if not urllib.request.getproxies():
        bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
        if bundle:
            session.verify = bundle
        session.trust_env = False
    return session


def forget_sessions() -> None:
    """Drop every cookie jar, closing its pooled connections (a dropped session's sockets
    would otherwise wait for the garbage collector)."""
    with _sessions_lock:
        for session in _sessions.values():
            session.close()
        _sessions.clear()
        _logged_in.clear()
    with _secrets_lock:
        _secrets.clear()


_secrets_lock = threading.Lock()
_secrets: dict[tuple[Any, ...], dict[str, str]] = {}


def cached_secrets(settings: Settings, host: str, port: int | None) -> dict[str, str]:
    """The bot credentials of a forum (:func:`pbp.settings.secrets_for`), read once per
    process (SCALE-3: a source is opened on every poll, and the secrets file parsed and
    the environment scanned each time were a fifth of an idle poll). Read again when the
    settings change, the secrets file's modification time changes, or the ``PBP_SECRET_``
    variables change (a cheap look at the environment's names); :func:`forget_sessions`
    drops them all. An unreadable secrets file means no credentials, as before."""
    try:
        mtime = (Path(settings.secrets_file).expanduser().stat().st_mtime_ns
                 if settings.secrets_file else 0)
    except OSError:
        mtime = -1
    env = tuple(sorted((k, os.environ[k]) for k in os.environ if k[:11].upper() == "PBP_SECRET_"))
    key = (settings, host, port, mtime, env)
    with _secrets_lock:
        found = _secrets.get(key)
    if found is None:
        try:
            found = secrets_for(settings, host, port)
        except ConfigError:
            found = {}
        with _secrets_lock:
            if len(_secrets) > 256:
                _secrets.clear()
            _secrets[key] = found
    return found


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


class ForumAccount(ThreadReader):
    """The bot's credentials and login, for a forum source that posts.

    ``bot_client`` holds the bot's cookie jar: logging in and posting go through it, and
    reading through ``client``, a visitor's, unless the preset says ``read_as = "bot"``."""

    _credentials: dict[str, str] | None
    bot_client: PoliteClient

    def _username(self) -> str:
        creds = self._credentials_or_none()
        return (creds or {}).get("username", "") or (creds or {}).get("api_username", "")

    def bot_account(self) -> str | None:
        """The name the forum shows on the bot's posts: the secret ``author`` when the
        forum shows another name than the login, else the login (None: no credentials)."""
        creds = self._credentials_or_none() or {}
        return creds.get("author") or self._username() or None

    def _credentials_or_none(self) -> dict[str, str] | None:
        if self._credentials is None:
            host, port = self._host_port()
            self._credentials = dict(cached_secrets(self.settings or load_settings(), host, port))
        return self._credentials

    def _host_port(self) -> tuple[str, int]:
        """The thread's host and port (the scheme's default when the URL names none): the
        bot's secrets are looked up by both, then by host alone."""
        parts = urlsplit(self.url)
        return (parts.hostname or "").lower(), parts.port or (443 if parts.scheme == "https" else 80)

    def _creds(self, *keys: str) -> dict[str, str]:
        creds = self._credentials_or_none() or {}
        missing = [k for k in keys if not creds.get(k)]
        if missing:
            host, port = self._host_port()
            field = missing[0].upper()
            raise SourceError(f"no bot {' and '.join(missing)} for this forum (set "
                              f"{secret_env_name(host, port)}_{field} for this port, "
                              f"{secret_env_name(host)}_{field} for the host, or the secrets file)",
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
        if spec.kind == "json":
            self._login_json(url, creds)
            _logged_in.add(key)
            return
        page = self._check(self.bot_client.get(url), url)
        form = soup_of(page.text).select_one(spec.form)
        if form is None:
            raise LayoutError(f"login form selector {spec.form!r} matched nothing", where=url)
        data = form_fields(form)
        data.update(spec.extra_fields)
        data[spec.username_field] = creds["username"]
        data[spec.password_field] = creds["password"]
        action = urljoin(page.url, str(form.get("action") or page.url))
        resp = self.bot_client.post(action, data=data, headers={"Referer": page.url})
        if resp.status == 429:
            self._check(resp, action)
        self._login_flood(resp, url)
        after = soup_of(resp.text)
        refused = resp.status >= 400 or after.select_one(spec.form) is not None or (
            bool(spec.failure) and after.select_one(spec.failure) is not None)
        if spec.success_cookie and spec.success_cookie not in self.bot_client.session.cookies:
            refused = True
        if refused:
            _logged_in.discard(key)
            raise SourceError(f"login refused for bot account {creds['username']!r} "
                              f"(HTTP {resp.status}){_reason(resp) if resp.status >= 400 else ''}",
                              where=url)
        _logged_in.add(key)

    def _login_json(self, url: str, creds: dict[str, str]) -> None:
        """A JSON API's login (Misago's ``POST /api/auth/``): the cookie page first, for
        the CSRF cookie its header carries, then the body template with the credentials.
        A refusal quotes the server's reason ("Login or password is incorrect.")."""
        spec = self.preset.login
        assert spec is not None
        key = (self.root, creds["username"])
        _logged_in.discard(key)
        if spec.cookie_url:
            where = spec.cookie_url.format(**self.groups)
            self._check(self.bot_client.get(where), where)
        body = {k: v.format(**creds) for k, v in spec.body.items()}
        resp = self.bot_client.post(url, json=body, headers=self.cookie_headers())
        if resp.status == 429:
            self._check(resp, url)
        self._login_flood(resp, url)
        if resp.status >= 400:
            raise SourceError(f"login refused for bot account {creds['username']!r} "
                              f"(HTTP {resp.status}){_reason(resp)}", where=url)
        if spec.success_cookie and spec.success_cookie not in self.bot_client.session.cookies:
            raise SourceError(f"login refused for bot account {creds['username']!r}: no "
                              f"{spec.success_cookie!r} cookie came back", where=url)

    def _login_flood(self, resp: Response, where: str) -> None:
        """A login refused only for coming too soon (SMF 2.1 answers a second login within
        2 s with HTTP 403 "You will have to wait about 2 seconds to login again"): a
        retryable wait, not "login refused", which a narrator would read as a bad password."""
        wait = self._flood_wait(resp)
        if wait is not None:
            raise SourceError(f"flood control: the forum asks the bot to wait {wait:g} s before "
                              f"logging in again (HTTP {resp.status}); retry in {wait:g} s",
                              where=where, retry_after=wait)

    def cookie_headers(self) -> dict[str, str]:
        """The headers the preset fills from the bot's cookies (Misago: ``X-CSRFToken``
        from ``csrftoken``), with the values the cookie jar holds now: Django gives a
        new token at login, so a value copied before it would be refused."""
        spec = self.preset.login
        jar = self.bot_client.session.cookies
        return {header: str(jar.get(cookie)) for header, cookie in
                (spec.cookie_headers.items() if spec is not None else ()) if jar.get(cookie)}
