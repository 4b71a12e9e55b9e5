"""The public dice check of an encounter (DICE-4): ``/verify/<token>``, no login.

Why here and why like this: a player who distrusts the dice should not need a terminal.
The page runs the same checker as ``pbp verify THREAD_URL`` (:mod:`pbp.verify_proof`,
summed up round by round by :mod:`pbp.verify_rounds`) over the replies as they went out
(the outbox's copies of posted replies), and shows each round's result in plain words
with the chain and the seeds, so anyone can also recompute them. It exists only for a
campaign whose narrator opted in (``Campaign.public_verification``, off by default): for
any other encounter, and any token that is not one, the answer is the same 404, so the
page tells nobody which encounters exist. The token is random per encounter
(``Encounter.verify_token``), not its id: ids can be counted.
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from ..store.verification import encounter_by_token, sent_reply_bodies
from ..verify_proof import read_blocks
from ..verify_rounds import summarise
from .db import session
from .verify_words import checker_words

bp = Blueprint("verification", __name__)
#: a checker's problem or note in the page's language (pt/ru readers too: DICE-4)
bp.add_app_template_filter(checker_words, "checker_words")


@bp.route("/verify/<token>")
def page(token: str):  # type: ignore[no-untyped-def]
    s = session()
    encounter = encounter_by_token(s, token)
    if encounter is None or not encounter.campaign.public_verification:
        abort(404)
    bodies = sent_reply_bodies(s, encounter.id)
    blocks = read_blocks(bodies)
    result = summarise(blocks) if blocks else None
    response = render_template("panel/verify.html", encounter=encounter, campaign=encounter.campaign,
                               thread=encounter.thread, replies=len(bodies), result=result)
    # the page's address is its only secret: not for search engines, nor other sites' logs
    return response, 200, {"X-Robots-Tag": "noindex", "Referrer-Policy": "no-referrer"}
