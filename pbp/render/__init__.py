"""Replies: a :class:`~pbp.render.view.ReplyView` said in a platform's markup and a language.

Templates live in ``pbp/templates/replies/<platform>/<kind>.j2`` (BBCode for forums, Markdown
for Reddit, plain text for the bench); their words come from gettext catalogs
(:mod:`pbp.render.i18n`). Every ``{{ value }}`` a template prints is escaped for the
platform (:mod:`pbp.render.escape`) unless it is a :class:`Raw` made here (the marker),
so a player's name or speech can never inject markup.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ..rules import messages
from . import arithmetic, hidden
from . import escape as _escape
from .dice_words import refused_text
from .i18n import Plural, say
from .overrides import narrator_marks
from .proof import render_block
from .standing import ROLLED_BY_PBP, STANDING_NOTES, standing_note
from .status import status_words
from .view import ActorSection, EventLine, ReplyView

#: inside the package (pbp/templates), so an installed wheel renders replies too
TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "replies"
PLATFORMS = ("bbcode", "markdown", "text")


_REDDIT_NAME = re.compile(r"^[A-Za-z0-9_-]{3,20}$")


class Raw(str):
    """Text the renderer made itself and that must not be escaped (the reply marker)."""


#: latency sentences (PBP-2), said again from the event's parameters; ``why`` comes from
#: the rounds layer (``late`` or ``missing``), ``text`` from the declaration
LATENCY: Mapping[str, str] = {
    "why.late": "the post came after the deadline",
    "why.missing": "no post this round",
    "total-defense": "{why}; the main action is lost and {actor} takes total defense "
                     "(+{bonus} defense until the next turn).",
    "roll-penalty": "{why}; -{penalty} on every roll until the next turn.",
    "forfeit": "'{text}' is forfeited: {why}.",
}

def word(value: Any, lang: str, names: Mapping[str, str] | None = None) -> str:
    """A condition, reason, defense or result name in *lang* (unknown words unchanged);
    ``far:<key>`` and ``prepared:<spell>`` conditions name what they are about."""
    text = str(value)
    if text in messages.WORDS:
        return say(text, lang)
    head, sep, rest = text.partition(":")
    if sep and head in messages.NAMED_CONDITIONS:
        return say(messages.NAMED_CONDITIONS[head], lang,
                   {"name": (names or {}).get(rest, rest)})
    return text


def kind_word(value: Any, lang: str) -> str:
    """An action kind or budget slot in *lang*."""
    text = str(value)
    return say(text, lang, context=messages.KIND_CONTEXT) if text in messages.ACTION_KINDS \
        else text


def _known(params: Mapping[str, Any], actor: str | None, target: str | None) -> set[str]:
    """Parameters an event really carries (actor/target only when it names them)."""
    known = {k for k, v in params.items() if v is not None}
    if actor:
        known.add("actor")
    if target:
        known.add("target")
    return known


def event_params(code: str, params: Mapping[str, Any], lang: str, names: Mapping[str, str],
                 *, actor: str | None = None, target: str | None = None) -> dict[str, Any]:
    """The values event *code* is said with in *lang*: names for keys, words and action
    kinds translated, a refusal's ``reason`` by its problem code (in English, and for a code
    with no translation, the engine's own reason, which is more specific). Apart from
    :func:`event_sentence`, the narrator's Violations list reads the reason alone."""
    p: dict[str, Any] = dict(params)
    p["actor"] = names.get(actor or "", actor or "?")
    p["target"] = names.get(target or "", target or "?")
    if "winner" in p:
        p["winner"] = names.get(str(p["winner"]), p["winner"])
    if code == "surprise" and isinstance(p.get("surprised"), (list, tuple)):
        p.setdefault("names", ", ".join(names.get(str(k), str(k)) for k in p["surprised"]))
    p.update(messages.derived(code, p))
    for k in messages.WORD_PARAMS:
        if p.get(k) is not None:
            p[k] = word(p[k], lang, names)
    for k in messages.KIND_PARAMS.get(code, ()):
        if p.get(k) is not None:
            p[k] = kind_word(p[k], lang)
    problem = params.get("problem")
    why = params.get("why")
    if why in ("late", "missing"):
        p["why"] = say(LATENCY[f"why.{why}"], lang)
        mode = str(params.get("mode"))
        if code == "latency.penalty" and mode in LATENCY:
            p["reason"] = say(LATENCY[mode], lang, p)
        elif problem == "latency.forfeit" and "text" in params:
            p["reason"] = say(LATENCY["forfeit"], lang, p)
    elif lang != "en" and isinstance(problem, str) and problem in messages.REASONS:
        known = _known(params, actor, target)
        for candidate in messages.REASONS[problem]:
            if messages.fields(candidate) <= known:
                p["reason"] = say(candidate, lang, p)
                break
    return p


