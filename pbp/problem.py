"""A sentence in English that keeps its template and values (:class:`Problem`).

Why a module of its own: the random tables (DICE-6) and the dice checker (DICE-4,
:mod:`pbp.verify_proof`, :mod:`pbp.render.hidden`) say their problems in English for the
terminal and the logs, and the panel says the same problems in the reader's language
(:mod:`pbp.panel.table_words`, :mod:`pbp.panel.verify_words`) by translating the template
and filling in the values. Shared at the top level so the dice checker, the renderer and
the tables need not import each other.

>>> p = Problem("round {n}: {what}", n=3, what=Problem("the chain"))
>>> str(p), p.template, p.params["n"]
('round 3: the chain', 'round {n}: {what}', 3)
"""

from __future__ import annotations

from typing import Any, Self


class Problem(str):
    """One problem, a sentence in English that keeps its template and values, so the
    panel says it in the reader's language. A value may be a Problem itself (where it
    happened: ``table 'crit', entry 3``, ``round 2's seed``)."""

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, **params: Any) -> Self:
        self = super().__new__(cls, template.format(**params))
        self.template = template
        self.params = params
        return self
