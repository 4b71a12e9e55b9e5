"""The panel names its icon, so a browser does not ask for a missing ``/favicon.ico``
(each page's console showed "Failed to load resource: 404" in a walk through the demo)."""

from __future__ import annotations

import re
from typing import Any

from .conftest import Client


def test_every_page_links_an_icon_that_is_served(app: Any, alice: Client) -> None:
    visitor = Client(app.test_client())
    for page in (visitor.get("/login"), alice.get("/")):
        assert page.status_code == 200
        m = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)"', page.text)
        assert m, "no icon link on the page"
        icon: Any = alice.get(m.group(1))
        assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
        assert icon.data.startswith(b"<svg")
        icon.close()
