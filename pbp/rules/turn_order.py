"""STALL-7: initiative modes, the order turns are taken in once initiative is rolled.

Why a module of its own: the engine's initiative step (:func:`pbp.rules.engine._initiative`)
rolls and sorts one order by count (BEY-4, FD-1, DND-3, TA-1, RES-6). Play-by-post tables
often take turns differently, and the narrator picks how in the panel (houserule
``initiative.turns``, per campaign or per encounter, the encounter's winning):

``individual``  today's behaviour: each combatant at its own count (the default);
``side``        each side acts as a block, the sides in the order of their best roll
                (``initiative.sides_first = "initiative"``) or the narrator's
                (``"players"`` / ``"enemies"``); inside a side, initiative order;
``block``       the players' block resolves in post order (the order the declarations were
                posted; players with no post last, in initiative order), the enemies as a
                block before or after it by the same ``sides_first`` setting;
``popcorn``     the acting character names who acts next (``next: Bruna``, parsed as an
                action with ``options.command = "next"``); the first actor is the top of
                the initiative order unless the narrator names one (``initiative.first``).
                A name not in the fight, down, or that already acted is refused in the
                reply, and the turn falls back to the next in initiative order who has not
                acted yet (the documented rule).

A late post (PBP-2) in the ``side``/``block``/``popcorn`` modes moves the character to the
end of the order when the ruleset has a delay rule (FD-16, ``rule_refs["delay"]``);
where it has none (BEY, DND-3 "fixed for the whole combat", TA-1 "the order only changes
through skills or magic", RES) the reply says the character keeps its place.

Pure: the mode comes from the ruleset's settings, the order from the round's context.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from .base import Ruleset
from .context import RoundContext
from .declared import Declaration
from .turn_modes import SIDES_FIRST, TURN_MODES

#: the initiative modes, as the panel offers them
MODES: tuple[str, ...] = TURN_MODES
__all__ = ["MODES", "SIDES_FIRST", "allows_delay", "mode_of", "turn_sequence",
           "without_hand_offs"]


def mode_of(rs: Ruleset) -> str:
    """The round's initiative mode (``individual`` when unset or unknown)."""
    mode = str(rs.setting("initiative.turns", "individual") or "individual")
    return mode if mode in MODES else "individual"


def allows_delay(rs: Ruleset) -> bool:
    """Whether the ruleset lets a character take a later slot (FD-16 delay)."""
    return rs.rule_ref("delay") is not None


def turn_sequence(ctx: RoundContext, rs: Ruleset,
                  decls: Mapping[str, Declaration]) -> list[str] | None:
    """The order turns are taken in this round, or None for ``individual`` (count order).

    Emits ``initiative.turns.<mode>`` with the order used, and the popcorn and delay
    events that explain it.
    """
    mode = mode_of(rs)
    if mode == "individual":
        return None
    order = [k for k in ctx.order if k in ctx.combatants]
    if mode == "side":
        seq = _sides(ctx, rs, order, _by_side(ctx, order))
    elif mode == "block":
        seq = _block(ctx, rs, order, decls)
    else:
        seq = _popcorn(ctx, rs, order, decls)
    seq = _late(ctx, rs, seq, decls, mode)
    ctx.emit(f"initiative.turns.{mode}", rule=rs.rule_ref("initiative"), order=list(seq),
             names=", ".join(ctx.name(k) for k in seq))
    return seq


def _by_side(ctx: RoundContext, order: list[str]) -> dict[str, list[str]]:
    sides: dict[str, list[str]] = {}
    for k in order:
        sides.setdefault(ctx.get(k).side or "players", []).append(k)
    return sides


def _side_order(ctx: RoundContext, rs: Ruleset, sides: Mapping[str, list[str]]) -> list[str]:
    """The sides, first to act first: the narrator's choice, else the side whose best
    member has the highest initiative (the order's first member is on the first side)."""
    first = str(rs.setting("initiative.sides_first", "initiative"))
    names = list(sides)  # already in order of each side's best member (order is sorted)
    if first == "players" and "players" in names:
        names.remove("players")
        names.insert(0, "players")
    elif first == "enemies" and "players" in names:
        names.remove("players")
        names.append("players")
    return names


