"""How the store writes and reads JSON columns: through orjson, with the standard
library as the fallback for what orjson refuses.

Why (SCALE-6): an ingest batch writes some 300 JSON values (a declaration's actions,
speech, errors, notes...) and the panel reads as many; the standard library took 5.9 us
to encode one typical action list and 3.1 us to decode it, orjson 0.56 us and 0.73 us
(measured on this machine). Stored text is UTF-8 without spaces; readers only decode it,
and every engine of the service (:func:`pbp.store.db.make_engine`) uses these two, so
text written and compared (the roster cache recognises rows by their stored text) comes
from the same encoder.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS   # {1: ...} becomes {"1": ...}, as json.dumps makes it


def dumps(value: Any) -> str:
    """*value* as JSON text. orjson refuses integers beyond 64 bits (a dice total may be
    one, before its check refuses it) and a few other things the standard library takes:
    those go through :func:`json.dumps`, which raises for what neither can encode."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:   # orjson.JSONEncodeError is one
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    """JSON text (or bytes, as psycopg hands it) as Python values."""
    return orjson.loads(text)
