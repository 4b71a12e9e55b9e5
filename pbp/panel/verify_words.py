"""The dice checker's problems (DICE-4) said in the reader's language on the public
verification page.

Why here: :mod:`pbp.verify_proof` and :mod:`pbp.render.hidden` say each problem in English
(``pbp verify`` prints them in a terminal) and keep its template and values
(:class:`pbp.problem.Problem`); the page translates the template with Flask-Babel and
fills in the values, a value that is itself a problem (``round 2: hidden roll #1``,
``round 1's seed``) translated the same way (:func:`pbp.panel.table_words.say`). The
templates are listed below so ``pybabel extract`` finds them; one missing here is said in
English (tests/panel/test_verify_words.py keeps the list in step with the checker).
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l

from .table_words import say

#: every template the checker writes
TEMPLATES = (
    _l('round {n}: two different commitments were published: {values}'),
    _l('round {n}: two different seeds were published: {values}'),
    _l('two different dice chains were published for the encounter: {values}'),
    _l('no chain (older encounter): each round is checked against its own commitment only'),
    _l("round {n}'s seed"),
    _l('the chain'),
    _l('round {n}: rolls are listed but its seed is not'),
    _l('round {n}: roll #{i} is missing: a roll was made and not shown'),
    _l("round {n}: roll #{i} '{expression}': the reply shows {shown}, the seed gives {given}"),
    _l('round {n}: not resolved yet, its seed is still secret'),
    _l('round {n}: the seed revealed does not hash to the commitment published ({c})'),
    _l('round {n}: the seed does not hash to {before}: the round was rolled with a seed outside the chain'),
    _l('round {n}: its seed was never committed to'),
    _l('round {n}: roll #{i} is listed twice, differently'),
    _l("round {n}: roll #{i} '{expression}' cannot be rolled again: {error}"),
    _l("round {n}: the reply says '{shown}', which is not what any roll of the round gives under its seed"),
    _l('round {n}: its commitment {c} is not {before}: the round was announced with a seed outside the chain'),
    _l('round {n}: {k} link(s) before it not read; its seed still hashes to the chain'),
    _l("reply {reply}: roll #{i} is listed under no round's seed"),
    _l('round {n}: hidden roll #{i}'),
    _l('the hidden key was published, but no commitment to it was'),
    _l("{where} was revealed with a different value than the one committed: its seed and expression '{expression}' do not hash to the seal {seal}… published with the roll (a forged reveal)"),
    _l('{where} was revealed as {shown}, but its seed gives {given}: the value was changed'),
    _l('{where} was not rolled with the seed the hidden key gives (sha256(K:n:i)): a seed chosen after the fact'),
    _l('round {n}: hidden roll #{i} is sealed, and was never revealed although the encounter is over'),
    _l('round {n}: hidden roll #{i} not revealed'),
    _l('the hidden key published at the end does not hash to the one committed when the encounter opened'),
    _l("{where}: '{expression}' cannot be replayed: {error}"),
    _l('round {n}: hidden roll #{i} was sealed twice, under {a}… and {b}…'),
    _l('round {n}: hidden roll #{i} was revealed twice with different values'),
)


def checker_words(problem: Any) -> str:
    """*problem* (a :class:`~pbp.problem.Problem` of the checker, or any text) in the
    current language."""
    return say(problem)
