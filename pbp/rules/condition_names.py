"""The condition names each ruleset knows, and what a narrator may write for them.

Why per ruleset: a narrator's override or a panel form names a condition in any of our
languages (``Desprevenido``, ``flat-footed``, ``застигнут врасплох``), and the rules
compare canonical keys. A name the ruleset never reads (``grappled`` in dnd5e) would
sit on the sheet doing nothing, so it is refused with the names that would work.

The shared names and their translations live in :mod:`pbp.rules.conditions`; the
names only one ruleset reads (dnd5e's, two-action's, resistance's) are listed here.
Conditions that name something (``far:<combatant>`` RES-5, ``prepared:<spell>`` TA-2)
are written ``far:goblin``; only the part before the colon is normalised.

>>> normalise_condition("forum-d20", "Desprevenido")
'flat-footed'
>>> normalise_condition("dnd5e", "ОШЕЛОМЛЁН")
'stunned'
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import UnreadableInput
from . import conditions as C
from .registry import ruleset_class

#: dnd5e (DND-5: what forbids actions; DND-7: the reaction is spent)
INCAPACITATED = "incapacitated"
STUNNED = "stunned"
PARALYZED = "paralyzed"
PETRIFIED = "petrified"
UNCONSCIOUS = "unconscious"
REACTION_USED = "reaction-used"
#: two-action (TA-3: a defensive skill used on the last turn)
DEFENSIVE = "defensive"
#: resistance (RES-7: Brutal Attack lowers one's own defense)
BRUTAL = "brutal-attack"
#: conditions that name something after a colon: RES-5 Far, TA-2 a prepared spell
FAR = "far"
PREPARED = "prepared"

#: names of the conditions :mod:`pbp.rules.conditions` does not list (en, pt, ru)
OWN_NAMES: dict[str, tuple[str, ...]] = {
    INCAPACITATED: ("incapacitated", "incapacitado", "incapacitada", "недееспособен",
                    "недееспособный", "недееспособна"),
    STUNNED: ("stunned", "atordoado", "atordoada", "ошеломлён", "ошеломленный", "ошеломлена"),
    PARALYZED: ("paralyzed", "paralysed", "paralisado", "paralisada", "парализован",
                "парализованный", "парализована"),
    PETRIFIED: ("petrified", "petrificado", "petrificada", "окаменел", "окаменевший",
                "окаменела"),
    UNCONSCIOUS: ("unconscious", "inconsciente", "без сознания", "бессознательный"),
    REACTION_USED: ("reaction-used", "reaction used", "reação usada", "реакция использована"),
    DEFENSIVE: ("defensive", "defensivo", "defensiva", "защитный навык", "в защите"),
    BRUTAL: ("brutal-attack", "brutal attack", "ataque brutal", "жестокая атака"),
    FAR: ("far", "longe", "далеко"),
    PREPARED: ("prepared", "preparado", "preparada", "подготовлен", "подготовлено"),
}

#: ruleset id -> the condition keys its rules read (named ones: see NAMED)
BY_RULESET: Mapping[str, tuple[str, ...]] = {
    "forum-d20": (
        # FD-18
        C.FRIGHTENED, C.PRONE, C.CONCEALED, C.INVISIBLE, C.BLINDED, C.COVER, C.FLAT_FOOTED,
        C.HIGHER_GROUND, C.FATIGUED, C.FLANKED,
        C.GRAPPLED, C.GRAPPLING, C.FEINTED,   # FD-14
        C.DEFENDING, C.LATENCY,               # FD-2
        C.ENGAGED,                            # FD-11
        C.POWER,                              # FD-5
    ),
    "beyonders": (
        C.FLAT_FOOTED,                        # BEY-2
        C.ADVANTAGE, C.DISADVANTAGE, C.INVISIBLE, C.FLANKED, C.BLINDED,  # BEY-3
        C.FULL_ROUND,                         # BEY-8
        C.DEFENDING, C.LATENCY,               # PBP-2
    ),
    "dnd5e": (
        INCAPACITATED, STUNNED, PARALYZED, PETRIFIED, UNCONSCIOUS,  # DND-5
        REACTION_USED,                        # DND-7
        C.DEFENDING,                          # Dodge: the PBP-2 latency default
    ),
    "two-action": (DEFENSIVE,),               # TA-3
    "resistance": (BRUTAL,),                  # RES-7
}

#: ruleset id -> the conditions written ``<name>:<what>`` it reads
NAMED: Mapping[str, tuple[str, ...]] = {"resistance": (FAR,), "two-action": (PREPARED,)}

_INDEX: dict[str, str] = {
    C.fold(n): key
    for table in (C.NAMES, OWN_NAMES) for key, names in table.items() for n in (key,) + names
}


def known_conditions(ruleset: str) -> tuple[str, ...]:
    """The canonical condition keys *ruleset* knows, sorted (an unknown id: ConfigError)."""
    ruleset_class(ruleset)
    return tuple(sorted(BY_RULESET.get(ruleset, ())))


def normalise_condition(ruleset: str, name: str) -> str:
    """The canonical key of *name* (en/pt/ru, any case, accents or not) in *ruleset*.

    A name *ruleset* does not know raises :class:`UnreadableInput` naming it and the
    known ones. ``far:goblin`` keeps what follows the colon as written (stripped).
    """
    known = known_conditions(ruleset)
    head, colon, rest = name.partition(":")
    if colon:
        key = _INDEX.get(C.fold(head))
        if key in NAMED.get(ruleset, ()) and rest.strip():
            return f"{key}:{rest.strip()}"
    else:
        key = _INDEX.get(C.fold(name))
        if key in known:
            return str(key)
    written = ", ".join(known + tuple(f"{n}:<name>" for n in NAMED.get(ruleset, ())))
    raise UnreadableInput(f"unknown condition '{name}' in {ruleset} (known: {written})")
