"""Forum engine presets: selectors and patterns as data (``pbp/config/forums/<engine>.toml``).

Why data: a narrator whose forum runs an engine pbp does not know adds one TOML file
(docs/forum-presets.md documents every key) and no code. Loading validates the whole file
at once and reports every problem in one :class:`~pbp.errors.ConfigError` (unknown keys,
missing keys, regexes and CSS that do not compile), a validator showing the whole picture.

Selectors use CSS (soupsieve) with a small suffix: ``css`` is the element's text,
``css@attr`` an attribute, ``@attr`` the post container's own attribute, and
``css@a|b`` the first of several attributes present.

>>> p = load_preset("machina")
>>> p.post.container, p.thread.page_unit
('div.card.post[id]', 'page')
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import soupsieve

from ..errors import ConfigError
from ..settings import CONFIG_DIR
from .forum_dates import DateReader
from .forum_selectors import Selectors, convert

PRESET_DIR = CONFIG_DIR / "forums"


@dataclass(frozen=True)
class ThreadSpec:
    pattern: re.Pattern[str]
    page_url: str
    first_page_url: str = ""
    per_page: int = 0
    page_links: str = ""
    page_link_pattern: re.Pattern[str] | None = None
    page_unit: str = "page"            # "page" (1, 2, 3) or "offset" (0, 15, 30)
    missing_status: tuple[int, ...] = (404,)
    missing_text: tuple[re.Pattern[str], ...] = ()
    volatile: tuple[re.Pattern[str], ...] = ()
    permalink: str = ""
    #: who reads the thread: "visitor" (no session: times in the board's zone, whoever the
    #: bot is) or "bot" (a board that hides threads from guests; set the bot's profile zone
    #: to the board's, or times shift by the difference)
    read_as: str = "visitor"


@dataclass(frozen=True)
class PostSpec:
    container: str
    id: Selectors
    author: Selectors
    time: Selectors
    body: Selectors
    scope: str = ""
    id_pattern: re.Pattern[str] | None = None
    time_pattern: re.Pattern[str] | None = None
    author_pattern: re.Pattern[str] | None = None
    body_exclude: tuple[str, ...] = ()
    quote: str = ""
    quote_author: str = ""
    quote_author_pattern: re.Pattern[str] | None = None
    edited: Selectors | None = None
    edited_pattern: re.Pattern[str] | None = None


@dataclass(frozen=True)
class JsonSpec:
    posts: str = "post_stream.posts"
    stream: str = "post_stream.stream"
    id: str = "id"
    number: str = "post_number"
    author: str = "username"
    time: str = "created_at"
    edited_time: str = "updated_at"
    body: str = "cooked"
    raw: str = "raw"
    more_posts_url: str = ""
    chunk: int = 20
    #: format "json" (a paged API, Misago): the key holding the number of pages
    pages: str = ""
    #: CSS of quotes inside a body (left out of the text the parser reads)
    quote: str = "aside.quote"
    #: a key that marks an item which is no post (Misago's thread events: "is_event")
    skip: str = ""


@dataclass(frozen=True)
class LoginSpec:
    url: str
    form: str = ""
    #: "form" (the forum's HTML login form) or "json" (a JSON API: POST ``body`` to ``url``)
    kind: str = "form"
    #: kind "json": the JSON body, ``{username}``/``{password}`` filled in
    body: Mapping[str, str] = field(default_factory=dict)
    #: a page fetched first for its cookies (Misago sets ``csrftoken`` on the forum's pages)
    cookie_url: str = ""
    #: header -> cookie sent with the login and with API replies after it (Misago:
    #: ``{ "X-CSRFToken" = "csrftoken" }``); the cookie's value at the time of sending
    cookie_headers: Mapping[str, str] = field(default_factory=dict)
    username_field: str = "username"
    password_field: str = "password"
    failure: str = ""
    success_cookie: str = ""
    extra_fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReplySpec:
    kind: str = "form"                 # "form" (HTML form with CSRF) or "api" (JSON endpoint)
    url: str = ""
    link: str = ""
    form: str = ""
    text_field: str = "message"
    extra_fields: Mapping[str, str] = field(default_factory=dict)
    submit: str = ""
    post_id_pattern: re.Pattern[str] | None = None
    flood_status: tuple[int, ...] = (429,)
    flood_patterns: tuple[re.Pattern[str], ...] = ()
    flood_default_wait: float = 60.0
    error: str = ""
    api_headers: Mapping[str, str] = field(default_factory=dict)
    api_body: Mapping[str, str] = field(default_factory=dict)
    api_id_field: str = "id"
    #: STALL-8: the address replacing bot post ``{id}``'s text ("" = no edit path)
    edit_url: str = ""
    edit_method: str = "PUT"


@dataclass(frozen=True)
class PmSpec:
    """STALL-3's ``[pm]`` (docs/forum-presets.md): kind "api" (Misago), "mention" or "none"."""
    kind: str = "none"
    url: str = ""
    api_body: Mapping[str, str] = field(default_factory=dict)
    api_id_field: str = "id"
    flood_patterns: tuple[re.Pattern[str], ...] = ()


