"""Action economy pieces shared by rulesets: diminishing extra actions (BEY-12).

>>> [usable_extras(n) for n in (0, 1, 2, 3, 5, 6, 10)]
[0, 1, 1, 2, 2, 3, 4]
"""

from __future__ import annotations


def usable_extras(n: int) -> int:
    """BEY-12: *n* extra actions of one type from external sources give the largest k
    with 1 + 2 + ... + k <= n usable ones (the k-th usable one needs k invalid ones)."""
    k = 0
    while (k + 1) * (k + 2) // 2 <= n:
        k += 1
    return k
