"""The encounter page cut into fragments, each with a short hash, for the live refresh (SCALE-5).

Why: every change used to send every fragment (about 960 KB of JSON for 200 posts) to
every open tab. The page now carries each fragment's hash; the live endpoint renders the
fragments only when the page version changed (:func:`pbp.panel.encounter_view.version`,
one query: "unchanged" renders nothing), and answers only those whose hash differs from
the one the tab holds. Each post of the round is a fragment of its own (``post-<id>``),
so a new post costs that post and the few summaries it changes (violations, preview...).

The fragments are kept per process by page version (and language, round asked for):
within one version every narrator sees the same HTML but for the CSRF token, which is
rendered as a placeholder and filled in on every answer, masked afresh each time
(:mod:`pbp.panel.csrf_mask`, BREACH), with the session's own token. The hashes are taken
over the placeholder, so a form that did not change does not count as changed. The first
paint of an unchanged page therefore renders no post again: the version query, then the
cached fragments joined.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from flask import current_app
from markupsafe import Markup

from .csrf_mask import masked_csrf_token

#: the fragments rendered from ``pbp/templates/panel/encounter/_<name>.html`` as they are
SIMPLE = ("round", "combatants", "violations", "secret", "preview", "audit")
POSTS = "panel/encounter/_posts.html"
#: what ``csrf_token()`` renders as in a kept fragment (no character HTML escapes)
PLACEHOLDER = "pbp-csrf-placeholder"
_PLACEHOLDER = re.compile(PLACEHOLDER)
#: how many renderings a process keeps (each some 400 KB for 200 posts)
KEEP = 12


def fragment_hash(html: str) -> str:
    """Eight hex digits of the fragment's SHA-1 (as rendered: with the placeholder)."""
    return hashlib.sha1(html.encode()).hexdigest()[:8]


def fill(html: str) -> Markup:
    """*html* with each placeholder a freshly masked token of this session."""
    if PLACEHOLDER not in html:
        return Markup(html)
    return Markup(_PLACEHOLDER.sub(lambda _m: masked_csrf_token(), html))


@dataclass(frozen=True)
class Rendered:
    """One rendering of the page's fragments: HTML with placeholders, hashes, post order."""

    html: dict[str, str]
    hashes: dict[str, str]
    order: list[int]
    #: the round's posts joined in order (they hold no token): the page's middle column
    posts: Markup


_KEPT: OrderedDict[tuple[Any, ...], Rendered] = OrderedDict()


def kept(key: tuple[Any, ...], build: Any) -> Rendered:
    """The rendering for *key* (database, encounter, round asked, version, language),
    rendered by ``build()`` (the page's context) when this process has none."""
    found = _KEPT.get(key)
    if found is not None:
        _KEPT.move_to_end(key)
        return found
    ctx = build()
    html, order = render(dict(ctx, csrf_token=lambda: PLACEHOLDER))
    found = Rendered(html, hashes(html), order, Markup("".join(html[f"post-{i}"] for i in order)))
    if ctx.get("preview_failed"):    # a preview that failed is tried again next time
        return found
    _KEPT[key] = found
    while len(_KEPT) > KEEP:
        _KEPT.popitem(last=False)
    return found


def render(ctx: dict[str, Any]) -> tuple[dict[str, str], list[int]]:
    """Every fragment of the page for *ctx* (name -> HTML) and the round's post ids in
    page order. The posts template is made a module once: its labels and URLs are looked
    up once, then its ``post`` macro runs per post."""
    env = current_app.jinja_env
    out: dict[str, str] = {}
    for name in SIMPLE:
        out[name] = env.get_template(f"panel/encounter/_{name}.html").render(**ctx)
    module = env.get_template(POSTS).make_module(vars=ctx)
    out["posts"] = str(module)
    order: list[int] = []
    for pv in ctx["posts"]:
        out[f"post-{pv.post.id}"] = str(module.post(pv))
        order.append(pv.post.id)
    out["orphans"] = str(module.tail())
    return out, order


def hashes(frags: dict[str, str]) -> dict[str, str]:
    return {name: fragment_hash(html) for name, html in frags.items()}


def parse_have(value: str | None) -> dict[str, str]:
    """The tab's ``name:hash,name:hash`` (the ``X-Live-Have`` header) as a dict; junk ignored."""
    out: dict[str, str] = {}
    for item in (value or "").split(","):
        name, sep, h = item.strip().partition(":")
        if sep and name and len(h) <= 16:
            out[name] = h
    return out
