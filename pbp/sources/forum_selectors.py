"""A preset's selectors (``css@attr``) and the checking of its values (regexes, CSS).

Apart from :mod:`.forum_preset`, which keeps the shape of a preset file and its loading:
this keeps what one value means and how it is checked, so both stay readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import soupsieve


@dataclass(frozen=True)
class Selector:
    """``css@attr`` parsed: where to look and what to read."""

    css: str
    attrs: tuple[str, ...] = ()

    @classmethod
    def parse(cls, spec: str) -> Selector:
        css, at, attrs = spec.rpartition("@") if "@" in spec else (spec, "", "")
        return cls(css.strip(), tuple(a.strip() for a in attrs.split("|") if a.strip()) if at else ())

    def __str__(self) -> str:
        return self.css + ("@" + "|".join(self.attrs) if self.attrs else "")


#: A selector key's value: one selector, or a list tried in order (the first that reads,
#: and for dates also parses, wins). Why lists: one engine prints the same thing in
#: several shapes (MyBB: "5 minutes ago" with the date in a title, "Yesterday, 04:45 AM",
#: or a plain date), and one selector cannot read all of them.
Selectors = tuple[Selector, ...]


def describe(selectors: Selectors) -> str:
    """The selectors as a preset writes them, for error messages."""
    return " | ".join(str(s) for s in selectors)


_REGEX_KEYS = {"pattern", "page_link_pattern", "id_pattern", "time_pattern", "author_pattern",
               "edited_pattern", "post_id_pattern", "topic_pattern", "last_post_pattern",
               "quote_author_pattern", "forum_pattern", "forum_link_pattern"}
_REGEX_LISTS = {"missing_text", "volatile", "flood_patterns"}
_SELECTOR_KEYS = {"id", "author", "time", "body", "edited", "topic_link", "last_post", "forum_link"}
_CSS_KEYS = {"container", "scope", "page_links", "quote", "quote_author", "form", "failure",
             "link", "error", "row", "next_page"}
_CSS_LISTS = {"body_exclude"}


def convert(key: str, value: Any) -> Any:
    """*value* of preset key *key*, compiled (regexes, selectors) or checked (CSS)."""
    if key in _REGEX_KEYS:
        return re.compile(_str(value), re.DOTALL)
    if key in _REGEX_LISTS:
        return tuple(re.compile(_str(v), re.DOTALL | re.IGNORECASE) for v in _list(value))
    if key in _SELECTOR_KEYS:
        specs = _list(value) if isinstance(value, list) else [value]
        if not specs:
            raise ValueError("an empty list of selectors")
        out = tuple(Selector.parse(_str(v)) for v in specs)
        for sel in out:
            if sel.css:
                soupsieve.compile(sel.css)
        return out
    if key in _CSS_KEYS:
        if value:
            soupsieve.compile(_str(value))
        return value
    if key in _CSS_LISTS:
        for v in _list(value):
            soupsieve.compile(_str(v))
        return tuple(value)
    if key in ("missing_status", "flood_status"):
        return tuple(int(v) for v in _list(value))
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return value
