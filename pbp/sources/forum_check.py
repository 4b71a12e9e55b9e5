"""``pbp preset check``: what a preset reads from one thread page, post by post, and every
problem — so a narrator can write or fix a preset for a forum pbp has not seen, without
Python (issue 14 point 10).

Why a module of its own: reading stops at the first unreadable post (a thread must not be
half-read); a check goes on and names every problem. It reads as a visitor (no bot
session: times in the board's zone) and changes nothing. ``draft_volatile`` compares two
fetches of one page and proposes the ``volatile`` patterns that make them hash the same.
"""

from __future__ import annotations

import difflib
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..errors import ConfigError
from ..settings import Settings
from .base import LayoutError, PostRecord
from .forum import ForumSource
from .forum_json import parse_json_page
from .forum_page import each_post, link_numbers, soup_of
from .forum_preset import ForumPreset, available_presets, load_preset

log = logging.getLogger(__name__)

#: how much of a body a check shows
BODY_START = 70


@dataclass
class PageCheck:
    """One page as a preset reads it: the posts it could read, and what went wrong."""

    url: str
    preset: ForumPreset
    posts: list[PostRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    containers: int = 0
    last_page: int = 1

    def lines(self, limit: int = 5) -> list[str]:
        """The check in words, one line each."""
        zone = self.preset.dates.tz
        out = [f"preset {self.preset.name} ({self.preset.engine or 'no engine named'}): {self.url}",
               f"posts on the page: {self.containers}, read: {len(self.posts)}; "
               f"last page from the links: {self.last_page}"]
        for n, post in enumerate(self.posts[:limit], 1):
            body = " ".join(post.text.split())
            body = body if len(body) <= BODY_START else body[:BODY_START - 1] + "…"
            local = post.posted_at.astimezone(zone)
            quotes = len(post.extra.get("quotes") or [])
            out.append(f"  {n}. id {post.platform_id} | {post.author} | "
                       f"{post.posted_at:%Y-%m-%d %H:%M} UTC ({local:%H:%M} {zone}) | "
                       f"{body!r}" + (f" | {quotes} quote(s)" if quotes else ""))
        if len(self.posts) > limit:
            out.append(f"  … and {len(self.posts) - limit} more")
        out += [f"problem: {p}" for p in self.problems] or ["problems: none"]
        return out


def check_page(text: str, preset: ForumPreset, url: str, *, page_no: int = 1,
               now: datetime | None = None, thread_url: str | None = None) -> PageCheck:
    """Read every post container of *text* on its own and collect each problem.
    *thread_url*: the thread's address when *url* is another (a JSON API's page)."""
    check = PageCheck(url=url, preset=preset)
    m = preset.thread.pattern.match(thread_url or url)
    if not m:
        check.problems.append(f"the address does not fit the preset's thread.pattern "
                              f"(the preset's example: {preset.example or 'none'})")
    groups = {k: v for k, v in m.groupdict().items() if v is not None} if m else {}
    for pattern in preset.thread.missing_text:
        if pattern.search(text):
            check.problems.append("the page says the thread does not exist (thread.missing_text)")
    if preset.format == "json":     # a paged API (Misago): the page reads whole or not at all
        try:
            page = parse_json_page(text, preset, url, page_no, groups=groups)
        except LayoutError as exc:
            check.problems.append(exc.message)
            return check
        check.posts, check.containers = page.posts, len(page.posts)
        check.last_page = page.last_page or page_no
        return check
    if preset.post is None:
        check.problems.append("the preset has no [post] table")
        return check
    soup = soup_of(text)
    check.containers = len(soup.select(preset.post.container))
    for n, read in enumerate(each_post(soup, preset, url, page_no, groups, now), 1):
        if isinstance(read, LayoutError):
            where = f"post {n}: " if check.containers else ""
            check.problems.append(where + read.message)
        else:
            check.posts.append(read)
    numbers = link_numbers(soup, preset, url)
    thread = preset.thread
    if thread.page_unit == "offset":
        check.last_page = max([page_no, *(k // thread.per_page + 1 for k in numbers)])
        offsets = [k for k in numbers if k > 0]
        if offsets and page_no == 1 and check.containers != thread.per_page:
            check.problems.append(f"page 1 shows {check.containers} posts and its links step by "
                                  f"{math.gcd(*offsets)}, but thread.per_page is {thread.per_page}")
    else:
        check.last_page = max([page_no, *numbers])
    if (thread.page_unit == "offset" and thread.page_links and not numbers
            and check.containers >= thread.per_page):
        check.problems.append(f"no page links matched thread.page_links {thread.page_links!r} "
                              f"with thread.page_link_pattern (fine if the thread has one page)")
    return check


def draft_volatile(first: str, second: str, known: list[re.Pattern[str]]) -> list[str]:
    """Patterns for what differs between two fetches of one unchanged page (session ids,
    tokens, the time now), after the preset's own *known* patterns. Each changed run is
    widened to whole words, generalised (digits, hex, letters) and anchored on the text
    before it. Lines added or removed are not guessed at: the page really changed."""
    for pattern in known:
        first, second = pattern.sub("", first), pattern.sub("", second)
    proposals: list[str] = []
    a, b = first.splitlines(), second.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        for x, y in zip(a[i1:i2], b[j1:j2], strict=False):
            for proposal in _line_patterns(x, y):
                if proposal not in proposals:
                    proposals.append(proposal)
    return proposals


_WORD = re.compile(r"[0-9A-Za-z_]")


def _line_patterns(x: str, y: str) -> list[str]:
    """One pattern per changed run of *x* -> *y*, each run widened to whole words (a hex
    token differing at ten places is one run) and runs that then overlap merged."""
    runs: list[tuple[int, int, int, int]] = []
    matcher = difflib.SequenceMatcher(None, x, y, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        while i1 > 0 and j1 > 0 and _WORD.match(x[i1 - 1]) and x[i1 - 1] == y[j1 - 1]:
            i1, j1 = i1 - 1, j1 - 1
        while i2 < len(x) and j2 < len(y) and _WORD.match(x[i2]) and x[i2] == y[j2]:
            i2, j2 = i2 + 1, j2 + 1
        if runs and i1 <= runs[-1][1] + 1:
            a1, _, b1, _ = runs[-1]
            runs[-1] = (a1, max(i2, runs[-1][1]), b1, max(j2, runs[-1][3]))
        else:
            runs.append((i1, i2, j1, j2))
    out, end = [], 0
    for i1, i2, j1, j2 in runs:
        changed = x[i1:i2] + y[j1:j2]
        if "<" not in changed and ">" not in changed:   # markup changed: content, not noise
            out.append(re.escape(x[max(end, i1 - 16):i1]) + _generalise(changed))
        end = i2
    return out


def _generalise(changed: str) -> str:
    if changed.isdigit():
        return r"\d+"
    if re.fullmatch(r"[0-9a-f]+", changed):
        return "[0-9a-f]+"
    if re.fullmatch(r"[0-9A-Za-z_-]+", changed):
        return "[0-9A-Za-z_-]+"
    return r"[^\"'<>]*"


def fetch_check(url: str, preset: str, settings: Settings, *, page: int = 1,
                draft: bool = False) -> tuple[PageCheck, list[str] | None]:
    """Fetch page *page* of *url* as a visitor and check it with *preset*; with *draft*,
    fetch it again and propose ``volatile`` patterns (None when not asked)."""
    source = ForumSource(url, preset, settings=settings, credentials={})
    where = source.page_url(page)
    resp = source.client.get(where)
    if resp.status >= 400:
        check = PageCheck(url=where, preset=source.preset)
        check.problems.append(f"the forum answered HTTP {resp.status} to a visitor (a private "
                              f"board needs the bot's login; pbp reads public threads as a visitor)")
        return check, None
    check = check_page(resp.text, source.preset, resp.url, page_no=page, thread_url=url)
    proposals = None
    if draft:
        again = source.client.get(where)
        proposals = draft_volatile(resp.text, again.text, list(source.preset.thread.volatile))
    return check, proposals


def detect_presets(url: str) -> list[str]:
    """The presets whose ``thread.pattern`` matches *url*, by name. Why: a narrator pastes a
    thread's address and need not know which engine the forum runs; two engines with the
    same URL shape (phpBB 2 and 3) both match and the narrator chooses. Pure: no request.

    >>> detect_presets("http://127.0.0.1:8000/forum/f-1/topic/fight-7/")
    ['machina']
    >>> detect_presets("https://example.org/gopher")
    []
    """
    found = []
    for name in available_presets():
        try:
            preset = load_preset(name)
        except ConfigError:      # a broken preset file matches nothing; loading it says why
            continue
        if preset.thread.pattern.match(url.strip()):
            found.append(name)
    return found


def reading_engine(url: str, presets: Sequence[str], settings: Settings) -> str | None:
    """The one preset of *presets* that reads posts from *url*'s first page, as a visitor,
    with no problem; None when none or several do.

    Why: some engines share a thread address's shape (Misago's and Discourse's
    ``/t/slug/ID/``, phpBB 2's and 3's ``viewtopic.php``), so the address alone cannot say
    which engine a forum runs, and most narrators cannot answer the question either. The
    forum can: each engine that fits reads the first page once (the workers' own client:
    the same private-host rule and host interval). A probe that fails for any reason
    counts as "does not read": the caller then asks, or names the engine, as before."""
    readers = []
    for preset in presets:
        try:
            check, _ = fetch_check(url, preset, settings)
        except Exception as exc:  # noqa: BLE001 - a probe: any failure means "not this one"
            log.info("engine probe failed", extra={"url": url, "preset": preset, "error": repr(exc)})
            continue
        if check.posts and not check.problems:
            readers.append(preset)
    return readers[0] if len(readers) == 1 else None
