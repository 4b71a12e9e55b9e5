"""The dice checker's sentences (DICE-4) are in the panel's catalogs: every template the
checker writes (``Problem("...")`` in pbp/verify_proof.py and pbp/render/hidden.py, found
by reading their source) is listed in :mod:`pbp.panel.verify_words`, so ``pybabel
extract`` finds it and the public page says it in pt and ru (issue 17 i18n leftover)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from flask_babel import force_locale

from pbp.panel.verify_words import TEMPLATES

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ("pbp/verify_proof.py", "pbp/render/hidden.py")


def _written() -> set[str]:
    found: set[str] = set()
    for name in CHECKER:
        for node in ast.walk(ast.parse((ROOT / name).read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "Problem" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                found.add(str(node.args[0].value))
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1
                  and isinstance(node.targets[0], ast.Name) and node.targets[0].id.startswith("TWO_")
                  and isinstance(node.value, ast.Constant)):
                found.add(str(node.value.value))
    return found


def test_dice_4_every_checker_sentence_is_listed_for_translation(app: Any) -> None:
    written = _written()
    assert len(written) >= 25          # the scan itself found the checker's sentences
    with app.test_request_context(), force_locale("en"):
        listed = {str(t) for t in TEMPLATES}
    assert written == listed
