"""Event sentences, by event code, in English: the engine's language and the message ids
of every translation.

Why a table and not f-strings at the call site: the engine says each event in English
(``Event.message``) and keeps ``params`` on it, so any renderer can say it again. The
translations live in one place only, the gettext catalogs of the replies
(``pbp/render/locale/<lang>/LC_MESSAGES/replies.po``, keyed by these templates); replies
and ``pbp bench --lang`` both go through :func:`pbp.render.event_sentence`. This module
stays pure (no files, no catalogs): the engine imports it.

A missing parameter shows as ``?``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


class _Safe(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


EN: dict[str, str] = {
    "round.start": "Round {round} begins.",
    "round.surprise": "Surprise round: only {sides} may act.",
    "round.end": "Round {round} ends.",
    "initiative.rolled": "{actor} rolls initiative: {value}.",
    # STALL-7 initiative modes (pbp.rules.turn_order)
    "initiative.turns.side": "Initiative by sides: each side acts as a block. Order used: {names}.",
    "initiative.turns.block": "Block initiative: the players act in the order they posted. "
                              "Order used: {names}.",
    "initiative.turns.popcorn": "Popcorn initiative: whoever acts names who acts next. "
                                "Order used: {names}.",
    "initiative.next": "{actor} hands the turn to {target}.",
    "initiative.next_unknown": "{actor} named '{wanted}' to act next, but nobody of that name "
                               "is in this fight; {target} acts next (the next in initiative "
                               "order who has not acted).",
    "initiative.next_acted": "{actor} named {wanted} to act next, but {wanted} has already "
                             "acted this round; {target} acts next (the next in initiative "
                             "order who has not acted).",
    "initiative.next_down": "{actor} named {wanted} to act next, but {wanted} cannot act; "
                            "{target} acts next (the next in initiative order who has not "
                            "acted).",
    "initiative.late_moved": "{actor} posted late and is moved to the end of the order "
                             "(this ruleset allows delaying).",
    "initiative.no_delay": "{actor} posted late; this ruleset does not allow delaying, so "
                           "{actor} keeps their place in the order.",
    "initiative.order": "Initiative order: {names}.",
    "initiative.tie": "{actor} and {target} tie at {value}; {winner} goes first ({policy}).",
    "initiative.cleared": "Initiative cleared; it will be rolled again next round.",
    "turn.start": "{actor}'s turn (initiative {count}).",
    "turn.skipped": "{actor} cannot act: {reason}.",
    "turn.end": "{actor} ends the turn.",
    "action.rejected": "{actor}: {reason}",
    "action.changed": "{actor}: {reason}",
    "action.converted": "{actor} converts one {source} action into {ratio} {into} action(s).",
    "action.noted": "{actor}: {kind} action — {text}",
    "latency.penalty": "{actor} posted late or not at all: {reason}",
    "latency.waived": "{actor}'s late post is excused by the narrator.",
    "attack.hit": "{actor} hits {target}: {total} against {defense}.",
    "attack.miss": "{actor} misses {target}: {total} against {defense}.",
    "attack.critical": "Critical hit! Damage is multiplied by {multiplier}.",
    "attack.auto-hit": "{actor} rolls a natural 20 and hits {target} whatever the defense.",
    "attack.auto-miss": "{actor} rolls a natural 1 and misses {target}.",
    "attack.miss-chance": "{actor}'s attack on {target} misses: {reason}.",
    "attack.misdirected": "The natural 1 sends {actor}'s shot into {target} instead.",
    "attack.pending": "{actor} attacks {target} ({total}); {target} rolls defense in the next post.",
    "defense.rolled": "{target} defends with {kind}: {total}.",
    "defense.by-pbp": "{target} posted no defense roll: rolled by pbp from the sheet ({kind}): {total}.",
    "damage": "{target} takes {amount} damage ({hp_before} -> {hp_after} HP).",
    "healing": "{target} recovers {amount} HP ({hp_before} -> {hp_after}).",
    "combatant.down": "{target} is down.",
    "object.destroyed": "{target} is destroyed.",
    "condition.added": "{target} is now {condition}.",
    "condition.ended": "{target} is no longer {condition} ({reason}).",
    "move": "{actor} moves {distance} m (up to {speed} m).",
    "move.stand": "{actor} stands up.",
    "move.draw": "{actor} draws or sheathes a weapon.",
    "move.item": "{actor} handles an item.",
    "maneuver.won": "{actor}'s {maneuver} against {target} succeeds: {total} against {opposed}.",
    "maneuver.lost": "{actor}'s {maneuver} against {target} fails: {total} against {opposed}.",
    "maneuver.push": "{target} is pushed {distance} m.",
    "power.created": "{actor} creates the power {power} (Control {total} vs {dc}); it lasts {rounds} rounds.",
    "power.failed": "{actor} fails to create the power {power} (Control {total} vs {dc}).",
    "cast": "{actor} casts {spell}.",
    "cast.cancelled": "{actor} cancels the casting (one free action).",
    "full-round.started": "{actor} begins a full-round action: {text}. It completes at the start of their next turn.",
    "full-round.completed": "{actor} completes the full-round action: {text}.",
    "delay": "{actor} delays to initiative {count}.",
    "delay.lost": "{actor} waited too long and loses the turn.",
    "ready": "{actor} readies an action for when {trigger}.",
    "ready.triggered": "{actor}'s readied action goes off; their initiative becomes {count}.",
    "ready.lapsed": "{actor}'s readied action lapses unused.",
    "reaction.triggered": "{actor} reacts to {target}'s {kind} action.",
    "reaction.lapsed": "{actor}'s reaction is not used: {target} did not set it off.",
    "defend": "{actor} takes total defense (+{bonus} defense until their next turn).",
    "simultaneous": "{actor}'s {kind} action takes effect together with {target}'s action.",
    "interrupt": "{actor}'s {kind} action interrupts {target}'s turn (the ability says so).",
    "ambush": "{actor} strikes from hiding: no extra actions, but acts first this round.",
    "speech.limit": "Speech limit: {limit} per post.",
    "check": "{actor}: {what} {total} against {dc}: {result}.",
    "declaration.unknown": "A declaration names {actor}, who is not in this fight.",
    "declaration.duplicate": "{actor} declared twice; the last declaration counts.",
    # -- dnd5e, resistance, two-action (the engine passes its own, more specific English)
    "surprise": "Surprised: {names}. They cannot move or act on their first turn, nor react "
                "until it ends.",
    "surprise.over": "{actor}'s first turn is over: no longer surprised.",
    "initiative.rolloff": "{actor} rolls to break a tie.",
    "attack.parried": "{target} parries {actor}'s attack with {parry}: {defense} against "
                      "{total}; the damage is cancelled.",
    "attack.evaded": "{target} evades {actor}'s shot: Reaction {defense} against {total}.",
    "attack.scattered": "{actor}'s shot at {place} misses ({total} against {dc}) and lands in a "
                        "neighbouring cell; the narrator picks which.",
    "attack.blocked": "{target} holds: {defense} against {actor}'s {total}; no damage.",
    "defend.declared": "{actor} will defend with {maneuver} when attacked.",
    "opposed.tie": "{actor} and {target} tie at {total}: roll again.",
    "opposed.won": "{actor} wins the opposed check against {target}: {high} against {low}.",
    "wear": "{target} takes {amount} wear on {resistance} d{die_before} (threshold "
            "{die_before}, {wear_before} worn before). {wear_after}/{die_before} worn.",
    "die.stepped": "{target}'s {resistance} steps down from d{die_before} to d{die_after}.",
    "conflict.ended": "The conflict ends: {actor} stepped a Resistance of {target} down.",
    "maneuver.disarm": "{target} drops {item}.",
    "maneuver.sunder": "{actor} strikes {target}'s {item} for {amount} damage.",
}


#: Other sentences for an event, picked from its parameters (:func:`template`).
VARIANTS: dict[str, str] = {
    "attack.parried/bare": "{target} parries {actor}'s attack with a bare d20: {defense} "
                           "against {total}; the damage is cancelled.",
    "opposed.tie/final": "{actor} and {target} tie at {total}: nobody steps down (narrator's "
                         "call).",
    "wear/stepped": "{target} takes {amount} wear on {resistance} d{die_before} (threshold "
                    "{die_before}, {wear_before} worn before). The die steps down {steps} "
                    "size(s) to d{die_after} with {wear_after} wear.",
    "wear/broken": "{target} takes {amount} wear on {resistance} d{die_before} (threshold "
                   "{die_before}, {wear_before} worn before). The die steps down {steps} "
                   "size(s) to nothing with {wear_after} wear.",
    "die.stepped/broken": "{target}'s {resistance} steps down from d{die_before} to nothing.",
    "maneuver.disarm/nothing": "{target} drops what they held.",
    "maneuver.sunder/nothing": "{actor} strikes an item of {target} for {amount} damage.",
    "move/far": "{actor} gets away from {target}: they are now Far.",
    "move/near": "{actor} closes in on {target}: they are now Near.",
    "move/to": "{actor} moves ({to}).",
    "move/plain": "{actor} moves.",
    "move/feet": "{actor} moves {distance} ft (speed {speed} ft, {left} ft left).",
    "move/speed": "{actor} moves {distance} (Speed {speed}; {lost} left over is lost).",
    "ready.triggered/fixed": "{actor}'s readied action goes off; the initiative order stays "
                             "as it is.",
    "reaction.triggered/away": "{target} moves away from {actor}: {actor} makes an "
                               "opportunity attack.",
}


#: the codes :func:`template` may say with a variant (the others are one plain lookup)
_VARIED = frozenset({"attack.parried", "opposed.tie", "wear", "die.stepped", "maneuver.disarm",
                     "maneuver.sunder", "ready.triggered", "reaction.triggered", "move"})


def template(code: str, params: Mapping[str, Any]) -> str | None:
    """The English template (a message id) saying event *code* with these *params*."""
    if code not in _VARIED:
        return EN.get(code)
    variant = None
    if code == "attack.parried" and params.get("parry") in (None, "-"):
        variant = "bare"
    elif code == "opposed.tie" and "opposed" in params:
        variant = "final"
    elif code == "wear" and params.get("steps"):
        variant = "broken" if params.get("broken") else "stepped"
    elif code == "die.stepped" and params.get("broken"):
        variant = "broken"
    elif code in ("maneuver.disarm", "maneuver.sunder") and not params.get("item"):
        variant = "nothing"
    elif code == "ready.triggered" and params.get("fixed"):  # DND-3: the order stays
        variant = "fixed"
    elif code == "reaction.triggered" and params.get("does") == "move-away":  # DND-7
        variant = "away"
    elif code == "move" and "left" in params:           # DND-4, in feet
        variant = "feet"
    elif code == "move" and "lost" in params:           # BEY-7, Speed points
        variant = "speed"
    elif code == "move" and "distance" not in params:   # RES-6 distances, TA-2 moves
        to = params.get("to")
        variant = to if to in ("far", "near") else "to" if to else "plain"
    if variant is not None:
        return VARIANTS[f"{code}/{variant}"]
    return EN.get(code)


def derived(code: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters a template needs that the event only implies (pure arithmetic)."""
    out: dict[str, Any] = {}
    if code == "opposed.won" and "total" in params and "opposed" in params:
        a, b = params["total"], params["opposed"]
        out["high"], out["low"] = (a, b) if a >= b else (b, a)
    if isinstance(params.get("resistance"), str):
        out["resistance"] = params["resistance"].title()
    return out


