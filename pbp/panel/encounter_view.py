"""What the encounter page shows, read from the store in a handful of queries.

A read model, not a rule book: violations are the flags the parser, the round
lifecycle and the engine already stored (late, edited after roll, speech count
over its limit, problems with their rule ids); the preview is the service
layer's, followed by the marks of the narrator's overrides.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask_babel import lazy_gettext as _l
from sqlalchemy import select
from sqlalchemy.orm import Session, defer
from sqlalchemy.orm.attributes import set_committed_value

from ..render.violations import event_words, problem_words
from ..rounds import overrides as ov
from ..rounds import service
from ..rules import engine
from ..rules.speech import verdict as speech_verdict_of
from ..store import page_version, queries
from ..store.models import (
    Combatant,
    Declaration,
    Encounter,
    EventRecord,
    Override,
    Post,
    Reply,
    RollRecord,
    Round,
)
from ..store.roll_ledger import LedgerRow, encounter_ledger, watched
from .audit_words import audit_lines
from .economy import remaining as actions_remaining
from .history import past_round
from .i18n import panel_language
from .kind_words import KINDS, kind_options

log = logging.getLogger(__name__)
#: how a preview that failed begins (the page shows it; nothing keeps it)
FAILED = "(no preview:"
#: (database, round id, page version) -> preview text; small, per process.
_PREVIEWS: dict[tuple[Any, ...], str] = {}
#: the same key -> actions left per combatant (the ruleset's plan of every declaration)
_REMAINING: dict[tuple[Any, ...], dict[str, dict[str, int]]] = {}
#: the same key -> the round's rolls the narrator must look at (DICE-3: fishing, re-posts,
#: rolls that do not match the seed), read from the roll ledger
_LEDGER: dict[tuple[Any, ...], list[LedgerRow]] = {}


def _keep(cache: dict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any) -> Any:
    cache[key] = value
    while len(cache) > 64:
        cache.pop(next(iter(cache)))
    return value


@dataclass
class Violation:
    rule: str
    label: str
    message: str
    actor: str | None = None


@dataclass
class PostView:
    post: Post
    declarations: list[Declaration] = field(default_factory=list)
    rolls: list[RollRecord] = field(default_factory=list)

    def rolls_by_actor(self) -> dict[str | None, list[RollRecord]]:
        """The post's rolls by the declared combatant they were rolled for, in order; a
        roll of no declared combatant under None. Why: a narrator's post declares for
        many NPCs, and its rolls listed together after the last one did not say whose
        each was (walked); each is shown under its own NPC."""
        declared = {d.combatant.key for d in self.declarations}
        out: dict[str | None, list[RollRecord]] = {}
        for r in self.rolls:
            out.setdefault(r.actor if r.actor in declared else None, []).append(r)
        return out


def ordered_combatants(encounter: Encounter, rnd: Round | None) -> list[Combatant]:
    order = list(rnd.order if rnd is not None and rnd.order else encounter.order or [])
    rank = {k: i for i, k in enumerate(order)}
    return sorted(encounter.combatants,
                  key=lambda c: (rank.get(c.key, len(rank)), -(c.initiative or 0), c.id))


def _problem(p: Any) -> tuple[str, str]:
    if isinstance(p, dict):
        return str(p.get("rule") or p.get("code") or "parse"), str(p.get("message") or p)
    return "parse", str(p)


def action_view(a: dict[str, Any]) -> dict[str, Any]:
    """A stored action as the page shows it: inferred or not, confidence in percent."""
    inferred = not a.get("explicit", True)
    # keys the template tests present (None), so none of them renders through Undefined
    return {"target": None, "weapon": None, "text": None, **a,
            "inferred": inferred, "pct": round(float(a.get("confidence") or 0) * 100)}


def violations(decls: list[Declaration], events: list[EventRecord], lang: str = "en",
               names: Mapping[str, str] | None = None) -> list[Violation]:
    """The round's flags; the engine's refusals and the problems stored with a declaration
    said in *lang*, the panel's (the narrator reads the list, in the language of the rest of
    the page), by their codes (:mod:`pbp.render.violations`), in the reply's own words.
    *names*: combatant key -> name."""
    names = names or {}
    out: list[Violation] = []
    for d in decls:
        who = d.combatant.name
        if d.late:
            out.append(Violation("PBP-2", "late", str(_l("posted after the deadline")), who))
        if not speech_verdict_of(d.speech_limit, d.speech_count).within:   # PBP-3, as stored
            out.append(Violation("PBP-3", "speech", str(_l("%(count)s speech lines, limit %(limit)s",
                                                             count=d.speech_count, limit=d.speech_limit)), who))
        if d.edited_after_roll:
            out.append(Violation("PBP-4", "edited", str(_l("edited after the roll")), who))
        for p in d.errors or []:
            rule, msg = _problem(p)
            out.append(Violation(rule, "budget" if "budget" in msg.lower() else "problem",
                                 problem_words(p, lang), who))
    for e in events:
        if e.code.endswith("rejected") or e.code.startswith("violation"):
            said = event_words(e.code, e.params or {}, lang, names, actor=e.actor,
                               target=e.target, message=e.message)
            out.append(Violation(e.rule or e.code, "rejected", said,
                                 names.get(e.actor or "", e.actor)))
    return out


def pending_marks(session: Session, rnd: Round) -> list[str]:
    """Overrides not in the round's stored reply yet (:func:`pbp.rounds.overrides.pending_overrides`)."""
    enc = rnd.encounter
    return ov.marks(ov.pending_overrides(session, rnd), enc.campaign.language,
                    {c.key: c.name for c in enc.combatants})


