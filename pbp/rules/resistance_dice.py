"""The die ladder of the ``resistance`` ruleset (RES-1, RES-3, RES-5, RES-9), as pure functions.

Source 003 (Portuguese): a Resistance is a die from d4 to d12; a failed check steps it
down "para o imediatamente abaixo" (RES-3, RES-4); in a tactical conflict damage first
wears the Threshold ("Limiar"), which equals the current die's size and "can suffer
that many wear points before the die steps down" (RES-5); large damage may step down
"more than one type of die" (RES-9).

Our reading, kept in one place so tests and the narrator can see it:

* the ladder is 4, 6, 8, 10, 12 (``DIE_SIZES``); below d4 a combatant is *broken*
  (out of the conflict) -- the source is silent, so it is the ``below_d4`` setting;
* wear accumulates on the current die; with ``threshold_mode = "exceeds"`` (default,
  "absorbs N points before stepping") the die steps when wear goes *over* its size,
  with ``"reaches"`` when wear reaches it; the wear beyond the threshold carries onto
  the next die, so 15 damage on a fresh d8 steps d8 -> d6 (7 left) -> d4 (1 left);
* a die that steps (by damage or failure) starts with no wear: its threshold is the
  new die's size.

>>> apply_wear(8, 0, 15)
Wear(die=4, wear=1, steps=2, broken=False)
>>> apply_wear(8, 0, 8)
Wear(die=8, wear=8, steps=0, broken=False)
>>> apply_wear(8, 0, 8, mode="reaches")
Wear(die=6, wear=0, steps=1, broken=False)
>>> step_down(4)
(0, True)
"""

from __future__ import annotations

from dataclasses import dataclass

#: RES-1: the Resistance dice, smallest to largest.
DIE_SIZES: tuple[int, ...] = (4, 6, 8, 10, 12)

#: RES-3: the source's Difficulty table (10+ is legendary).
DIFFICULTIES: dict[str, int] = {
    "very easy": 2,
    "easy": 3,
    "medium": 4,
    "complicated": 5,
    "very complicated": 6,
    "hard": 7,
    "very hard": 8,
    "extremely hard": 9,
    "legendary": 10,
}


def difficulty_name(value: int) -> str:
    """The table's word for a Difficulty (``legendary`` for 10 and up)."""
    best = "very easy"
    for name, number in DIFFICULTIES.items():
        if value >= number:
            best = name
    return best


def is_die(size: int) -> bool:
    return size in DIE_SIZES


def step_down(size: int, steps: int = 1) -> tuple[int, bool]:
    """Step a die *steps* sizes down: ``(new size, broken)``; broken means it fell below d4
    (new size 0).

    >>> step_down(12, 2)
    (8, False)
    """
    if size not in DIE_SIZES:
        raise ValueError(f"d{size} is not a Resistance die (d4, d6, d8, d10, d12)")
    index = DIE_SIZES.index(size) - steps
    if index < 0:
        return 0, True
    return DIE_SIZES[index], False


@dataclass(frozen=True)
class Wear:
    """What *damage* did to a die: the new die and wear, how many sizes it stepped, whether
    it broke (stepped below d4)."""

    die: int
    wear: int
    steps: int
    broken: bool


def apply_wear(die: int, wear: int, damage: int, *, mode: str = "exceeds") -> Wear:
    """Put *damage* wear points on a die already carrying *wear* (RES-5, RES-9).

    Pure and total: damage <= 0 changes nothing.
    """
    if mode not in ("exceeds", "reaches"):
        raise ValueError(f"threshold_mode must be 'exceeds' or 'reaches', not {mode!r}")
    if damage <= 0:
        return Wear(die, wear, 0, False)
    total = wear + damage
    steps = 0
    while die:
        over = total > die if mode == "exceeds" else total >= die
        if not over:
            break
        total -= die
        die, broken = step_down(die)
        steps += 1
        if broken:
            return Wear(0, 0, steps, True)
    return Wear(die, total, steps, False)