#: Why an action was refused or changed, by problem code (``params.problem`` of
#: ``action.rejected`` / ``action.changed``), said in other languages; the English reason
#: stays the event's own ``params.reason``, which is more specific. Candidates from the most
#: specific: the first whose parameters the event carries is used.
REASONS: dict[str, tuple[str, ...]] = {
    "budget.exceeded": ("no {slot} action left for this", "no action left for this"),
    "surprised": ("{actor} is surprised and cannot do this now",),
    "surprise.one": (("in the surprise round each surprising combatant gets ONE of: an "
                     "attack/cast, a move, or two quick actions"),),
    "conversion.refused": (("actions only convert downwards: an attack/cast becomes two quick "
                           "actions; never a move, and quick actions never make an attack"),),
    "kind.unknown": ("this system has no such kind of action",),
    "move.distance": ("that is not a distance",),
    "move.items": ("items are taken from the body or from beside you",),
    "move.too-far": ("that is farther than {actor} can move",),
    "move.grappled": (("{actor} is grappled and cannot move (escape first, with a combat "
                      "action)"),),
    "target.unknown": ("there is nobody called '{target_key}' in this fight",
                       "there is nobody by that name in this fight"),
    "target.missing": ("this action needs a target",),
    "target.down": ("the target is already down",),
    "weapon.unknown": ("{actor} has no such weapon",),
    "weapon.type": ("that weapon type has no row in the weapon table; ask the narrator",),
    "power.missing": ("create the power first: a move action and a Control test",),
    "speech.spell": (("a spell or power spoken aloud is not a free action; declare it as a "
                     "cast"),),
    "extra-attack.split": (("extra attacks all come from the same combat action: you cannot "
                           "attack, do something else, then attack again"),),
    "latency.forfeit": ("action lost: the post came after the deadline",),
    "ride.kind": ("only quick, move and free actions may be used on another's turn",),
    "ready.trigger": ("a readied action needs a trigger: whose action sets it off",),
    "maneuver.unknown": ("unknown maneuver",),
    "maneuver.escape": ("{actor} is not grappled",),
    "maneuver.release": ("{actor} is not grappling anyone",),
    "maneuver.brutal": ("{actor} lacks what a Brutal Attack needs",),
    "maneuver.untrained": ("without the training, {actor} cannot use that maneuver",),
    "delay.floor": (("one can delay only down to the initiative bonus - 10; the turn comes at "
                    "that count"),),
    "delay.after": ("there is nobody by that name to wait for",),
    "delay.count": ("that is not an initiative count",),
    "effect.unreadable": ("what this action would carry out is not an action",),
    "cancel.kind": ("cancelling your own casting costs one free action",),
    "bonus.not-granted": ("{actor} has no feature or spell that grants this bonus action",),
    "forbidden": ("{actor} cannot take actions or reactions now",),
    "initiative.fixed": ("the initiative order stays the same all combat",),
    "reaction.used": ("{actor} has already used the reaction",),
    "cast.unnamed": ("name the spell you cast",),
    "cast.unprepared": (("that spell is not prepared: preparing a spell is an action of its "
                        "own, before casting it"),),
    "item.unprepared": (("only an item fixed on the belt or in a pocket can be used as an "
                        "action"),),
    "situational.bad": ("situational modifiers must be a list of key: value",),
    "situational.melee": ("situational modifiers apply to ranged attacks only",),
    "check.difficulty": (("that is not a Difficulty: use a number from 1 or a word from the "
                         "table"),),
    "die.invalid": ("a Resistance is a die from d4 to d12",),
    "distance.far": ("the target is Far: close in first (a move) or use a weapon with Reach",),
    "helper.invalid": ("helpers are other combatants still in the fight",),
    "inflict.unknown": ("'{name}' is not a condition of this system",
                        "that is not a condition of this system"),
    "inflict.rounds": ("that is not a number of rounds",),
    "inflict.save": ("that is not a defense test (fortitude, reflexos, will)",),
    "option.number": ("that must be a whole number",),
    "resistance.unknown": ("the Resistances are Vigor and Will",),
    "synergy.missing": ("{actor} has no such Characteristic to lend a synergy point",),
    "declaration.unknown": ("that combatant is not in this fight",),
    "action.unresolvable": (("this action cannot be carried out: a value on the sheet cannot be "
                            "rolled; the narrator must fix it"),),
}

