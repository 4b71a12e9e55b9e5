"""Every BEY-n and FD-n id in RULES.md is named by at least one test in tests/rules
(in a test name as ``fd_3`` or in a docstring as ``FD-3``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import shared_path

HERE = Path(__file__).resolve().parent


def _ids(prefix: str) -> list[str]:
    text = shared_path("rules", "RULES.md").read_text(encoding="utf-8")
    return sorted(set(re.findall(rf"^- ({prefix}-\d+)\b", text, re.MULTILINE)),
                  key=lambda x: int(x.split("-")[1]))


@pytest.mark.parametrize("prefix, module", [("FD", "test_forum_d20.py"),
                                            ("BEY", "test_beyonders.py")])
def test_every_rule_id_has_a_test(prefix: str, module: str) -> None:
    ids = _ids(prefix)
    assert len(ids) == {"FD": 19, "BEY": 17}[prefix]
    source = (HERE / module).read_text(encoding="utf-8")
    names = set(re.findall(r"def (test_\w+)", source))
    missing = []
    for rid in ids:
        n = rid.split("-")[1]
        by_name = any(re.search(rf"_{prefix.lower()}_{n}(_|$)", name) for name in names)
        if not by_name and not re.search(rf"\b{rid}\b", source):
            missing.append(rid)
    assert not missing