def _sides(ctx: RoundContext, rs: Ruleset, order: list[str],
           sides: Mapping[str, list[str]]) -> list[str]:
    return [k for side in _side_order(ctx, rs, sides) for k in sides[side]]


def _block(ctx: RoundContext, rs: Ruleset, order: list[str],
           decls: Mapping[str, Declaration]) -> list[str]:
    """Players in post order (declarations come in the order they were posted)."""
    players = [k for k in order if ctx.get(k).player is not None]
    posted = [k for k in decls if k in players and not decls[k].missing]
    block = posted + [k for k in players if k not in posted]
    sides = _by_side(ctx, order)
    out: list[str] = []
    for side in _side_order(ctx, rs, sides):
        if side == "players":
            out += block
            out += [k for k in sides[side] if k not in block]
        else:
            out += [k for k in sides[side] if k not in block]
    return out


def _named_next(ctx: RoundContext, d: Declaration | None) -> str | None:
    """The name a declaration hands the turn to (``next: Bruna``), as written."""
    if d is None:
        return None
    for a in d.actions:
        if a.options.command == "next":
            return a.target or a.options.target_text or ""
    return None


def _popcorn(ctx: RoundContext, rs: Ruleset, order: list[str],
             decls: Mapping[str, Declaration]) -> list[str]:
    able = [k for k in order if not ctx.get(k).down and not ctx.get(k).is_object]
    if not able:
        return order
    chosen = str(rs.setting("initiative.first", "") or "")
    current = chosen if chosen in able else able[0]
    seq = [current]
    while len(seq) < len(able):
        wanted = _named_next(ctx, decls.get(current))
        fallback = next(k for k in able if k not in seq)
        if wanted is None:
            nxt = fallback
        elif wanted in ctx.combatants and wanted in able and wanted not in seq:
            nxt = wanted
            ctx.emit("initiative.next", actor=current, target=nxt, rule="STALL-7")
        else:
            known = wanted in ctx.combatants
            code = ("initiative.next_acted" if known and wanted in seq
                    else "initiative.next_down" if known else "initiative.next_unknown")
            ctx.emit(code, actor=current, target=fallback, rule="STALL-7",
                     wanted=ctx.name(wanted) if known else wanted)
            nxt = fallback
        seq.append(nxt)
        current = nxt
    return seq + [k for k in order if k not in seq]


def _late(ctx: RoundContext, rs: Ruleset, seq: list[str],
          decls: Mapping[str, Declaration], mode: str) -> list[str]:
    """A late post: to the end of the order where the ruleset allows delaying."""
    late = [k for k in seq if k in decls and decls[k].late and not decls[k].missing]
    if not late:
        return seq
    if not allows_delay(rs):
        for k in late:
            ctx.emit("initiative.no_delay", actor=k, rule=rs.rule_ref("initiative"))
        return seq
    for k in late:
        ctx.emit("initiative.late_moved", actor=k, rule=rs.rule_ref("delay"))
    return [k for k in seq if k not in late] + late


def without_hand_offs(decls: Mapping[str, Declaration]) -> dict[str, Declaration]:
    """The declarations with their ``next:`` hand-offs taken out: a hand-off is said with
    the order (``initiative.next``), it is no action of the turn."""
    out: dict[str, Declaration] = {}
    for k, d in decls.items():
        for a in d.actions:
            if a.options.command == "next":
                break
        else:  # no hand-off: most declarations (SCALE-6, a loop: no generator per one)
            out[k] = d
            continue
        kept = tuple(a for a in d.actions if a.options.command != "next")
        out[k] = d if len(kept) == len(d.actions) else dataclasses.replace(d, actions=kept)
    return out