#: Values of event parameters said in the player's language (message ids without a
#: context): condition names (``pbp.rules.conditions`` and the rulesets' own), why a
#: condition ended or a turn was skipped, defense kinds, check results, Resistances,
#: defense maneuvers.
WORDS: tuple[str, ...] = (
    "flat-footed", "prone", "frightened", "concealed", "invisible", "blinded", "cover",
    "higher-ground", "fatigued", "flanked", "grappled", "grappling", "feinted", "defending",
    "latency-penalty", "engaged", "power", "advantage", "disadvantage", "full-round",
    "surprised", "brutal-attack", "defensive", "reaction-used",
    "down", "expired", "ended", "stood up", "used", "escaped", "released", "completed",
    "cancelled", "Fortitude success", "a new turn began", "cast",
    "fortitude", "reflexos", "will", "physical", "object", "luta", "pontaria",
    "success", "failure", "resisted", "failed", "on target",
    "Vigor", "Will", "block", "Vigor check", "Will check",
    "closed in", "a new turn gives the reaction back",
    "won the d20 roll-off", "roster order; the narrator may reorder them",
)
#: conditions that name something: ``far:<combatant>`` (RES-5), ``prepared:<spell>`` (TA-2)
NAMED_CONDITIONS: dict[str, str] = {
    "far": "far from {name}",
    "prepared": "{name} prepared",
}
#: parameters whose value may be one of :data:`WORDS`
WORD_PARAMS: tuple[str, ...] = ("condition", "reason", "kind", "defense_kind", "result",
                                "resistance", "maneuver", "policy", "what")

