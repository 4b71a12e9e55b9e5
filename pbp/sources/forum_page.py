"""One forum page -> posts, with a preset's selectors (HTML) or keys (Discourse JSON).

Why strict: a selector that matches nothing on a page that must hold posts means the
forum changed its layout. That is a :class:`LayoutError` naming the selector and the
URL, never "zero posts", or pbp would silently stop seeing declarations.

Post text is what the declaration parser reads: block elements and ``<br>`` become
line breaks, and quotes of other posts are left out of it (they are in
``extra["quotes"]``), so a player quoting the goblin's attack does not declare it.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

from bs4 import BeautifulSoup, Comment, NavigableString, Tag, XMLParsedAsHTMLWarning

from .base import LayoutError, PostRecord, SourceError, revision_hash
from .forum_preset import ForumPreset
from .forum_selectors import Selector, Selectors, describe

_BLOCKS = {"p", "div", "li", "ul", "ol", "blockquote", "dl", "dd", "dt", "h1", "h2", "h3", "h4",
           "h5", "h6", "tr", "table", "pre", "hr", "section", "article", "aside", "header",
           "footer", "figure", "details", "summary"}


@dataclass
class Page:
    """Posts of one page, in page order, and the last page number its pagination shows."""

    url: str
    posts: list[PostRecord]
    last_page: int | None = None
    stream: list[str] | None = None     # Discourse: every post id of the topic, in order
    #: the numbers the page links carry (offsets where ``page_unit = "offset"``)
    link_numbers: tuple[int, ...] = ()
    #: the forum holding the thread, as the page names it (``listing.forum_link``): what
    #: its topic list's URL is made of where the thread's URL does not say (SCALE-2)
    forum: str | None = None


def html_to_text(el: Tag) -> str:
    """Readable plain text: line breaks for ``<br>`` and blocks, spaces collapsed."""
    parts: list[str] = []

    def walk(node: Tag) -> None:
        for child in node.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                parts.append(str(child))
            elif isinstance(child, Tag):
                if child.name in ("script", "style"):
                    continue
                if child.name == "br":
                    parts.append("\n")
                    continue
                block = child.name in _BLOCKS
                if block:
                    parts.append("\n")
                walk(child)
                if block:
                    parts.append("\n")

    walk(el)
    lines = [" ".join(line.split()) for line in "".join(parts).replace("\xa0", " ").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def soup_of(text: str) -> BeautifulSoup:
    with warnings.catch_warnings():     # XHTML doctypes: still HTML to a forum
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(text, "lxml")


def _read(el: Tag, selectors: Selectors, scope: Tag) -> tuple[Tag | None, str | None]:
    """The first of *selectors* that finds a non-empty value."""
    found: tuple[Tag | None, str | None] = (None, None)
    for sel in selectors:
        node, value = _read_one(el, sel, scope)
        if node is not None and value:
            return node, value
        found = found if found[0] is not None else (node, value)
    return found


def _read_one(el: Tag, sel: Selector, scope: Tag) -> tuple[Tag | None, str | None]:
    node = el if not sel.css else scope.select_one(sel.css)
    if node is None:
        return None, None
    if sel.attrs:
        for a in sel.attrs:
            v = node.get(a)
            if v:
                return node, " ".join(v) if isinstance(v, list) else str(v)
        return node, None
    return node, node.get_text(" ", strip=True)


def _scope_of(el: Tag, scope_css: str) -> Tag:
    if not scope_css:
        return el
    for parent in el.parents:
        if isinstance(parent, Tag) and parent.css.match(scope_css):
            return parent
    return el


def _pattern(value: str, pattern: re.Pattern[str] | None) -> str | None:
    if pattern is None:
        return value
    m = pattern.search(value)
    if not m:
        return None
    return m.group(1) if m.groups() else m.group(0)


def parse_html_page(text: str, preset: ForumPreset, url: str, page_no: int = 1, *,
                    groups: Mapping[str, str] | None = None, now: datetime | None = None,
                    per_page: int | None = None) -> Page:
    """Posts of one thread page. *groups* are the thread pattern's named groups (permalinks);
    *per_page* the posts per page the board was seen to show (else the preset's)."""
    spec, thread = preset.post, preset.thread
    assert spec is not None
    for pat in thread.missing_text:
        if pat.search(text):
            raise SourceError("the forum says this thread does not exist", where=url)
    if groups is None:
        m = thread.pattern.match(url)
        groups = {k: v for k, v in m.groupdict().items() if v is not None} if m else {}
    soup = soup_of(text)
    posts: list[PostRecord] = []
    for read in each_post(soup, preset, url, page_no, groups, now):
        if isinstance(read, LayoutError):
            raise read
        posts.append(read)
    numbers = link_numbers(soup, preset, url)
    step = per_page or thread.per_page
    pages = [n // step + 1 if thread.page_unit == "offset" else n for n in numbers]
    return Page(url=url, posts=posts, last_page=max([page_no, *pages]), link_numbers=numbers,
                forum=forum_of(soup, preset))


def forum_of(soup: BeautifulSoup, preset: ForumPreset) -> str | None:
    """The thread's forum from its page: the *last* ``listing.forum_link`` match (a
    breadcrumb runs from the board's index to the forum the thread is in), read with
    ``forum_link_pattern``; None when the preset does not ask or the page does not say."""
    spec = preset.listing
    if spec is None or not spec.forum_link:
        return None
    for sel in spec.forum_link:
        found = [n.get(sel.attrs[0]) if sel.attrs else n.get_text(" ", strip=True)
                 for n in soup.select(sel.css)] if sel.css else []
        for value in reversed([str(v) for v in found if v]):
            if spec.forum_link_pattern is None:
                return value
            m = spec.forum_link_pattern.search(value)
            if m:
                return m.group(1) if m.groups() else m.group(0)
    return None


def each_post(soup: BeautifulSoup, preset: ForumPreset, url: str, page_no: int,
              groups: Mapping[str, str], now: datetime | None) -> Iterator[PostRecord | LayoutError]:
    """Each post container of a page read on its own: the post, or what stopped it.

    Why one at a time: reading stops at the first unreadable post (a thread that cannot be
    read whole must not be half-read), but ``pbp preset check`` shows every problem."""
    spec = preset.post
    assert spec is not None
    containers = soup.select(spec.container)
    if not containers:
        yield LayoutError(f"post container selector {spec.container!r} matched nothing "
                          f"(layout changed, or not a thread page)", where=url)
        return
    for el in containers:
        try:
            yield _post(el, _scope_of(el, spec.scope), preset, url, page_no, groups, now)
        except LayoutError as exc:
            yield exc


def _required(el: Tag, scope: Tag, sel: Selectors, what: str, url: str,
              pattern: re.Pattern[str] | None = None) -> tuple[Tag, str]:
    node, value = _read(el, sel, scope)
    if node is None or value is None:
        raise LayoutError(f"{what} selector {describe(sel)!r} matched nothing in a post", where=url)
    got = _pattern(value, pattern)
    if got is None:
        raise LayoutError(f"{what} {value[:80]!r} does not match pattern {pattern.pattern!r}"
                          if pattern else f"{what} is empty", where=url)
    return node, got.strip()


def _post(el: Tag, scope: Tag, preset: ForumPreset, url: str, page_no: int,
          groups: Mapping[str, str], now: datetime | None) -> PostRecord:
    spec = preset.post
    assert spec is not None
    _, pid = _required(el, scope, spec.id, "post id", url, spec.id_pattern)
    where = f"{url} (post {pid})"
    _, author = _required(el, scope, spec.author, "author", where, spec.author_pattern)
    time_pattern = spec.time_pattern
    if time_pattern is not None and "{author}" in time_pattern.pattern:
        time_pattern = _with_author(time_pattern.pattern, author)
    posted_at = _posted_at(el, scope, preset, spec.time, time_pattern, where, now)
    body_el, _ = _required(el, scope, spec.body, "body", where)
    for css in spec.body_exclude:
        for junk in body_el.select(css):
            junk.decompose()
    body_html = body_el.decode_contents().strip()
    stable = body_html
    quotes: list[dict[str, str]] = []
    if spec.quote:
        found = body_el.select(spec.quote)
        inside = {id(x) for x in found}
        for q in [x for x in found if not any(id(a) in inside for a in x.parents)]:
            who = q.select_one(spec.quote_author) if spec.quote_author else None
            quoted = _quote_author(who, spec.quote_author_pattern)
            if who is not None:
                # a quote's header prints the quoted post's time ("6 minutes ago", "Today
                # at"): its rendering changes by itself, so it is no part of the revision
                stable = stable.replace(who.decode(), "")
                who.decompose()
            quotes.append({"author": quoted, "text": html_to_text(q)})
            q.decompose()
    text = html_to_text(body_el)
    edited_at = None
    if spec.edited is not None:
        _, edited = _read(el, spec.edited, scope)
        edited = _pattern(edited, spec.edited_pattern) if edited else None
        if edited:
            try:
                edited_at = preset.dates.parse(edited, now)
            except ValueError:
                edited_at = None
    try:
        link = preset.thread.permalink.format(**{**groups, "page": url, "id": pid})
    except (KeyError, IndexError):
        link = ""
    link = link or f"{url}#{pid}"
    for pattern in preset.thread.volatile:   # session ids in links are not edits
        stable = pattern.sub("", stable)
    return PostRecord(platform_id=pid, author=author, posted_at=posted_at, body=body_html,
                      text=text, fmt="html", edited_at=edited_at, url=link,
                      revision=revision_hash(stable),
                      extra={"page": page_no, "quotes": quotes})


def _quote_author(who: Tag | None, pattern: re.Pattern[str] | None) -> str:
    """The quoted post's author out of its header ("player Wrote:", "Quote from: player
    on Today at 10:47 AM"); the whole header when the preset gives no pattern."""
    if who is None:
        return ""
    text = who.get_text(" ", strip=True)
    if pattern is None:
        return text
    return (_pattern(text, pattern) or text).strip()


def _posted_at(el: Tag, scope: Tag, preset: ForumPreset, selectors: Selectors,
               pattern: re.Pattern[str] | None, where: str, now: datetime | None) -> datetime:
    """The post's time from the first selector whose text reads *and* parses as a date.

    Why parse inside the loop: an engine's first choice (MyBB's ``span[title]``) may hold
    only a date for some posts ("Yesterday"), and the next selector then has the time."""
    problem: LayoutError | None = None
    for sel in selectors:
        try:
            _, when = _required(el, scope, (sel,), "timestamp", where, pattern)
            return preset.dates.parse(when, now)
        except LayoutError as exc:
            problem = problem or exc
        except ValueError as exc:
            problem = LayoutError(f"timestamp: {exc}", where=where)
    assert problem is not None
    raise problem


@lru_cache(maxsize=256)
def _with_author(pattern: str, author: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("{author}", re.escape(author)), re.DOTALL)


def link_numbers(soup: BeautifulSoup, preset: ForumPreset, url: str) -> tuple[int, ...]:
    """The page numbers (or offsets) the pagination links name, in page order."""
    thread = preset.thread
    if not thread.page_links or thread.page_link_pattern is None:
        return ()
    found: list[int] = []
    for a in soup.select(thread.page_links):
        m = thread.page_link_pattern.search(urljoin(url, str(a.get("href") or "")))
        if m:
            found.append(int(m.group(1)))
    return tuple(sorted(set(found)))


# -- Discourse JSON ---------------------------------------------------------------------
def dig(data: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(data, Mapping) or key not in data:
            return None
        data = data[key]
    return data


def json_posts(text: str, preset: ForumPreset, url: str, expected: str) -> tuple[Any, list[Any]]:
    """A JSON page and its post list (``json.posts``); a page that is no JSON, or holds no
    list there, is a :class:`LayoutError` naming what was *expected* or the key."""
    spec = preset.json
    assert spec is not None
    try:
        data = json.loads(text)
    except ValueError:
        raise LayoutError(f"not a JSON document (expected {expected})", where=url) from None
    items = dig(data, spec.posts)
    if not isinstance(items, list):
        raise LayoutError(f"JSON key {spec.posts!r} holds no post list", where=url)
    return data, items


def parse_discourse_json(text: str, preset: ForumPreset, url: str) -> Page:
    spec = preset.json
    assert spec is not None
    data, posts_raw = json_posts(text, preset, url, "Discourse /t/ID.json")
    posts: list[PostRecord] = []
    for item in posts_raw:
        pid = item.get(spec.id)
        if pid is None or item.get(spec.author) is None or item.get(spec.time) is None:
            raise LayoutError(f"a post lacks {spec.id!r}, {spec.author!r} or {spec.time!r}",
                              where=url)
        try:
            posted_at = preset.dates.parse(str(item[spec.time]))
        except ValueError as exc:
            raise LayoutError(f"timestamp: {exc}", where=url) from None
        body = item.get(spec.body) or ""
        quotes = []
        body_soup = soup_of(f"<div>{body}</div>").div
        assert body_soup is not None
        for q in body_soup.select("aside.quote"):
            quotes.append({"author": q.get("data-username", ""), "text": html_to_text(q)})
            q.decompose()
        edited_at = None
        if item.get(spec.edited_time) and item.get(spec.edited_time) != item.get(spec.time):
            try:
                edited_at = preset.dates.parse(str(item[spec.edited_time]))
            except ValueError:
                edited_at = None
        posts.append(PostRecord(
            platform_id=str(pid), author=str(item[spec.author]), posted_at=posted_at, body=body,
            text=html_to_text(body_soup), fmt="html", edited_at=edited_at,
            url=None, extra={"post_number": item.get(spec.number), "raw": item.get(spec.raw),
                             "quotes": quotes}))
    stream = dig(data, spec.stream)
    return Page(url=url, posts=posts, last_page=1,
                stream=[str(i) for i in stream] if isinstance(stream, list) else None)
