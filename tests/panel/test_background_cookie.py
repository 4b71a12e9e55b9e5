"""SCALE-5: the encounter page's background requests (the live refresh, a part loaded on
demand) never set the session cookie. One in flight while the narrator posts a form used
to answer after the POST's redirect with the session as it was before, so the browser lost
the POST's "done" message (test_browser_fight failed so under load)."""

from __future__ import annotations

from typing import Any

from tests.panel.conftest import Client


def _sets_session(response: Any) -> bool:
    return any(h.startswith("pbp_session=") for h in response.headers.getlist("Set-Cookie"))


def test_scale5_live_refresh_and_fragments_leave_the_session_cookie_alone(alice: Client,
                                                                          ids: dict[str, Any]) -> None:
    page = f"/encounters/{ids['encounter']}"
    assert _sets_session(alice.get(page))     # a page refreshes the cookie (its idle time)
    live = alice.get(f"{page}/live", headers={"X-Live-Have": "", "Accept": "application/json"})
    assert live.status_code == 200 and live.is_json
    assert not _sets_session(live)
    part = alice.get(f"{page}?round=1", headers={"X-Fragment": "1"})
    assert part.status_code == 200
    assert not _sets_session(part)


def test_scale5_a_flash_survives_a_poll_sent_before_the_post(app: Any, alice: Client,
                                                            ids: dict[str, Any]) -> None:
    """The browser's order: a poll is sent with the cookie of the moment, the narrator's
    POST answers (its redirect's cookie holds the "done" message), then the poll's answer
    comes, then the redirect's page. The browser keeps one cookie jar: whatever cookie the
    poll's answer sets lands in it. The page still shows the POST's message."""
    page = f"/encounters/{ids['encounter']}"
    alice.get(page)
    before = alice.c.get_cookie("pbp_session").value
    r = alice.post(f"{page}/standing/absence", {"player": "aria_p", "until": "2099-01-01T12:00"})
    assert r.status_code in (302, 303)
    poll = app.test_client()                       # the request sent before the POST
    poll.set_cookie("pbp_session", before)
    answer = poll.get(f"{page}/live", headers={"X-Live-Have": "", "Accept": "application/json"})
    assert answer.status_code == 200
    for header in answer.headers.getlist("Set-Cookie"):
        if header.startswith("pbp_session="):
            alice.c.set_cookie("pbp_session", header.split(";", 1)[0].split("=", 1)[1])
    assert "Absence recorded." in alice.get(page).text
