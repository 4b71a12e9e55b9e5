"""An encounter's audit log in words, in the narrator's language (issue 11 item 10).

Why sentences: the log stored (and showed) each change as its raw JSON before and after,
and listed every entry of the campaign. Here each entry of the encounter's own
(:func:`pbp.store.queries.encounter_audit`) becomes one sentence, "alice changed Goblin
1's HP from 6 to 3 in round 2", with the narrator's reason after it. Every action the code
writes has its sentence (:data:`SENTENCES`; ``tests/panel/test_history.py`` checks each
one); an action without one still reads as words, never as JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy.orm import Session

from ..store import queries
from ..store.audit_reads import campaign_audit
from ..store.models import AuditEntry, Campaign, Encounter
from .code_words import reply_word
from .i18n import state_name, when
from .kind_words import kind_word


@dataclass
class AuditLine:
    """One entry as the page shows it."""

    entry: AuditEntry
    round: int | None
    text: str
    reason: str


@dataclass
class _Say:
    """What a sentence needs: the entry, its round, and the names of what it names."""

    entry: AuditEntry
    round: int | None
    by_id: Mapping[int, str]
    by_key: Mapping[str, str]
    subjects: queries.AuditSubjects
    tz: str

    @property
    def who(self) -> str:
        return _("The service") if self.entry.actor == "system" else self.entry.actor

    def side(self, which: str) -> Any:
        """The entry's value before or after, unwrapped from ``{"value": ...}``."""
        data = getattr(self.entry, which)
        if isinstance(data, dict) and set(data) == {"value"}:
            return data["value"]
        return data

    def name(self, key: Any) -> str:
        return self.by_key.get(str(key), str(key))

    def entity_name(self) -> str:
        """The combatant an entry names (by row id; by the declaration's combatant)."""
        e = self.entry
        ident = int(e.entity_id) if (e.entity_id or "").isdigit() else -1
        if e.entity == "declaration":
            ident = self.subjects.declarations.get(ident, -1)
        return self.by_id.get(ident) or _("a removed combatant")


def text(value: Any) -> str:
    """Any stored value as plain words: lists joined, mappings as "key: value", never JSON."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list | tuple):
        return ", ".join(text(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {text(v)}" for k, v in value.items())
    return str(value)


def _hours(value: Any) -> str:
    """Hours as the panel's fields print them: 12, 1.5."""
    return f"{float(value):g}" if isinstance(value, int | float) and not isinstance(value, bool) else text(value)


def _changes(before: Any, after: Any, fields: Mapping[str, str]) -> str:
    """"HP: 6 → 3; side: monsters → players" over the fields that differ."""
    old = before if isinstance(before, dict) else {}
    new = after if isinstance(after, dict) else {}
    out = [f"{label}: {text(old.get(k))} → {text(new.get(k))}"
           for k, label in fields.items() if old.get(k) != new.get(k)]
    return "; ".join(out) or _("nothing changed")


def _combatant_fields() -> dict[str, str]:
    return {"key": _("key"), "name": _("name"), "side": _("side"), "player": _("player"),
            "hp": _("HP"), "max_hp": _("max HP"), "initiative": _("initiative"),
            "sheet": _("sheet")}


def _campaign_fields() -> dict[str, str]:
    return {"name": _("name"), "ruleset": _("ruleset"), "language": _("language"),
            "timezone": _("time zone"), "houserules": _("house rules"),
            "approval_mode": _("approval mode"), "round_hours": _("round length (hours)"),
            "reminder_hours": _("reminders (hours before the deadline)"),
            "early_close": _("early close"), "close_grace_minutes": _("minutes for edits"),
            "quiet_hours": _("quiet hours"), "skip_weekends": _("no deadline at weekends"),
            "extension_limit_hours": _("extensions granted without asking (hours)"),
            "private_roll_values": _("private values of rolls the narrator sets"),
            "public_verification": _("public dice check")}


