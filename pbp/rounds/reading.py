"""A post, read for the round: which combatant declares what, which tags to roll.

Why an adapter over :func:`pbp.parse.parse_post`: the parser reads one voice; a post
may speak for several combatants (the narrator declaring NPC actions, a player with
two characters). We split such a post on name headers (``Goblin 1: ...``,
``[b]Goblin 1[/b]: ...``, ``**Goblin 1**: ...``), parse each part, and number the
roll tags across the whole post so a tag's identity (post, ordinal) does not depend
on how the post was split. Initiative commands (``.ri``) are numbered -1, -2, ...

Nothing here touches the database or rolls dice.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..frozen import quick_init
from ..parse import ParsedPost, Roster, parse_post, post_language
from ..rules.model import Action, Combatant


@quick_init   # SCALE-6: an ingest batch makes one a tag; the frozen __init__ cost 3x
@dataclass(frozen=True)
class TagSpec:
    """A roll to make once for this post: ``tag_index`` is its identity (PBP-4)."""

    tag_index: int
    expression: str
    written: str
    label: str | None = None
    position: int = 0
    purpose: str | None = None
    actor: str | None = None
    value: float | None = None        # initiative given outright (``.ri 12``): nothing to roll
    hidden: bool = False              # a secret roll (DICE-2): its own seed, value sealed


@dataclass
class Reading:
    """What one combatant declares in one post."""

    actor: str
    actions: list[Action] = field(default_factory=list)
    tags: list[TagSpec] = field(default_factory=list)
    initiative: list[TagSpec] = field(default_factory=list)
    speech: list[str] = field(default_factory=list)
    speech_spans: list[tuple[int, int]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    lang: str | None = None              # the language the post was read in (issue 13 item 2)
    quoted: list[dict[str, Any]] = field(default_factory=list)   # quoted tags: never rolled
    standing: list[Any] = field(default_factory=list)  # STALL-1/2 command lines (parse.model.Command)

    def in_character(self) -> bool:
        """Whether the post says anything for the round beyond standing commands (it ends
        an absence, STALL-1; a post of commands only declares nothing, STALL-2)."""
        return bool(self.actions or self.tags or self.speech or self.initiative)


ParseFn = Callable[..., ParsedPost]
"""``parse_post`` or a stand-in with its signature: (part, fmt=, lang=, roster=, actor=,
own_language=)."""


def default_parser() -> ParseFn:
    return parse_post


_HEADER = r"^[ \t]*(?:\[b\]|\*\*|__)?[ \t]*(?P<name>{names})[ \t]*(?:\[/b\]|\*\*|__)?[ \t]*[:\-–—][ \t]*"


@functools.lru_cache(maxsize=64)
def _headers(names: tuple[str, ...]) -> re.Pattern[str]:
    """The header pattern of these names, longest first. Kept: building it (50 names
    escaped and joined, then the re module's cache looked up by the long pattern text)
    was more than half of splitting a narrator's post (0.09 ms to 0.04 ms, SCALE-6)."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(_HEADER.format(names=alternatives), re.IGNORECASE | re.MULTILINE)


def split_by_actor(text: str, controlled: Sequence[Combatant]) -> list[tuple[str, str, int]]:
    """Split *text* into (actor key, part, offset) on lines opening with an actor's name.

    Text before the first header is narration: it declares nothing. A post naming
    nobody belongs to the only controlled combatant, or to nobody when several.
    """
    names: dict[str, str] = {}
    for c in controlled:
        for n in (c.key, c.name, *c.aliases):
            if n:
                names[n.casefold()] = c.key
    if not names:
        return []
    hits = list(_headers(tuple(names)).finditer(text))
    if not hits:
        return [(controlled[0].key, text, 0)] if len(controlled) == 1 else []
    parts = []
    for i, hit in enumerate(hits):
        end = hits[i + 1].start() if i + 1 < len(hits) else len(text)
        parts.append((names[hit.group("name").casefold()], text[hit.end():end], hit.end()))
    return parts


#: the parser's rosters by what they hold, most recently used last (see parser_roster)
_ROSTERS: OrderedDict[tuple[Any, ...], Roster] = OrderedDict()
_ROSTERS_KEPT = 64


def parser_roster(roster: Sequence[Combatant]) -> Roster | None:
    """The parser's own roster, which builds its name index (every name and weapon folded
    and stemmed) on first use and memoises what it matched. The same names give the same
    roster again, index and memo included (SCALE-6: an ingest batch of one post spent a
    fifth of its time re-indexing the encounter's names); a handful are kept."""
    if roster is None:
        return None
    # what Roster.of reads of each combatant, read here without building the roster (a
    # batch's roster is almost always one kept already)
    key = tuple((c.key, c.name, tuple(c.aliases), tuple((w.name, tuple(w.aliases)) for w in c.weapons),
                 str(c.side)) for c in roster)
    kept = _ROSTERS.get(key)
    if kept is not None:
        _ROSTERS.move_to_end(key)
        return kept
    built = Roster.of(tuple(roster))
    if built is None:
        return None
    _ROSTERS[key] = built
    while len(_ROSTERS) > _ROSTERS_KEPT:
        _ROSTERS.popitem(last=False)
    return built


def read_post(body: str, text: str, fmt: str, lang: str, roster: Sequence[Combatant],
              controlled: Sequence[Combatant], *, parse: ParseFn | None = None,
              indexed: Roster | None = None) -> list[Reading]:
    """Read a post for every combatant its author controls (see the module docstring).
    *indexed* is :func:`parser_roster` of *roster*, when the caller reads many posts."""
    parse = parse or default_parser()
    indexed = indexed if indexed is not None else parser_roster(roster)
    if not controlled:
        return []
    # the campaign's language is the first guess; a post plainly in another is read in it
    own_language = True
    if len(controlled) == 1:
        chunks = [(controlled[0].key, body, fmt, 0)]
    else:   # guessed once, on the whole post: every part is read in it (post_language)
        chunks = [(k, part, "text", off) for k, part, off in split_by_actor(text, controlled)]
        if chunks:
            lang, own_language = post_language(text, lang), False
    readings: dict[str, Reading] = {}
    tag_base = 0
    init_base = 0
    for actor, part, part_fmt, offset in chunks:
        parsed = parse(part, fmt=part_fmt, lang=lang, roster=indexed, actor=actor,
                       own_language=own_language)
        reading = readings.setdefault(actor, Reading(actor=actor, lang=parsed.lang))
        tag_count = 0
        for tag in parsed.rolls:
            if tag.in_quote:   # another's roll, quoted: the narrator sees it (issue 13 item 4)
                reading.quoted.append({"written": tag.text or tag.expression,
                                       "expression": tag.expression, "label": tag.label,
                                       "position": offset + tag.position})
                continue
            expr = tag.dice_expression()
            reading.tags.append(TagSpec(
                tag_index=tag_base + tag.index, expression=expr, written=tag.text or tag.expression,
                label=tag.label, position=offset + tag.position, actor=actor, hidden=tag.hidden,
                purpose=None if tag.hidden else tag.purpose))   # a secret roll is no initiative
            tag_count = max(tag_count, tag.index + 1)
        for cmd in parsed.commands:
            if cmd.name.startswith("standing."):
                reading.standing.append(cmd)
                continue
            if cmd.name not in ("initiative.roll", "initiative.set", "initiative.add",
                                "initiative.join"):
                continue
            for entry in cmd.entries or ():
                init_base += 1
                who = entry.key or (actor if entry.name is None else None)
                if who is None or who not in {c.key for c in controlled}:
                    reading.errors.append({"code": "initiative.not-yours", "name": entry.name,
                                           "message": f"'{entry.name}' is not yours to roll for",
                                           "position": offset + cmd.position})
                    continue
                expr = entry.expression or ""
                if expr and entry.advantage:
                    expr = expr.replace("1d20", "2d20kh1" if entry.advantage > 0 else "2d20kl1", 1)
                reading.initiative.append(TagSpec(
                    tag_index=-init_base, expression=expr, written=cmd.text,
                    label="initiative", position=offset + cmd.position, purpose="initiative",
                    actor=who, value=entry.value))
        for spec in list(reading.tags):
            if spec.purpose == "initiative" and spec.actor == actor and spec.tag_index >= tag_base:
                reading.initiative.append(spec)
        for a in parsed.to_actions():
            if not (tag_base or offset) and a.rolled is None:
                reading.actions.append(a)   # already in the whole post's numbering
                continue
            options = a.options
            if options.roll_index is not None:
                options = options.evolve(
                    roll_index=tag_base + options.roll_index,
                    roll_indices=tuple(tag_base + i for i in options.roll_indices))
            reading.actions.append(_shifted(
                a, options, None if a.position is None else offset + a.position))
        for u in parsed.speech:
            reading.speech.append(u.text)
            reading.speech_spans.append((offset + u.position, offset + u.position + len(u.text) + 2))
        for e in parsed.errors:
            reading.errors.append({"code": e.code, "message": e.message,
                                   "position": offset + e.position,
                                   "severity": e.severity})
        tag_base += tag_count
    return list(readings.values())


def with_fields(action: Action, **changes: Any) -> Action:
    """A copy of *action* with *changes*: its instance dict copied with them, as
    :func:`pbp.parse.model.with_rolls` does. For changes that keep the action valid (its
    options already the kind's own type, a roll, a position): ``dataclasses.replace`` ran
    ``Action.__post_init__`` and walked every field again, to change nothing more."""
    new = object.__new__(Action)
    state = action.__dict__.copy()
    state.update(changes)
    object.__setattr__(new, "__dict__", state)
    return new


def _shifted(action: Action, options: Any, position: int | None) -> Action:
    """*action* moved into the whole post's numbering, unrolled."""
    return with_fields(action, rolled=None, options=options, position=position)
