"""SCALE-5: the panel's pages go compressed (brotli or gzip) and carry a CSRF token masked
anew on every render (BREACH), which a POST still accepts."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import brotli

from pbp.panel import create_app, csrf_mask
from pbp.panel.forms import SourceForm

TOKEN = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def _app(tmp_path: Path):  # type: ignore[no-untyped-def]
    from pbp.store.db import upgrade
    url = f"sqlite:///{tmp_path}/c.db"
    upgrade(url)
    return create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE_URL": url})


def test_scale5_login_page_compressed_by_brotli_and_gzip(tmp_path: Path) -> None:
    c = _app(tmp_path).test_client()
    plain = c.get("/login", headers={"Accept-Encoding": "identity"})
    assert plain.headers.get("Content-Encoding") is None
    br = c.get("/login", headers={"Accept-Encoding": "br, gzip"})
    gz = c.get("/login", headers={"Accept-Encoding": "gzip"})
    assert br.headers["Content-Encoding"] == "br" and gz.headers["Content-Encoding"] == "gzip"
    # the same page underneath (tokens differ: masked per render)
    assert b"<form" in brotli.decompress(br.data) and b"<form" in gzip.decompress(gz.data)


def test_scale5_csrf_token_masked_per_render_and_accepted(tmp_path: Path) -> None:
    c = _app(tmp_path).test_client()
    plain = TOKEN.search(c.get("/login").get_data(as_text=True)).group(1)  # type: ignore[union-attr]
    first, second = csrf_mask.mask(csrf_mask.unmask(plain)), csrf_mask.mask(csrf_mask.unmask(plain))
    assert first.startswith("m.") and second.startswith("m.") and first != second
    assert csrf_mask.unmask(first) == csrf_mask.unmask(second)     # one secret underneath
    # a masked token passes the CSRF check (a wrong password: the form answers, not a 400)
    ok = c.post("/login", data={"csrf_token": first, "name": "nobody", "password": "x"})
    assert ok.status_code != 400
    bad = c.post("/login", data={"csrf_token": "m." + first[2:][::-1], "name": "nobody", "password": "x"})
    assert bad.status_code == 400


def test_scale5_every_token_a_page_renders_is_masked_and_differs_per_render(tmp_path: Path) -> None:
    """BREACH: no token on a rendered page is the plain signed value (the header's
    language form uses ``csrf_token()``, the login form ``form.csrf_token``), and two
    renders of one page share no token bytes an attacker could guess; each one posts."""
    c = _app(tmp_path).test_client()
    pages = [TOKEN.findall(c.get("/login").get_data(as_text=True)) for _ in range(2)]
    assert all(len(tokens) >= 2 for tokens in pages), pages     # language switcher + login form
    assert all(t.startswith("m.") for tokens in pages for t in tokens), pages
    assert not set(pages[0]) & set(pages[1])
    secrets = {csrf_mask.unmask(t) for tokens in pages for t in tokens}
    assert len(secrets) == 1                                      # one session token under all
    for token in pages[1]:
        answer = c.post("/login", data={"csrf_token": token, "name": "nobody", "password": "x"})
        assert answer.status_code != 400


def test_scale5_a_prefixed_forms_masked_token_posts(tmp_path: Path) -> None:
    """The campaign page's "Add a source" form has the prefix ``thread``: its token field is
    ``thread-csrf_token``. Masked like every other, it must still pass the CSRF check (it
    was refused: the journey's "Add source" found no answer)."""
    app = _app(tmp_path)
    with app.test_request_context("/"):
        field = SourceForm(prefix="thread").csrf_token
        assert field.name == "thread-csrf_token" and str(field.current_token).startswith("m.")
    c = app.test_client()
    token = TOKEN.search(c.get("/login").get_data(as_text=True)).group(1)  # type: ignore[union-attr]
    # the login form posted under a prefixed token name: unmasked, checked, answered (not 400)
    answer = c.post("/login", data={"thread-csrf_token": csrf_mask.mask(csrf_mask.unmask(token)),
                                    "name": "nobody", "password": "x"})
    assert answer.status_code != 400
