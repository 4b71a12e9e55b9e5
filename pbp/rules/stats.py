"""Stat names as players write them (Portuguese, Russian, English) -> canonical sheet keys.

Why: the source texts are Portuguese (``Destreza``, ``Luta``), players on Russian
boards write ``Ловкость``, English boards ``Dex``. Sheets store canonical keys
(``dex``, ``luta``); :func:`canonical` is the ``resolve_name`` handed to
:meth:`pbp.dice.DiceBox.roll`, so ``1d20+Destreza`` and ``1d20+Dex`` roll the same.

>>> canonical("Destreza"), canonical("Ловкость"), canonical("DEX"), canonical("Luta")
('dex', 'dex', 'dex', 'luta')
>>> canonical("nonsense") is None
True
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from ..errors import UnreadableInput

#: canonical name -> the names players write for it (any case, accents optional).
SYNONYMS: Mapping[str, tuple[str, ...]] = {
    # attributes
    "str": ("str", "strength", "for", "força", "forca", "сила", "сил"),
    "dex": ("dex", "dexterity", "des", "destreza", "ловкость", "лов", "ловк"),
    "con": ("con", "constitution", "constituição", "constituicao", "телосложение", "тел", "выносливость"),
    "int": ("int", "intelligence", "inteligência", "inteligencia", "интеллект", "инт"),
    "wis": ("wis", "wisdom", "sab", "sabedoria", "мудрость", "мдр"),
    "cha": ("cha", "charisma", "car", "carisma", "харизма", "хар"),
    "will": ("will", "willpower", "vontade", "воля"),
    "level": ("level", "lvl", "nivel", "nível", "уровень", "ур"),
    # beyonders defenses and skills (BEY-13..15)
    "armor": ("armor", "armour", "armadura", "ca", "ac", "броня", "кд", "класс брони", "класс_брони"),
    "dodge": ("dodge", "esquiva", "уклонение", "уклон"),
    "spirituality": ("spirituality", "espiritualidade", "духовность"),
    # forum-d20 skills (FD-3/4/5/14/15)
    "luta": ("luta", "fight", "fighting", "melee", "бой", "рукопашная", "ближний бой"),
    "pontaria": ("pontaria", "aim", "shooting", "marksmanship", "стрельба", "меткость"),
    "fortitude": ("fortitude", "fort", "стойкость"),
    "reflexos": ("reflexos", "reflex", "reflexes", "ref", "рефлексы", "реакция"),
    "controle": ("controle", "control", "контроль"),
    "enganacao": ("enganacao", "enganação", "deception", "bluff", "обман"),
    "acrobacia": ("acrobacia", "acrobatics", "акробатика"),
    "initiative": ("initiative", "init", "iniciativa", "инициатива", "ини"),
    "percepcao": ("percepcao", "percepção", "perception", "восприятие"),
    # attribute modifiers (forum-d20 sheets carry both)
    "str_mod": ("str_mod", "mod_for", "mod_força", "мод_сил"),
    "dex_mod": ("dex_mod", "mod_des", "mod_destreza", "мод_лов"),
    "con_mod": ("con_mod", "mod_con", "mod_constituição", "мод_тел"),
    "int_mod": ("int_mod", "mod_int", "mod_inteligência", "мод_инт"),
    "cha_mod": ("cha_mod", "mod_car", "mod_carisma", "мод_хар"),
}


def _fold(word: str) -> str:
    """Case- and accent-insensitive key; spaces and hyphens become underscores."""
    text = unicodedata.normalize("NFKD", word.strip().casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.replace(" ", "_").replace("-", "_")


_INDEX: dict[str, str] = {}
for _canon, _names in SYNONYMS.items():
    _INDEX.setdefault(_fold(_canon), _canon)
    for _name in _names:
        _INDEX.setdefault(_fold(_name), _canon)
# Russian "й" and "ё" survive NFKD only as base+combining mark; fold them back consistently.


def canonical(name: str) -> str | None:
    """The canonical key for *name*, or None when nobody calls a stat that."""
    return _INDEX.get(_fold(name))


def resolve_name(name: str) -> str | None:
    """``resolve_name`` for :meth:`pbp.dice.DiceBox.roll`: canonical, else the name itself
    (so a sheet may carry ruleset-specific keys nobody listed here, like ``vigor_die``)."""
    return canonical(name) or _fold(name)


def normalise_sheet(stats: Mapping[str, object], *, where: str | None = None,
                    extra: frozenset[str] | None = None) -> dict[str, int]:
    """Sheet stats as written (``Destreza: 3``) -> canonical keys (``dex: 3``).

    With *extra* given (a ruleset's own stat keys), a name that is neither known
    nor in *extra* is an :class:`UnreadableInput` naming it; without it, unknown
    names are kept under their folded name. Non-integer values are refused too.
    """
    out: dict[str, int] = {}
    for name, value in stats.items():
        key = canonical(str(name))
        if key is None:
            folded = _fold(str(name))
            if extra is not None and folded not in extra:
                raise UnreadableInput(f"unknown stat '{name}'", where=where)
            key = folded
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise UnreadableInput(f"stat '{name}' must be a whole number, not {value!r}", where=where)
        try:
            number = int(value)
        except ValueError:
            raise UnreadableInput(f"stat '{name}' must be a whole number, not {value!r}",
                                  where=where) from None
        out[key] = number
    return out


def known(name: str) -> bool:
    """Whether *name* is a stat name we recognise in any language."""
    return canonical(name) is not None
