"""A narrator's accounts on the thread's platforms, as typed in the panel: read, and
checked against the campaign's players.

Why the check: a post's author who is a narrator is read as the narrator (its
declarations marked the narrator's, its NPC lines read), so an account that is a
player's would take that player's posts for the narrator's. Shared by the owner's account
(the campaign's settings) and the co-narrators' (:mod:`pbp.panel.narrators`)."""

from __future__ import annotations

from flask_babel import gettext as _
from sqlalchemy.orm import Session

from ..store.narrators import players_of
from .ladder_settings import ACCOUNT

#: the most accounts one narrator may name (a forum, Reddit, an old alias or two)
MOST = 5


def read_accounts(session: Session, campaign_id: int, text: str) -> tuple[list[str], str | None]:
    """The accounts in *text* (separated by commas, ``u/`` dropped, each once) and what is
    wrong with them, in words the narrator acts on (None: nothing)."""
    names: list[str] = []
    for raw in text.split(","):
        name = raw.strip().removeprefix("/u/").removeprefix("u/").strip()
        if name and name.casefold() not in (n.casefold() for n in names):
            names.append(name)
    bad = [n for n in names if not ACCOUNT.match(n)]
    if bad:
        shown = bad[0] if len(bad[0]) <= 40 else bad[0][:40] + "…"
        return names, _("%(name)s is not a user name: letters, digits, spaces, _, - and . only, "
                        "several separated by commas, like the_gm, gm_alt.", name=shown)
    if len(names) > MOST:
        return names, _("At most %(n)s accounts.", n=MOST)
    return names, player_clash(session, campaign_id, names)


def player_clash(session: Session, campaign_id: int, names: list[str]) -> str | None:
    """Why one of *names* cannot be a narrator's account (it plays a character of the
    campaign), or None."""
    players = players_of(session, campaign_id)
    for name in names:
        if name.casefold() in players:
            return _("%(name)s plays %(character)s in this campaign: as a narrator's account, "
                     "their posts would be taken for the narrator's.",
                     name=name, character=players[name.casefold()])
    return None