@dataclass(frozen=True)
class ListingSpec:
    #: "html" (a forum page: ``row``, ``topic_link``, ``last_post``) or "json" (a JSON API:
    #: ``items``, ``topic_key``, ``last_post_key``; Misago's ``/api/threads/?category=ID``)
    format: str = "html"
    row: str = ""
    topic_link: Selectors = ()
    last_post: Selectors = ()
    items: str = ""
    topic_key: str = "id"
    last_post_key: str = ""
    #: json: the key of the next page's cursor and the URL it goes in (``{url}``, ``{next}``)
    next_key: str = ""
    next_url: str = ""
    topic_pattern: re.Pattern[str] | None = None
    last_post_pattern: re.Pattern[str] | None = None
    next_page: str = ""
    sorted: bool = True
    max_pages: int = 5
    #: where a thread's topic list lives (SCALE-2): *forum_pattern* is matched against the
    #: thread's URL and *url* formatted with its groups (and the thread pattern's, ``root``
    #: among them); a preset without them cannot find the list, and its threads are
    #: polled one by one unless a thread's options name ``listing_url``
    url: str = ""
    forum_pattern: re.Pattern[str] | None = None
    #: engines whose topic URLs do not name their forum (phpBB, SMF, MyBB, Misago): where
    #: a thread page says it, learned at a read of the thread and kept in its cursor as
    #: ``forum`` for *url*: the *last* ``forum_link`` match on an HTML page (the
    #: breadcrumb's last forum link) read with ``forum_link_pattern``, or ``forum_key``
    #: of a JSON page
    forum_link: Selectors = ()
    forum_link_pattern: re.Pattern[str] | None = None
    forum_key: str = ""

    @property
    def learns_forum(self) -> bool:
        """Whether the list's URL needs the forum learned from a read of the thread."""
        return bool(self.forum_link or self.forum_key)

    def listing_url(self, thread_url: str, groups: Mapping[str, str]) -> str | None:
        """The topic list of *thread_url* (whose thread-pattern *groups* are given), or
        None when this preset cannot tell it from the URL."""
        if not self.url:
            return None
        found = dict(groups)
        if self.forum_pattern is not None:
            m = self.forum_pattern.search(thread_url)
            if not m:
                return None
            found.update({k: v for k, v in m.groupdict().items() if v is not None})
        try:
            return self.url.format(**found)
        except (KeyError, IndexError):
            return None


