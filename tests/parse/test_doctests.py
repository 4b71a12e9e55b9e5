"""The ``>>>`` examples in pbp.parse are tests too."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["pbp.parse", "pbp.parse.post", "pbp.parse.model", "pbp.parse.tags", "pbp.parse.roster",
           "pbp.parse.explicit",
           "pbp.parse.normalise", "pbp.parse.lexicon", "pbp.random_tables"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
