"""Objects (FD-19): doors, chests, the enemy's enchanted sword.

An object is a :class:`Combatant` with ``is_object=True`` that never takes a turn. Its
defense is a fixed DC, not a roll: 15 still or 20 moving, plus the material bonus and
the size modifier; its HP is 50 + 10 x the size modifier.

>>> make_object("door", "Oak door", size="large", material=2).stats["dc"]
20
>>> make_object("key", "Key", size="tiny").hp
20
"""

from __future__ import annotations

from ..errors import UnreadableInput
from .model import Combatant

SIZE_MODS: dict[str, int] = {
    "tiny": -3, "diminutive": -2, "small": -1, "medium": 0,
    "large": 3, "huge": 6, "gargantuan": 9, "colossal": 12,
}
#: the source's Portuguese names (ínfimo, diminuto, mínimo, médio, grande, enorme, descomunal, colossal)
SIZE_NAMES_PT: dict[str, str] = {
    "infimo": "tiny", "ínfimo": "tiny", "diminuto": "diminutive", "minimo": "small",
    "mínimo": "small", "medio": "medium", "médio": "medium", "grande": "large",
    "enorme": "huge", "descomunal": "gargantuan", "colossal": "colossal",
}
STILL_DC = 15
MOVING_DC = 20
BASE_HP = 50


def size_mod(size: str | int) -> int:
    """The FD-19 size modifier of a size name (English or Portuguese) or a number."""
    if isinstance(size, int):
        return size
    name = SIZE_NAMES_PT.get(size.casefold(), size.casefold())
    if name not in SIZE_MODS:
        raise UnreadableInput(f"unknown object size '{size}' (known: {', '.join(SIZE_MODS)})")
    return SIZE_MODS[name]


def object_dc(size: str | int, material: int = 0, moving: bool = False) -> int:
    return (MOVING_DC if moving else STILL_DC) + material + size_mod(size)


def object_hp(size: str | int) -> int:
    return BASE_HP + 10 * size_mod(size)


def make_object(key: str, name: str, *, size: str | int = "medium", material: int = 0,
                moving: bool = False, reduction: int = 0, side: str = "objects") -> Combatant:
    """An FD-19 object ready to be attacked (``stats``: dc, size, material, moving, reduction)."""
    hp = object_hp(size)
    return Combatant(
        key=key, name=name, side=side, hp=hp, max_hp=hp, is_object=True,
        stats={"dc": object_dc(size, material, moving), "size": size_mod(size),
               "material": material, "moving": int(moving), "reduction": reduction},
    )