@dataclass(frozen=True)
class ForumPreset:
    name: str
    engine: str
    thread: ThreadSpec
    post: PostSpec | None
    dates: DateReader
    format: str = "html"               # "html", "json" (a paged API) or "discourse-json"
    json: JsonSpec | None = None
    login: LoginSpec | None = None
    reply: ReplySpec | None = None
    listing: ListingSpec | None = None
    pm: PmSpec | None = None
    description: str = ""
    source: str = ""
    #: a thread address of this engine as a narrator would paste it (shown in the panel)
    example: str = ""
    #: the markup the engine's posts are written in: replies are rendered in it (a BBCode
    #: reply on a Markdown forum shows its [b] tags to every player)
    markup: str = "bbcode"


#: how thread pages are read: HTML with selectors, a paged JSON API (Misago), Discourse's JSON
FORMATS = ("html", "json", "discourse-json")

#: what replies can be rendered in (pbp/templates/replies/<markup>/)
MARKUPS = ("bbcode", "markdown", "text")


# -- loading ---------------------------------------------------------------------------
_TOP = {"name", "engine", "description", "example", "markup", "format", "thread", "post", "dates", "json", "login",
        "reply", "listing", "pm"}
_DATES = {"formats", "language", "timezone", "relative", "relative_formats"}
_AS_IS = {("login", "body")}     # a JSON body template, not the [post] body selector


def available_presets() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def load_preset(name_or_path: str | Path, overrides: Mapping[str, Any] | None = None) -> ForumPreset:
    """A preset by name (``pbp/config/forums/<name>.toml``) or path, with per-campaign
    *overrides* merged over it table by table (e.g. ``{"dates": {"timezone": "Europe/Lisbon"}}``).
    Kept per process by (file, modification time, overrides): parsing on every poll was most of
    an idle poll's CPU (issue 17 item 3); a preset is frozen, an edited file is read again."""
    path = Path(name_or_path)
    if not path.suffix:
        path = PRESET_DIR / f"{name_or_path}.toml"
    try:
        key = (str(path), path.stat().st_mtime_ns, json.dumps(overrides or {}, sort_keys=True, default=str))
    except OSError:
        raise ConfigError(f"no forum preset {str(name_or_path)!r} (known: "
                          f"{', '.join(available_presets())})", where=str(path)) from None
    if key not in _LOADED:
        if len(_LOADED) >= 256:
            _LOADED.clear()
        _LOADED[key] = _read_preset(path, overrides)
    return _LOADED[key]


_LOADED: dict[tuple[str, int, str], ForumPreset] = {}


def _read_preset(path: Path, overrides: Mapping[str, Any] | None) -> ForumPreset:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML ({exc})", where=str(path)) from None
    for table, values in (overrides or {}).items():
        if isinstance(values, Mapping) and isinstance(data.get(table), Mapping):
            data[table] = {**data[table], **values}
        else:
            data[table] = values
    return preset_from_dict(data, where=str(path), default_name=path.stem)