def _condition(s: _Say) -> str:
    before = {c.get("name") for c in s.side("before") or [] if isinstance(c, dict)}
    after = [c for c in s.side("after") or [] if isinstance(c, dict)]
    added = [c for c in after if c.get("name") not in before] or after[-1:]
    if not added:
        return _("%(who)s changed the conditions of %(name)s", who=s.who, name=s.entity_name())
    cond = added[0]
    if cond.get("rounds"):
        return _("%(who)s gave %(name)s the condition %(condition)s for %(rounds)s rounds",
                 who=s.who, name=s.entity_name(), condition=cond.get("name"), rounds=cond["rounds"])
    return _("%(who)s gave %(name)s the condition %(condition)s", who=s.who,
             name=s.entity_name(), condition=cond.get("name"))


def _condition_removed(s: _Say) -> str:
    after = {c.get("name") for c in s.side("after") or [] if isinstance(c, dict)}
    gone = [c.get("name") for c in s.side("before") or [] if isinstance(c, dict)
            and c.get("name") not in after]
    return _("%(who)s removed the condition %(condition)s from %(name)s", who=s.who,
             condition=text(gone), name=s.entity_name())


def _action(a: Any) -> str:
    """A stored action, "attack → Goblin 2" style (the kind, as a word, and its target)."""
    if not isinstance(a, dict):
        return text(a)
    return " → ".join(str(x) for x in (kind_word(a.get("kind")) if a.get("kind") else None,
                                        a.get("target")) if x) or text(a.get("text"))


def _penalty(s: _Say, waive: bool) -> str:
    before, after = set(s.side("before") or []), set(s.side("after") or [])
    who = ", ".join(s.name(k) for k in sorted((after - before) if waive else (before - after)))
    if waive:
        return _("%(who)s waived the late-post penalty of %(name)s", who=s.who, name=who or "—")
    return _("%(who)s applied the late-post penalty to %(name)s again", who=s.who, name=who or "—")


def _moment(value: Any, tz: str) -> str:
    try:
        return when(datetime.fromisoformat(str(value)), tz)
    except ValueError:
        return text(value)


def _reply_kind(s: _Say) -> str:
    ident = int(s.entry.entity_id) if (s.entry.entity_id or "").isdigit() else -1
    kind = s.subjects.replies.get(ident, "")
    return reply_word(kind) if kind else _("reply")


def _roll(s: _Say) -> str:
    ident = int(s.entry.entity_id) if (s.entry.entity_id or "").isdigit() else -1
    index, actor = s.subjects.rolls.get(ident, (None, None))
    return _("%(who)s set roll #%(index)s of %(name)s from %(before)s to %(after)s", who=s.who,
             index=text(index), name=s.name(actor) if actor else "—",
             before=text(s.side("before")), after=text(s.side("after")))


def _number(s: _Say) -> Any:
    return s.round if s.round is not None else "?"


def _after(s: _Say, key: str) -> str:
    return text((s.side("after") or {}).get(key))


def _count(value: str) -> int:
    """An audit entry's count as a number for the plural forms (0 when it is not one)."""
    try:
        return int(value)
    except ValueError:
        return 0


def _after_list(s: _Say, key: str) -> list[object]:
    value = (s.side("after") or {}).get(key)
    return list(value) if isinstance(value, list) else []


def _applied(s: _Say) -> str:
    """STALL-1/2: what the service had a silent player's character do."""
    after = s.side("after") or {}
    how = {"default": _("its standing order"), "sheet": _("the default on its sheet"),
           "if": _("a conditional order whose condition happened"),
           "ruleset": _("the ruleset's default for a missing character")}.get(
        str(after.get("source")), text(after.get("source")))
    if after.get("away"):
        return _("%(who)s had %(name)s (away) follow %(how)s: %(text)s", who=s.who,
                 name=s.name(s.entry.entity_id), how=how, text=text(after.get("text")))
    return _("%(who)s had %(name)s follow %(how)s: %(text)s", who=s.who,
             name=s.name(s.entry.entity_id), how=how, text=text(after.get("text")))