def event_sentence(code: str, params: Mapping[str, Any], lang: str,
                   names: Mapping[str, str], *, actor: str | None = None,
                   target: str | None = None, message: str = "") -> str:
    """Event *code* said in *lang*: the one translation of event sentences, used by the
    replies and by ``pbp bench --lang``. The template is the engine's English
    (:mod:`pbp.rules.messages`), the translation the reply catalog's; an event with no
    template keeps the engine's *message*."""
    template = messages.template(code, params)
    if template is None:
        return message or code
    return say(template, lang, event_params(code, params, lang, names, actor=actor, target=target))


def event_text(ev: EventLine, lang: str, names: Mapping[str, str]) -> str:
    """One event as a sentence in *lang*, with its rule id and its rolls."""
    if ev.code == "table.draw":   # DICE-6: a critical's or a fumble's table, said like a post's
        return table_text({**ev.params, "breakdown": "; ".join(ev.rolls) or "?"}, lang)
    text = event_sentence(ev.code, ev.params, lang, names, actor=ev.actor, target=ev.target,
                          message=ev.message)
    if ev.rule:
        text += f" ({ev.rule})"
    if ev.params.get("by_pbp"):   # STALL-6: the player's roll, made from the sheet by pbp
        text += f", {say(ROLLED_BY_PBP, lang)} (STALL-6)"
    if ev.rolls:
        text += " — " + "; ".join(narrator_marks(x, lang) for x in arithmetic.shown_rolls(ev, lang))
    return text


def _marked(view: ReplyView) -> ReplyView:
    """*view* with every roll the narrator set marked next to it in the reply's language
    (DICE-5: never silent), outside the events too: a player's own tag rolls, the
    rolls of posts not counted, the rolls nothing used."""
    lang = view.language

    def marked(rolls: Any) -> list[str]:
        return [narrator_marks(str(x), lang) for x in rolls or []]

    actors = [dataclasses.replace(a, tag_rolls=marked(a.tag_rolls),
                                  others=[{**o, "rolls": marked(o.get("rolls"))} if o.get("rolls")
                                          else o for o in a.others])
              for a in view.actors]
    return dataclasses.replace(view, actors=actors, unused=marked(view.unused))


def precise(dt: datetime) -> tuple[datetime, bool]:
    """*dt* as it is printed: to the minute when it is kept on a whole minute (deadlines
    are, :func:`pbp.rounds.lifecycle.whole_minute`), else to the second, a fraction of a
    second rounded *up*: a deadline is never printed earlier than the real one (07:08:54
    must not read "by 07:08"), and a printed second is at most a fraction later, below
    what any platform's post times can tell apart. Returns (time, with seconds)."""
    if dt.microsecond:
        dt = dt.replace(microsecond=0) + timedelta(seconds=1)
    return dt, bool(dt.second)