def preview(session: Session, rnd: Round | None) -> str:
    """The reply as it would go out now (the service's preview: a dry-run resolution of an
    open round, the stored reply of a resolved one), plus overrides it does not hold yet."""
    if rnd is None:
        return ""
    try:
        text = service.preview_reply(session, rnd.id)
    except Exception as exc:  # the preview must never take the page down
        log.exception("preview of round %s failed", rnd.id)
        text = f"{FAILED} {exc})"
    marks = pending_marks(session, rnd)
    if marks:
        how = "post a correction to apply" if queries.posted(
            queries.reply_parts(session, rnd.id, "resolution")) else "re-resolve to apply"
        text = text.rstrip() + f"\n\n--- Narrator overrides not yet in this reply ({how}) ---\n" + \
            "\n".join(f"* {m}" for m in marks)
    return text


def version(session: Session, encounter: Encounter, rnd: Round | None) -> str:
    """A fingerprint that changes whenever the page would: posts (new, edited, deleted, moved;
    not merely seen again by a poll), declarations, overrides, combatants, the round, its
    reply, the extension requests, the encounter's and campaign's settings. One query
    (:mod:`pbp.store.page_version`, shared with the live refresh's one-statement check)."""
    session.flush()     # what the ORM would flush before a query of its own
    return page_version.version(session.connection(), encounter.id, rnd.id if rnd is not None else None)


def build(session: Session, encounter: Encounter, number: int | None = None, *,
          rnd: Round | None | bool = False, page_version: str | None = None) -> dict[str, Any]:
    """Everything the page shows. *rnd* and *page_version*, when the caller already has
    them (the live endpoint), save their queries."""
    if rnd is False:
        rnd = queries.current_round(session, encounter.id, number)
    assert rnd is not True
    if page_version is None:
        page_version = version(session, encounter, rnd)
    # The preview is the costliest part (a whole resolution, in memory): kept per page version.
    key = (str(session.get_bind().engine.url), rnd.id if rnd else None, page_version)
    preview_text = _PREVIEWS.get(key)
    failed = False
    if preview_text is None:
        preview_text = preview(session, rnd)
        # a failed preview (a lock held by a worker...) is tried again by the next request
        failed = preview_text.startswith(FAILED)
        if not failed:
            _keep(_PREVIEWS, key, preview_text)
    # read only from here on: nothing to flush before each query (the declarations' views
    # below would otherwise make the unit of work scan the session every time)
    with session.no_autoflush:
        ctx = _read(session, encounter, rnd, key)
    ctx["preview"] = preview_text
    ctx["preview_failed"] = failed       # SCALE-5: such a page is not kept either
    ctx["version"] = page_version
    return ctx


@dataclass
class _RoundRows:
    """The selected round's rows, each loaded by one query."""

    posts: list[PostView] = field(default_factory=list)
    orphans: list[Declaration] = field(default_factory=list)   # declarations with no post shown
    decls: list[Declaration] = field(default_factory=list)
    rolls: list[RollRecord] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    overrides: list[Override] = field(default_factory=list)


