"""The random tables' problems (DICE-6) said in the narrator's language.

Why here: :mod:`pbp.random_tables` is pure and says each problem in English, keeping its
template and values (:class:`pbp.random_tables.Problem`); the panel translates the
template with Flask-Babel and fills in the values, the place a value is itself a problem
(``table 'crit', entry 3``) translated the same way. The templates are listed below so
``pybabel extract`` finds them; a template missing here is said in English.
"""

from __future__ import annotations

from typing import Any

from flask_babel import get_locale, gettext
from flask_babel import lazy_gettext as _l

from ..dice_errors import Refusal
from ..random_tables import Problem
from ..render.dice_words import refusal_text

#: every template pbp.random_tables writes (kept in step by tests/panel/test_tables.py)
TEMPLATES = (
    _l("table #{n}"), _l("table '{key}'"), _l("table '{key}', name"), _l("table '{key}', entry {n}"),
    _l("'{text}' is not a range: write 1-5, 6 or 95-100"),
    _l("'{text}' runs backwards: write {high}-{low}"),
    _l("'{die}' is not a table die: write NdM, such as 1d20, 1d100 or 2d6"),
    _l("'{die}' rolls no dice"),
    _l("{where}: {problem}"),
    _l("{where}: languages are en, pt and ru, not {bad}"),
    _l("{where}: a text is missing (a string, or {{ en = ..., pt = ..., ru = ... }})"),
    _l("table '{key}': entry {range} is outside {low}-{high}, what {die} can roll"),
    _l("table '{key}': entries {a} and {b} overlap on {both}"),
    _l("table '{key}': no entry covers {hole} ({die} rolls {low}-{high})"),
    _l("{where}: 'die' is missing (such as 1d20, 1d100 or 2d6)"),
    _l("{where}: a table is a TOML table ([[tables]])"),
    _l("{where}: 'key' must be a short name of letters, digits, - or _ (such as crit), not {value}"),
    _l("{where}: unknown setting {names}"),
    _l("{where}: 'aliases' is a list of words, such as [\"crit\", \"crítico\"]"),
    _l("{where}: 'entries' is missing: [[tables.entries]] with range and text"),
    _l("{where}: {count} entries; at most {most}"),
    _l("{where}: an entry has a range and a text"),
    _l("the text is not valid TOML: {detail}"),
    _l("unknown section {names}: tables go in [[tables]]"),
    _l("no [[tables]] found"),
    _l("{count} tables; at most {most}"),
    _l("tables '{a}' and '{b}' are both called '{word}'"),
)


def say(problem: Any) -> str:
    """*problem* in the current language (anything not a Problem stays as it is). A refusal
    of the dice (a value of the dice checker's sentences, DICE-4) is said by its code from
    the reply catalogs, which translate every refusal once for the replies and the panel."""
    if isinstance(problem, Refusal):
        locale = get_locale()
        return refusal_text(problem, locale.language if locale is not None else "en")
    if not isinstance(problem, Problem):
        return str(problem)
    params = {k: say(v) for k, v in problem.params.items()}
    try:
        return str(gettext(problem.template)).format(**params)
    except (KeyError, IndexError, ValueError):   # a translation that lost a placeholder
        return str(problem)