#: action -> its sentence; ``round_named``: the sentence says the round itself
SENTENCES: dict[str, Callable[[_Say], str]] = {
    "campaign.create": lambda s: _("%(who)s created the campaign %(name)s", who=s.who,
                                   name=text((s.side("after") or {}).get("name"))),
    "campaign.settings": lambda s: _("%(who)s changed the campaign's settings: %(changes)s", who=s.who,
                                     changes=_changes(s.side("before"), s.side("after"),
                                                      _campaign_fields())),
    "campaign.tables": lambda s: _("%(who)s changed the campaign's random tables: %(keys)s", who=s.who,
                                   keys=", ".join((s.side("after") or {}).get("keys", [])) or "—"),
    "narrator.add": lambda s: _("%(who)s added the narrator %(name)s", who=s.who,
                                name=text((s.side("after") or {}).get("username"))),
    "narrator.accounts": lambda s: _("%(who)s set the accounts of %(name)s: %(before)s → %(after)s",
                                     who=s.who, name=text((s.side("after") or {}).get("username")),
                                     before=text((s.side("before") or {}).get("accounts")),
                                     after=text((s.side("after") or {}).get("accounts"))),
    "encounter.create": lambda s: _("%(who)s created the encounter %(name)s", who=s.who,
                                    name=text((s.side("after") or {}).get("name"))),
    "encounter.start": lambda s: _("%(who)s started the encounter: round %(n)s opens, deadline %(deadline)s",
                                   who=s.who, n=text((s.side("after") or {}).get("round")),
                                   deadline=_moment((s.side("after") or {}).get("deadline"), s.tz)),
    "encounter.end": lambda s: _("%(who)s ended the encounter", who=s.who),
    "roll.secret": lambda s: _("%(who)s rolled in secret: roll #%(index)s", who=s.who,
                               index=text((s.side("after") or {}).get("index"))),
    "roll.reveal": lambda s: _("%(who)s revealed %(n)s secret roll(s)", who=s.who,
                               n=len((s.side("after") or {}).get("revealed") or [])),
    "combatant.save": lambda s: (
        _("%(who)s added %(name)s (HP %(hp)s/%(max)s)", who=s.who,
          name=text((s.side("after") or {}).get("name")), hp=text((s.side("after") or {}).get("hp")),
          max=text((s.side("after") or {}).get("max_hp")))
        if s.entry.before is None else
        _("%(who)s edited %(name)s: %(changes)s", who=s.who, name=text((s.side("after") or {}).get("name")),
          changes=_changes(s.side("before"), s.side("after"), _combatant_fields()))),
    "combatant.import": lambda s: _("%(who)s imported %(n)s combatants: %(keys)s", who=s.who,
                                    n=text((s.side("after") or {}).get("count")),
                                    keys=", ".join(s.name(k) for k in (s.side("after") or {}).get("keys", []))),
    "thread.add": lambda s: _("%(who)s added the thread %(url)s", who=s.who,
                              url=text((s.side("after") or {}).get("url"))),
    "thread.edit": lambda s: _("%(who)s edited the thread %(url)s", who=s.who,
                               url=text((s.side("after") or {}).get("url"))),
    "thread.pause": lambda s: _("%(who)s paused the thread %(url)s", who=s.who,
                                url=text((s.side("after") or {}).get("url"))),
    "thread.resume": lambda s: _("%(who)s resumed the thread %(url)s", who=s.who,
                                 url=text((s.side("after") or {}).get("url"))),
    "thread.reread": lambda s: _("%(who)s asked for the whole thread %(url)s to be read again",
                                 who=s.who, url=text((s.side("after") or {}).get("url"))),
    "thread.remove": lambda s: _("%(who)s removed the thread %(url)s", who=s.who,
                                 url=text((s.side("before") or {}).get("url"))),
    "round.resolve": lambda s: _("%(who)s resolved round %(n)s (%(events)s events)", who=s.who, n=_number(s),
                                 events=text((s.side("after") or {}).get("events"))),
    "round.reresolve": lambda s: _("%(who)s resolved round %(n)s again (%(events)s events)", who=s.who,
                                   n=_number(s), events=text((s.side("after") or {}).get("events"))),
    "override.roll": _roll,
    "override.hp": lambda s: _("%(who)s changed %(name)s's HP from %(before)s to %(after)s", who=s.who,
                               name=s.entity_name(), before=text(s.side("before")),
                               after=text(s.side("after"))),
    "override.condition.add": _condition,
    "override.condition.remove": _condition_removed,
    "override.initiative": lambda s: _("%(who)s reordered the initiative: %(order)s", who=s.who,
                                       order=", ".join(s.name(k) for k in s.side("after") or [])),
    "override.action.add": lambda s: _("%(who)s added an action to the post of %(name)s: %(action)s",
                                       who=s.who, name=s.entity_name(), action=_action(s.side("after"))),
    "override.action.confirm": lambda s: _("%(who)s confirmed the action of %(name)s: %(action)s",
                                           who=s.who, name=s.entity_name(), action=_action(s.side("before"))),
    "override.action.correct": lambda s: _("%(who)s corrected the action of %(name)s: %(before)s → %(after)s",
                                           who=s.who, name=s.entity_name(),
                                           before=_action(s.side("before")), after=_action(s.side("after"))),
    "override.action.reject": lambda s: _("%(who)s rejected the action of %(name)s: %(action)s",
                                          who=s.who, name=s.entity_name(), action=_action(s.side("before"))),
    "override.penalty.waive": lambda s: _penalty(s, True),
    "override.penalty.apply": lambda s: _penalty(s, False),
    "encounter.initiative_mode": lambda s: (
        _("%(who)s set this encounter's initiative mode to %(mode)s", who=s.who,
          mode=text((s.side("after") or {}).get("turns")))
        if s.side("after") else
        _("%(who)s set this encounter back to the campaign's initiative mode", who=s.who)),
    "campaign.initiative_mode": lambda s: _(
        "%(who)s set the campaign's initiative mode to %(mode)s", who=s.who,
        mode=text((s.side("after") or {}).get("turns"))),
    "encounter.round_hours": lambda s: (
        _("%(who)s set this encounter's rounds to %(hours)s hours", who=s.who, hours=_hours(s.side("after")))
        if s.side("after") is not None else
        _("%(who)s set this encounter's rounds back to the campaign's length", who=s.who)),
    "round.extension.granted": lambda s: _(
        "%(who)s granted %(player)s %(hours)s h more: the deadline moved from %(before)s to %(after)s",
        who=s.who, player=text((s.entry.after or {}).get("player")), hours=_hours((s.entry.after or {}).get("hours")),
        before=_moment((s.entry.before or {}).get("deadline"), s.tz),
        after=_moment((s.entry.after or {}).get("deadline"), s.tz)),
    "round.extension.queued": lambda s: _(
        "%(player)s asked for %(hours)s h more, over the limit of %(limit)s h a round: it waits for a narrator",
        player=text((s.entry.after or {}).get("player")), hours=_hours((s.entry.after or {}).get("hours")),
        limit=_hours((s.entry.after or {}).get("limit"))),
    "round.extension.refused": lambda s: _(
        "%(who)s refused %(player)s's request for %(hours)s h more", who=s.who,
        player=text((s.entry.after or {}).get("player")), hours=_hours((s.entry.after or {}).get("hours"))),
    "override.deadline": lambda s: _("%(who)s moved the deadline from %(before)s to %(after)s", who=s.who,
                                     before=_moment(s.side("before"), s.tz),
                                     after=_moment(s.side("after"), s.tz)),
    "override.reply.hold": lambda s: _("%(who)s held back a reply (%(kind)s) for approval", who=s.who,
                                       kind=_reply_kind(s)),
    "override.reply.approve": lambda s: _("%(who)s approved a reply (%(kind)s): now %(state)s", who=s.who,
                                          kind=_reply_kind(s), state=state_name(str(s.side("after")))),
    "override.round.reresolve": lambda s: _("%(who)s re-resolved round %(n)s", who=s.who, n=_number(s)),
    "absence.start": lambda s: _("%(who)s noted that %(player)s is away until %(until)s", who=s.who,
                                 player=text(s.entry.entity_id), until=_moment(_after(s, "until"), s.tz)),
    "absence.set": lambda s: _("%(who)s marked %(player)s away until %(until)s", who=s.who,
                               player=text(s.entry.entity_id), until=_moment(_after(s, "until"), s.tz)),
    "absence.unread": lambda s: _("%(who)s could not read an absence of %(player)s: %(text)s",
                                  who=s.who, player=text(s.entry.entity_id), text=_after(s, "text")),
    "absence.end": lambda s: _("%(who)s ended the absence of %(player)s", who=s.who,
                               player=text(s.entry.entity_id)),
    "standing.default": lambda s: _("%(who)s noted the default standing order of %(name)s: %(text)s",
                                    who=s.who, name=s.name(s.entry.entity_id), text=_after(s, "text")),
    "standing.if": lambda s: _("%(who)s noted a conditional standing order of %(name)s: %(text)s",
                               who=s.who, name=s.name(s.entry.entity_id), text=_after(s, "text")),
    "standing.clear": lambda s: _("%(who)s cleared the default standing order of %(name)s", who=s.who,
                                  name=s.name(s.entry.entity_id)),
    "standing.refused": lambda s: _("%(who)s refused a standing order of %(name)s: %(text)s", who=s.who,
                                    name=s.name(s.entry.entity_id), text=_after(s, "text")),
    "standing.cancel": lambda s: _("%(who)s cancelled a standing order of %(name)s: %(text)s", who=s.who,
                                   name=s.name(s.entry.entity_id),
                                   text=text((s.side("before") or {}).get("text"))),
    "standing.apply": _applied,
    # STALL-3, the escalation ladder (pbp.rounds.ladder)
    "ladder.remind": lambda s: _("pbp reminded %(player)s in the thread, %(hours)s h before the deadline",
                                 player=_after(s, "player"), hours=_hours((s.entry.after or {}).get("hours"))),
    "ladder.notify.round": lambda s: _("pbp's direct notifications are due; players who owe a post: %(players)s",
                                       players=", ".join(map(str, _after_list(s, "players"))) or "—"),
    "ladder.notify": lambda s: _("pbp queued a direct notification to %(player)s (%(channel)s, %(state)s)",
                                 player=_after(s, "player"), channel=_after(s, "channel"),
                                 state=_after(s, "state")),
    "ladder.missed": lambda s: _("%(player)s missed the round: %(count)s in a row",
                                 player=_after(s, "player"), count=_after(s, "missed_in_row")),
    "ladder.narrator": lambda s: ngettext(  # one form a count: "missed 1 rounds" was said
        "%(player)s missed %(num)s round in a row: the narrator is told",
        "%(player)s missed %(num)s rounds in a row: the narrator is told",
        _count(_after(s, "missed_in_row")), player=_after(s, "player")),
    "ladder.narrator_run": lambda s: _("the characters of %(player)s are run by the narrator now",
                                       player=_after(s, "player")),
    "ladder.player_back": lambda s: _("%(player)s posted again: the missed rounds count ends (it was %(count)s)",
                                      player=_after(s, "player"), count=_after(s, "missed_before")),
    "override.round.correct": lambda s: _("%(who)s posted a correction of round %(n)s (%(count)s changes)",
                                          who=s.who, n=_number(s), count=len(s.side("after") or [])),
}