def when(dt: datetime | None, tz: str) -> str:
    """A deadline in the campaign's time zone, the same in every language:
    ``2026-12-01 20:00 (America/Sao_Paulo, UTC-03:00)``; seconds only when it has them
    (:func:`precise`)."""
    if dt is None:
        return "?"
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):   # a bad setting must not stop a round
        tz, zone = "UTC", ZoneInfo("UTC")
    shown, seconds = precise(dt)
    local = shown.astimezone(zone)
    off = local.utcoffset() or timedelta(0)
    sign = "-" if off < timedelta(0) else "+"
    minutes = abs(int(off.total_seconds())) // 60
    clock = f"{local:%Y-%m-%d %H:%M:%S}" if seconds else f"{local:%Y-%m-%d %H:%M}"
    return f"{clock} ({tz}, UTC{sign}{minutes // 60:02d}:{minutes % 60:02d})"


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@cache
def environment(platform: str) -> Environment:
    esc = _escape.for_platform(platform)

    def finalize(value: Any) -> Any:
        if isinstance(value, Raw) or value is None:
            return value if value is not None else ""
        return esc(str(value))

    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), trim_blocks=True,
                      lstrip_blocks=True, keep_trailing_newline=False,
                      undefined=StrictUndefined, finalize=finalize, autoescape=False)
    env.filters["num"] = _number
    return env


def marker_line(view: ReplyView) -> str:
    """The marker as the Markdown templates print it: Reddit's small superscript, or
    italics on a forum's plain Markdown (no superscript there)."""
    return f"^({view.marker})" if view.markdown_flavor == "reddit" else f"*{view.marker}*"


def render_reply(view: ReplyView) -> str:
    """The reply's text, ready to post (the marker on its last line)."""
    if view.platform not in PLATFORMS:
        raise ValueError(f"unknown reply platform {view.platform!r}")
    env = environment(view.platform)
    view = _marked(view)
    lang = view.language
    names = {**view.names, **{a.key: a.name for a in view.actors}}

    def _(msgid: str, **params: Any) -> str:
        return say(msgid, lang, params)

    def ev(line: EventLine) -> str:
        return event_text(line, lang, names)

    def note(n: Mapping[str, Any]) -> str:
        return note_text(n, lang, view.timezone)

    def words(values: Any) -> list[str]:
        return [word(v, lang, names) for v in values]

    def change(c: Mapping[str, Any]) -> str:
        return change_text(c, lang, names)

    def table(t: Mapping[str, Any]) -> str:
        return table_text(t, lang)

    def mention(player: str | None) -> str:
        """Who to notify: ``u/name`` on Reddit (names there are [A-Za-z0-9_-]), ``@name``
        on forums; anything else is plain, escaped text."""
        if not player:
            return ""
        if view.platform == "markdown" and view.markdown_flavor == "reddit" and _REDDIT_NAME.match(player):
            return Raw(f"u/{player}")
        return f"@{player}" if view.platform in ("bbcode", "markdown") else player

    def secret(r: hidden.HiddenRoll) -> str:
        return hidden.sentence(r, lang)

    def raw(lines: list[str]) -> list[Raw]:
        """Proof lines (hex, numbers, dice expressions: nothing a player wrote as markup)
        printed as they are, so a visitor's copy checks byte for byte."""
        return [Raw(x) for x in lines]

    template = env.get_template(f"{view.platform}/{view.kind}.j2")
    text = template.render(v=view, _=_, ev=ev, note=note, words=words, mention=mention, change=change, table=table, when=lambda d: when(d, view.timezone),
                           status=lambda block: status_words(block, lang, lambda c: word(c, lang, names)),
                           marker=Raw(view.marker), marker_line=Raw(marker_line(view)),
                           proof=Raw(render_block(view.proof, view.platform)), secret=secret, raw=raw)
    lines = [line.rstrip() for line in text.strip().splitlines()]
    out: list[str] = []
    for line in lines:   # at most one blank line in a row
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out) + "\n"


NOTES: Mapping[str, str] = {
    "late": "late post",
    "missing": "no post this round",
    "waived": "latency penalty waived by the narrator",
    "edited-after-roll": "edited after roll",
    "edited-after-deadline": "edited after the deadline; the edit does not count",
    "deleted-after-roll": "post deleted after roll; the rolls stand",
    "deleted": "post deleted; declaration withdrawn",
    "deleted-after-resolution": "post deleted after the round was resolved",
    "after-resolution": "seen after the round was resolved; not counted",
    "superseded": "replaced by a later post",
    "late-not-counted": "late post, not counted: the post made in time stands",
    "override": "declaration set by the narrator",
    # DICE-3: a post deleted and posted again in the same round
    "reposted-roll-kept": "re-posted after a roll: the deleted post's roll stands",
    "reposted-after-roll": "re-posted after roll: the deleted post's roll could not be matched, the narrator is told",
    "rolled-tag-removed": "a rolled tag was removed in an edit; its roll is kept",
    "problem": "not understood",
    "table-unknown": "there is no table called '{name}'; the tables here: {known}",
    "initiative-not-yours": "'{name}' is not yours to roll for",
}