def _round_rows(session: Session, rnd: Round | None, by_id: dict[int, Combatant]) -> _RoundRows:
    out = _RoundRows()
    if rnd is None:
        return out
    # the platform's markup is not shown (the text is): a forum page's HTML left unread
    post_rows = list(session.scalars(select(Post).options(defer(Post.body))
                                     .where(Post.round_id == rnd.id, Post.is_ours.is_(False))
                                     .order_by(Post.posted_at, Post.id)))
    out.decls = list(session.scalars(select(Declaration).where(Declaration.round_id == rnd.id,
                                                               Declaration.superseded.is_(False))
                                     .order_by(Declaration.id)))
    out.rolls = queries.round_rolls(session, rnd.id)
    out.events = queries.round_events(session, rnd.id)
    out.replies = list(session.scalars(select(Reply).where(Reply.round_id == rnd.id)
                                       .order_by(Reply.id)))
    views = {p.id: PostView(p) for p in post_rows}
    for d in out.decls:
        c = by_id.get(d.combatant_id)
        if c is not None:  # known already: no lookup, and the row stays clean
            set_committed_value(d, "combatant", c)
        d.views = [action_view(a) for a in d.actions]  # type: ignore[attr-defined]
        if d.post_id in views:
            views[d.post_id].declarations.append(d)
    for r in out.rolls:
        if r.post_id in views:
            views[r.post_id].rolls.append(r)
    out.posts = list(views.values())
    out.orphans = [d for d in out.decls if d.post_id not in views]
    out.overrides = queries.round_overrides(session, rnd.id)
    return out


def _actions_left(session: Session, encounter: Encounter, rnd: Round | None,
                  decls: list[Declaration], key: tuple[Any, ...] | None) -> dict[str, dict[str, int]]:
    """The ruleset planning every declaration again costs more than the page's queries:
    like the preview, kept per page version (which changes with every input of it)."""
    remaining = _REMAINING.get(key) if key is not None else None
    if remaining is None:
        remaining = actions_remaining(session, encounter, rnd, decls)
        if key is not None:
            _keep(_REMAINING, key, remaining)
    return remaining


def _ledger_flags(session: Session, encounter: Encounter, rnd: Round | None,
                  key: tuple[Any, ...] | None) -> list[LedgerRow]:
    """The selected round's flagged rolls (DICE-3), kept per page version like the
    actions left: the ledger reads the round's rolls, declarations and overrides again."""
    if rnd is None:
        return []
    found = _LEDGER.get(key) if key is not None else None
    if found is None:
        found = watched(encounter_ledger(session, encounter.id, round_number=rnd.number))
        if key is not None:
            _keep(_LEDGER, key, found)
    return found


def _read(session: Session, encounter: Encounter, rnd: Round | None,
          key: tuple[Any, ...] | None = None) -> dict[str, Any]:
    """The page's rows; *key* (database, round, page version) keeps the actions left."""
    combatants = ordered_combatants(encounter, rnd)
    rows = _round_rows(session, rnd, {c.id: c for c in combatants})
    decls = rows.decls
    remaining = _actions_left(session, encounter, rnd, decls, key)
    audit = audit_lines(session, encounter)
    rounds = list(session.execute(select(Round.number, Round.state).where(Round.encounter_id == encounter.id)
                                  .order_by(Round.number)))
    # a past round shows its own combatants, HP and conditions (issue 11 item 10)
    past = past_round(session, rnd, combatants, rounds[-1][0] if rounds else None)
    who = past.combatants if past is not None else combatants
    return {
        "encounter": encounter, "round": rnd, "combatants": combatants, "posts": rows.posts,
        "declarations": decls, "rolls": rows.rolls, "events": rows.events,
        # from the overrides just loaded (ov.roll_totals' query, without running it again)
        "roll_totals": ov.totals(rows.overrides),
        "violations": violations(decls, rows.events, panel_language(),
                                 {c.key: c.name for c in combatants}),
        "ledger_flags": _ledger_flags(session, encounter, rnd, key),
        "missing": queries.missing_among(who, decls), "remaining": remaining, "history": past,
        "replies": rows.replies,
        "reply": next((r for r in reversed(rows.replies) if r.kind == "resolution"), None),
        "overrides": rows.overrides, "audit": audit,
        "declared_counts": {d.combatant_id: len(d.actions) for d in decls},
        "rounds": rounds, "held": queries.held_replies(session, encounter.id),
        "kinds": KINDS, "kind_options": kind_options,
        "orphans": rows.orphans, "loose_rolls": [r for r in rows.rolls if r.post_id is None],
        # the names the ruleset's rules read: the condition form suggests only these
        "condition_names": engine.known_conditions(encounter.ruleset),
    }