#: sentences that name their round themselves ("resolved round 2"): no "in round 2" after
ROUND_NAMED = {"round.resolve", "round.reresolve", "override.round.reresolve", "override.round.correct"}


def sentence(say: _Say) -> str:
    """The entry as one sentence, "in round N" added when it was made during a round."""
    action = say.entry.action
    how = SENTENCES.get(action)
    if how is None:
        words = _("%(who)s: %(action)s (%(before)s → %(after)s)", who=say.who, action=action,
                  before=text(say.side("before")), after=text(say.side("after")))
    else:
        words = how(say)
    if say.round is not None and action not in ROUND_NAMED:
        words = _("%(what)s in round %(n)s", what=words, n=say.round)
    return words


def audit_lines(session: Session, encounter: Encounter, limit: int = 30) -> list[AuditLine]:
    """The encounter's own audit entries, newest first, each in words."""
    rows = queries.encounter_audit(session, encounter.id, limit)
    subjects = queries.audit_subjects(session, [e for e, _num in rows])
    by_id = {c.id: c.name for c in encounter.combatants}
    by_key = {c.key: c.name for c in encounter.combatants}
    tz = encounter.campaign.timezone or "UTC"
    return [AuditLine(e, n, sentence(_Say(e, n, by_id, by_key, subjects, tz)), e.note or "")
            for e, n in rows]


def campaign_lines(session: Session, campaign: Campaign, limit: int = 30) -> list[AuditLine]:
    """The campaign's own changes (settings, sources, narrators, tables), newest first,
    each in words: written since the first panel, shown nowhere until now."""
    none = queries.AuditSubjects({}, {}, {})
    tz = campaign.timezone or "UTC"
    return [AuditLine(e, None, sentence(_Say(e, None, {}, {}, none, tz)), e.note or "")
            for e in campaign_audit(session, campaign.id, limit)]
