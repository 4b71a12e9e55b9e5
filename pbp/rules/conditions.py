"""Condition names (FD-18 and friends): canonical keys, the names players and narrators
write for them in three languages, and constructors that set the durations right.

Why canonical keys: a sheet, a scenario file and a narrator's override may say
``Desprevenido``, ``flat-footed`` or ``застигнут врасплох``; the rules compare keys.
"""

from __future__ import annotations

import unicodedata

from ..errors import UnreadableInput
from .model import Condition

FLAT_FOOTED = "flat-footed"
PRONE = "prone"
FRIGHTENED = "frightened"
CONCEALED = "concealed"        # value: 20 (FD-18: miss on 8, 9, 12, 13)
INVISIBLE = "invisible"        # concealment 50% (FD-18: miss on an even natural roll)
BLINDED = "blinded"            # value 1: caused by the blindness disadvantage (no test ends it)
COVER = "cover"
HIGHER_GROUND = "higher-ground"
FATIGUED = "fatigued"          # value: the CON-mod penalty
FLANKED = "flanked"            # value: enemies around
GRAPPLED = "grappled"          # source: the grappler
GRAPPLING = "grappling"        # source: the grappled
FEINTED = "feinted"            # source: the feinter (FD-14)
DEFENDING = "defending"        # total defense (FD-2 latency default)
LATENCY = "latency-penalty"    # FD-2 roll-penalty mode; value: the penalty
ENGAGED = "engaged"            # in melee (FD-11); source: whom with, if known
POWER = "power"                # FD-5; note: the power's name; value: the INT modifier
ADVANTAGE = "advantage"        # BEY-3
DISADVANTAGE = "disadvantage"  # BEY-3
FULL_ROUND = "full-round"      # BEY-8: busy until the start of the next turn

NAMES: dict[str, tuple[str, ...]] = {
    FLAT_FOOTED: ("flat-footed", "flatfooted", "desprevenido", "desprevenida", "врасплох",
                  "застигнут врасплох"),
    PRONE: ("prone", "caido", "caído", "caida", "лежит", "сбит с ног"),
    FRIGHTENED: ("frightened", "assustado", "assustada", "испуган", "напуган"),
    CONCEALED: ("concealed", "concealment", "camuflagem", "camuflado", "маскировка"),
    INVISIBLE: ("invisible", "invisivel", "invisível", "невидим", "невидимость"),
    BLINDED: ("blinded", "blind", "cego", "cega", "ослеплен", "слепота"),
    COVER: ("cover", "cobertura", "укрытие"),
    HIGHER_GROUND: ("higher-ground", "high ground", "em posicao mais alta", "posicao mais alta",
                    "возвышенность"),
    FATIGUED: ("fatigued", "fatigado", "fatigada", "утомлен", "усталость"),
    FLANKED: ("flanked", "flanqueado", "flanqueando", "окружен", "фланг"),
    GRAPPLED: ("grappled", "agarrado", "agarrada", "схвачен"),
    GRAPPLING: ("grappling", "agarrando", "держит захват"),
    FEINTED: ("feinted", "fintado", "обманут финтом"),
    DEFENDING: ("defending", "total defense", "defesa total", "полная защита"),
    LATENCY: ("latency-penalty",),
    ENGAGED: ("engaged", "em combate corpo-a-corpo", "в ближнем бою"),
    POWER: ("power", "poder", "сила способности"),
    ADVANTAGE: ("advantage", "vantagem", "преимущество"),
    DISADVANTAGE: ("disadvantage", "desvantagem", "помеха"),
    FULL_ROUND: ("full-round",),
}


def fold(text: str) -> str:
    """A name as compared: case, accents and surrounding space do not count; ``_`` is ``-``."""
    text = unicodedata.normalize("NFKD", text.strip().casefold().replace("_", "-"))
    return "".join(ch for ch in text if not unicodedata.combining(ch))


_INDEX = {fold(n): key for key, names in NAMES.items() for n in (key,) + names}


def canonical(name: str, *, where: str | None = None) -> str:
    """The canonical key of a condition name in any of our languages; unknown -> error."""
    key = _INDEX.get(fold(name))
    if key is None:
        raise UnreadableInput(f"unknown condition '{name}' (known: {', '.join(sorted(NAMES))})",
                              where=where)
    return key


def lasting(name: str, rounds: int | None, *, round_number: int, count: float | None,
            source: str | None = None, value: int = 0, note: str | None = None) -> Condition:
    """A condition of *rounds* rounds that began now: FD-6 ends it just before this count,
    *rounds* rounds later (``Condition.expired``)."""
    return Condition(name=name, rounds=rounds, started_round=round_number, started_count=count,
                     source=source, value=value, note=note)


def flanked_penalty(enemies: int) -> int:
    """FD-18: flanked is -2 defense, and -1 more per enemy beyond the first
    (2 enemies -3, 3 enemies -4).

    >>> [flanked_penalty(n) for n in (1, 2, 3, 4)]
    [-2, -3, -4, -5]
    """
    return -(1 + max(1, enemies))


#: FD-18: natural rolls that miss a concealed target (20% concealment)
CONCEALMENT_20_MISSES = frozenset({8, 9, 12, 13})
