"""The panel's answers compressed by Flask-Compress (brotli, then gzip), the library kept.

Why: the encounter page of a 50-combatant, 200-post round is hundreds of KB of HTML that
compresses about twentyfold; a narrator on a phone waits for the bytes, not the server.
Brotli (quality 4: near gzip's speed, smaller) for browsers that offer it, gzip (level 6)
otherwise; zstd and deflate are left out (no browser the panel supports needs them).
Answers under 500 bytes go as they are. BREACH (a secret in a compressed answer beside
text an outsider chooses) is answered by masking the CSRF token per render:
:mod:`pbp.panel.csrf_mask`, docs/panel.md "Compression and BREACH".
"""

from __future__ import annotations

from flask import Flask
from flask_compress import Compress

compress = Compress()

#: what the panel compresses: its pages, fragments, JSON, stylesheet and script
MIMETYPES = ["text/html", "text/css", "application/javascript", "text/javascript", "application/json"]


def init_app(app: Flask) -> None:
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    app.config.setdefault("COMPRESS_MIMETYPES", MIMETYPES)
    app.config.setdefault("COMPRESS_LEVEL", 6)
    app.config.setdefault("COMPRESS_BR_LEVEL", 4)
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    # streamed answers (send_file: the stylesheet and script) go as they are: compressing
    # them left the file open (a ResourceWarning per asset) and they are cached anyway
    app.config.setdefault("COMPRESS_STREAMS", False)
    compress.init_app(app)