#: action kinds (``ActionKind``) and budget slots, said with the gettext context
#: :data:`KIND_CONTEXT` (``full-round`` is also a condition, ``cast`` a reason)
ACTION_KINDS: tuple[str, ...] = (
    "attack", "cast", "move", "quick", "free", "full-round", "delay", "ready", "defend",
    "maneuver", "bonus", "reaction", "other", "action", "interaction", "combat")
KIND_CONTEXT = "action kind"
#: parameters holding an action kind or slot, by event code
KIND_PARAMS: dict[str, tuple[str, ...]] = {
    "action.noted": ("kind",), "simultaneous": ("kind",), "interrupt": ("kind",),
    "reaction.triggered": ("kind",),
    "action.converted": ("source", "into"), "action.rejected": ("slot",),
    "action.changed": ("slot",),
}


def render(code: str, lang: str, params: Mapping[str, Any]) -> str:
    """The English sentence for event *code* (the code itself when there is no template).

    *lang* must be ``"en"``: other languages are said by :func:`pbp.render.event_sentence`
    from the reply catalogs (kept in the signature the engine calls).
    """
    if lang != "en":
        raise ValueError(f"messages.render speaks English only, not {lang!r}: "
                         "use pbp.render.event_sentence")
    text = template(code, params)
    if text is None:
        return code
    return text.format_map(_Safe({**params, **derived(code, params)}))


def say(code: str, params: Mapping[str, Any], actor: str, target: str) -> str:
    """``render(code, "en", params + {actor, target})``, where *actor* and *target* are
    the names said unless *params* holds its own."""
    names = _Safe(params)
    if "actor" not in names:
        names["actor"] = actor
    if "target" not in names:
        names["target"] = target
    text = template(code, names)
    if text is None:
        return code
    if code == "opposed.won" or "resistance" in names:
        names.update(derived(code, names))
    return text.format_map(names)


def fields(text: str) -> set[str]:
    """The ``{placeholders}`` of a template."""
    return set(re.findall(r"{(\w+)}", text))
