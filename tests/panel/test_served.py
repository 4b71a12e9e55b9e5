"""The browser tests' server closes a response body werkzeug abandons (a dropped
connection), so no static file leaks into a later test as an unraisable ResourceWarning."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

from tests.panel.served import closing_bodies


class Body:
    """A response body that records whether it was closed."""

    def __init__(self) -> None:
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        yield b"one"
        yield b"two"

    def close(self) -> None:
        self.closed = True


def _app(body: Body) -> Callable[[dict[str, Any], Callable[..., Any]], Body]:
    return lambda environ, start_response: body


def test_abandoned_body_is_closed() -> None:
    """The server read one chunk, the client dropped, and nobody called close()."""
    body = Body()
    chunks = closing_bodies(_app(body))({}, lambda *a: None)
    assert next(iter(chunks)) == b"one"
    del chunks
    gc.collect()
    assert body.closed


def test_finished_body_is_closed_once_read() -> None:
    body = Body()
    assert b"".join(closing_bodies(_app(body))({}, lambda *a: None)) == b"onetwo"
    assert body.closed
