"""The encounter page cut into fragments, each with a short hash, for the live refresh (SCALE-5).

Why: every change used to send every fragment (about 960 KB of JSON for 200 posts) to
every open tab. The page now carries each fragment's hash; the live endpoint renders the
fragments only when the page version changed (:func:`pbp.panel.encounter_view.version`,
one query: "unchanged" renders nothing), and answers only those whose hash differs from
the one the tab holds. Each post of the round is a fragment of its own (``post-<id>``),
so a new post costs that post and the few summaries it changes (violations, preview...).

A hash is taken with the CSRF tokens left out: they are masked afresh on every render
(:mod:`pbp.panel.csrf_mask`), and a form that did not change must not count as changed.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from flask import current_app

#: the fragments rendered from ``templates/panel/encounter/_<name>.html`` as they are
SIMPLE = ("round", "combatants", "violations", "secret", "preview", "audit")
#: the masked token's value inside a form (left out of a hash)
_TOKEN = re.compile(r'(name="(?:[\w-]*-)?csrf_token" value=")[^"]*"')
POSTS = "panel/encounter/_posts.html"


def fragment_hash(html: str) -> str:
    """Eight hex digits of the fragment's SHA-1, CSRF tokens left out."""
    return hashlib.sha1(_TOKEN.sub(r"\1", html).encode()).hexdigest()[:8]


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
