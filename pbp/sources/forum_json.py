"""A paged JSON API thread page -> posts (``format = "json"``: Misago's
``/api/threads/<id>/posts/?page=N``), with the preset's ``[json]`` keys.

Why a format of its own and not Discourse's: Discourse hands out every post id of the
topic in one document (``post_stream.stream``); Misago pages its API like its HTML, so a
page of JSON is read exactly like a page of HTML — the last page polled, walked back,
re-read in full now and then — and only the step from a page to posts differs. Misago's
pages overlap by one post (a page starts with the last post of the one before); the
reader already skips a post it has met on an earlier page.

Volatile parts of the answer (the poster's ``last_click``, who is online) are left out
of the page hash by the preset's ``thread.volatile`` patterns, as for HTML.
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import LayoutError, PostRecord, revision_hash
from .forum_page import Page, dig, html_to_text, json_posts, soup_of
from .forum_preset import ForumPreset


def parse_json_page(text: str, preset: ForumPreset, url: str, page_no: int = 1, *,
                    groups: Mapping[str, str] | None = None) -> Page:
    """One page of a JSON API's posts; a document without the post list is a
    :class:`LayoutError` naming the key (never "no posts")."""
    spec = preset.json
    assert spec is not None
    data, items = json_posts(text, preset, url, "the thread's posts API")
    posts = [_post(item, preset, url, page_no, groups or {}) for item in items
             if not (spec.skip and isinstance(item, Mapping) and item.get(spec.skip))]
    last = dig(data, spec.pages) if spec.pages else None
    forum = dig(data, preset.listing.forum_key) if preset.listing and preset.listing.forum_key else None
    return Page(url=url, posts=posts, last_page=int(last) if isinstance(last, int) else page_no,
                forum=str(forum) if isinstance(forum, (int, str)) and str(forum) else None)


def _post(item: object, preset: ForumPreset, url: str, page_no: int,
          groups: Mapping[str, str]) -> PostRecord:
    spec = preset.json
    assert spec is not None
    if not isinstance(item, Mapping):
        raise LayoutError(f"JSON key {spec.posts!r} holds something that is not a post", where=url)
    pid, author, posted = dig(item, spec.id), dig(item, spec.author), dig(item, spec.time)
    if pid is None or author is None or posted is None:
        raise LayoutError(f"a post lacks {spec.id!r}, {spec.author!r} or {spec.time!r}", where=url)
    where = f"{url} (post {pid})"
    try:
        posted_at = preset.dates.parse(str(posted))
    except ValueError as exc:
        raise LayoutError(f"timestamp: {exc}", where=where) from None
    body = str(dig(item, spec.body) or "")
    body_soup = soup_of(f"<div>{body}</div>").div
    assert body_soup is not None
    quotes = []
    for q in body_soup.select(spec.quote) if spec.quote else []:
        who = next((str(el.get(a)) for el in [q, *q.select("[data-author], [data-username]")]
                    for a in ("data-author", "data-username") if el.get(a)), "")
        quotes.append({"author": who, "text": html_to_text(q)})
        q.decompose()
    edited_at = None
    edited = dig(item, spec.edited_time) if spec.edited_time else None
    if edited and edited != posted:
        try:
            edited_at = preset.dates.parse(str(edited))
        except ValueError:
            edited_at = None
    try:
        link = preset.thread.permalink.format(**{**groups, "id": pid}) if preset.thread.permalink else ""
    except (KeyError, IndexError):
        link = ""
    return PostRecord(platform_id=str(pid), author=str(author), posted_at=posted_at, body=body,
                      text=html_to_text(body_soup), fmt="html", edited_at=edited_at,
                      url=link or f"{url}#{pid}", revision=revision_hash(body),
                      extra={"page": page_no, "quotes": quotes,
                             "raw": dig(item, spec.raw) if spec.raw else None})
