"""The panel served by werkzeug in a thread, for the browser tests.

Why the body wrapper: when Chromium drops a connection (it cancels a favicon request on
navigation), werkzeug's dev server can raise while draining the socket, before it calls the
response's ``close()``. The static file then leaks and its ResourceWarning surfaces as an
unraisable error in whatever test runs next. Handing werkzeug a generator whose ``finally``
closes the body makes the close happen even then: Python closes a dropped generator."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from werkzeug.serving import make_server

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def closing_bodies(app: Wsgi) -> Wsgi:
    """The app, with every response body closed when it is finished, dropped or abandoned."""

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        body = app(environ, start_response)

        def chunks() -> Iterator[bytes]:
            try:
                yield from body
            finally:
                close = getattr(body, "close", None)
                if close is not None:
                    close()

        return chunks()

    return wsgi


@contextmanager
def served(app: Wsgi) -> Iterator[str]:
    """The app on a free localhost port in a daemon thread; yields its base URL."""
    server = make_server("127.0.0.1", 0, closing_bodies(app), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