def preset_from_dict(data: Mapping[str, Any], *, where: str = "preset",
                     default_name: str = "custom") -> ForumPreset:
    problems: list[str] = []
    for key in sorted(set(data) - _TOP):
        problems.append(f"unknown key {key!r}")
    fmt = data.get("format", "html")
    if fmt not in FORMATS:
        problems.append(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")

    thread = _section(ThreadSpec, data.get("thread"), "thread", problems, required=True)
    post = _section(PostSpec, data.get("post"), "post", problems, required=fmt == "html")
    json_spec = _section(JsonSpec, data.get("json"), "json", problems,
                         required=fmt != "html")
    login = _section(LoginSpec, data.get("login"), "login", problems)
    reply = _section(ReplySpec, data.get("reply"), "reply", problems)
    listing = _section(ListingSpec, data.get("listing"), "listing", problems)
    pm = _section(PmSpec, data.get("pm"), "pm", problems)

    dates_raw = dict(data.get("dates") or {})
    for key in sorted(set(dates_raw) - _DATES):
        problems.append(f"unknown key 'dates.{key}'")
    dates = None
    try:
        dates = DateReader(dates_raw.get("formats") or [], language=dates_raw.get("language", "en"),
                           timezone=dates_raw.get("timezone", "UTC"),
                           relative=dates_raw.get("relative"),
                           **({"relative_formats": dates_raw["relative_formats"]}
                              if "relative_formats" in dates_raw else {}))
    except ConfigError as exc:
        problems.append(f"dates: {exc.message}")

    if thread is not None:
        if "tid" not in thread.pattern.groupindex:
            problems.append("thread.pattern needs a named group (?P<tid>...) for the topic id")
        if thread.page_unit not in ("page", "offset"):
            problems.append(f"thread.page_unit must be 'page' or 'offset', not {thread.page_unit!r}")
        if thread.read_as not in ("visitor", "bot"):
            problems.append(f"thread.read_as must be 'visitor' or 'bot', not {thread.read_as!r}")
        if thread.page_unit == "offset" and thread.per_page <= 0:
            problems.append("thread.per_page is needed when thread.page_unit is 'offset'")
    markup = data.get("markup", "bbcode")
    if markup not in MARKUPS:
        problems.append(f"markup must be one of {', '.join(MARKUPS)}, not {markup!r}")
    if login is not None and login.kind not in ("form", "json"):
        problems.append(f"login.kind must be 'form' or 'json', not {login.kind!r}")
    if login is not None and login.kind == "form" and not login.form:
        problems.append("login needs 'form' (CSS of the login form) when its kind is 'form'")
    if reply is not None and reply.kind not in ("form", "api"):
        problems.append(f"reply.kind must be 'form' or 'api', not {reply.kind!r}")
    if reply is not None and reply.kind == "form" and not (reply.url or reply.link):
        problems.append("reply needs 'url' (a template) or 'link' (CSS of the reply link)")
    if listing is not None and listing.format not in ("html", "json"):
        problems.append(f"listing.format must be 'html' or 'json', not {listing.format!r}")
    elif listing is not None and listing.format == "html" and not (
            listing.row and listing.topic_link and listing.last_post):
        problems.append("listing needs 'row', 'topic_link' and 'last_post' (an HTML topic list)")
    elif listing is not None and listing.format == "json" and not (listing.items and listing.last_post_key):
        problems.append("listing needs 'items' and 'last_post_key' (a JSON topic list)")
    if pm is not None and pm.kind not in ("mention", "none") and not (pm.kind == "api" and pm.url and pm.api_body):
        problems.append(f"pm.kind must be 'mention', 'none' or 'api' (with 'url' and 'api_body'), not {pm.kind!r}")
    if problems:
        raise ConfigError("; ".join(problems), where=where)
    assert thread is not None and dates is not None
    return ForumPreset(name=data.get("name", default_name), engine=data.get("engine", ""),
                       description=data.get("description", ""), format=fmt, thread=thread,
                       post=post, dates=dates, json=json_spec, login=login, reply=reply,
                       listing=listing, pm=pm, source=where, example=str(data.get("example", "")),
                       markup=markup)


def _section(cls: type, raw: Any, name: str, problems: list[str], required: bool = False) -> Any:
    if raw is None:
        if required:
            problems.append(f"missing table [{name}]")
        return None
    if not isinstance(raw, Mapping):
        problems.append(f"[{name}] must be a table")
        return None
    known = {f.name: f for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            problems.append(f"unknown key '{name}.{key}'")
            continue
        try:
            values[key] = value if name == "json" or (name, key) in _AS_IS else convert(key, value)
        except (re.error, ValueError, TypeError, soupsieve.SelectorSyntaxError) as exc:
            problems.append(f"{name}.{key}: {exc}")
    missing = [f.name for f in fields(cls)
               if f.name not in values and f.default is _NO_DEFAULT and f.default_factory is _NO_DEFAULT]
    for key in missing:
        problems.append(f"missing key '{name}.{key}'")
    if missing or any(p.startswith(f"{name}.") for p in problems):
        return None
    return cls(**values)


_NO_DEFAULT = fields(ThreadSpec)[0].default  # dataclasses.MISSING, without importing it twice