#: DICE-6: one table draw, "Critical hit table (1d20 (17) = 17): Broken arm"
TABLE_DRAW = "{name} ({roll}): {entry}"


def table_text(t: Mapping[str, Any], lang: str) -> str:
    """A table draw in *lang*: the table's name and the entry's text in the campaign's
    language when the table has it (else English, else the first written), and the roll
    as the dice box broke it down (``pbp verify`` finds that breakdown in the reply)."""
    names = t.get("names") or {}
    texts = t.get("text") or {}
    name = names.get(lang) or names.get("en") or str(t.get("table", "?"))
    entry = texts.get(lang) or texts.get("en") or next(iter(texts.values()), "?")
    return say(TABLE_DRAW, lang, {"name": name, "roll": t.get("breakdown", "?"), "entry": entry})


#: PBP-3: a post over the speech limit, said by its count (one form for every count read
#: "1 speeches", and Russian made do with "реплик: 4"); by the round's policy
SPEECH: Mapping[str, Plural] = {
    "drop": Plural("{count} speech, over the limit of {limit}: the extra speech is not part "
                   "of the round",
                   "{count} speeches, over the limit of {limit}: the extra speech is not part "
                   "of the round"),
    "warn": Plural("{count} speech, over the limit of {limit} (kept: narrator's call)",
                   "{count} speeches, over the limit of {limit} (kept: narrator's call)"),
}


def note_text(n: Mapping[str, Any], lang: str, tz: str) -> str:
    code = n.get("code", "")
    if code in STANDING_NOTES:   # STALL-1/2: a date and a resource word said first
        return standing_note(n, lang, tz)
    if code == "speech-over-limit":
        text = SPEECH.get(n.get("policy", "drop"), SPEECH["drop"]).say(lang, n)
        return text + " (PBP-3)"
    if code == "problem":   # the parser's own words, already in the post's language
        return f"{say('not understood', lang)}: {n.get('message', '')}"
    if code == "roll-refused":   # a roll tag the dice refused: their words by code, in *lang*
        return f"{say('not understood', lang)}: {refused_text(n, lang)}"
    text = say(NOTES.get(code, code), lang, n)
    rule = NOTE_RULES.get(code)
    if rule:
        text += f" ({rule})"
    if n.get("rolls"):
        text += " — " + "; ".join(n["rolls"])
    return text


#: what a correction changed, one sentence per code (issue 11 item 6)
CHANGES: Mapping[str, str] = {
    "hp": "{who}: HP {before} -> {after}",
    "down": "{who} is down",
    "up": "{who} is no longer down",
    "condition.add": "{who}: {condition} now applies",
    "condition.remove": "{who}: {condition} no longer applies",
}


def change_text(c: Mapping[str, Any], lang: str, names: Mapping[str, str]) -> str:
    """One change a correction made, in *lang* (condition names said as the rules do)."""
    params = dict(c)
    params["who"] = names.get(str(c.get("who")), str(c.get("who")))
    if c.get("condition") is not None:
        params["condition"] = word(c["condition"], lang, names)
    return say(CHANGES.get(str(c.get("code")), str(c.get("code"))), lang, params)


NOTE_RULES: Mapping[str, str] = {
    "late": "PBP-2", "late-not-counted": "PBP-2", "missing": "PBP-2", "waived": "PBP-2",
    "edited-after-roll": "PBP-4", "deleted-after-roll": "PBP-4",
    "reposted-roll-kept": "PBP-4", "reposted-after-roll": "PBP-4", "rolled-tag-removed": "PBP-4",
}


__all__ = ["ActorSection", "EventLine", "Raw", "ReplyView", "change_text", "event_params",
           "event_sentence", "event_text", "precise", "render_reply", "table_text", "when"]
